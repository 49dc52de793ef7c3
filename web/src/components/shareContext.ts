/** What share links and the kept session need to know about this build: its scenarios, policy controls and speeds. */
import { bundledScenarios, DEFAULT_SCENARIO_ID } from '../engine/scenarios';
import { scenarioSchema } from '../engine/validate';
import { allControls, policyGroups } from '../store/policy';
import { DEFAULT_SPEED_INDEX, SPEEDS } from '../store/app';
import type { ShareContext } from '../store/share';

export const SHARE_CONTEXT: ShareContext = {
  scenarios: bundledScenarios,
  defaultScenarioId: DEFAULT_SCENARIO_ID,
  controls: allControls(policyGroups(scenarioSchema)),
  speeds: SPEEDS.map((speed) => speed.factor),
  defaultSpeedIndex: DEFAULT_SPEED_INDEX,
};

/** The default scenario, to fall back on. */
export const DEFAULT_SCENARIO = bundledScenarios.find((scenario) => scenario.id === DEFAULT_SCENARIO_ID) ?? bundledScenarios[0];
