/**
 * The Policy panel's model, generated from the scenario JSON Schema (itself
 * generated from the Rust types): one control per leaf of `policy`, grouped by the
 * patch series that added it, with the schema's description, default and range;
 * the user's overrides on top of the scenario file, and how they differ from it.
 * A knob added to the core shows up here without UI work. Pure: no React, no engine.
 */
import { unreachable } from '../base/types';
import type { ScenarioProblem } from '../engine/protocol';
import { compareKernels, DEFAULT_KERNEL, KERNEL_VERSIONS, kernelFeatures } from './kernels';

export { compareKernels } from './kernels';

/** A JSON value, as a scenario file holds it. */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** A setting that is a JSON object (`policy.struct_layout`'s explicit field order). */
export type SettingObject = { readonly [key: string]: JsonValue };

/** What a policy control sets: a switch, a choice, a number, or (for a choice-or-object field) an object. */
export type SettingValue = boolean | number | string | SettingObject;

/** The user's settings on top of the scenario file, by dotted path (`policy.shared_runq.mode`). */
export type PolicyOverrides = Readonly<Record<string, SettingValue>>;

export const NO_OVERRIDES: PolicyOverrides = {};

export interface EnumOption {
  readonly value: string;
  /** The schema's sentence for this choice (from the Rust enum variant's doc comment). */
  readonly description: string;
}

interface ControlBase {
  /** Dotted path from the scenario root, as `--set` takes it: `policy.shared_runq.shard_size`. */
  readonly path: string;
  /** The path below `policy`: `shared_runq.shard_size`. */
  readonly label: string;
  /** The schema's description, on one line. */
  readonly description: string;
}

export type PolicyControl =
  | (ControlBase & { readonly kind: 'boolean'; readonly default: boolean | undefined })
  | (ControlBase & { readonly kind: 'enum'; readonly options: readonly EnumOption[]; readonly default: string | undefined })
  | (ControlBase & {
      readonly kind: 'integer' | 'number';
      readonly minimum: number | undefined;
      readonly maximum: number | undefined;
      readonly default: number | undefined;
    })
  | (ControlBase & { readonly kind: 'text'; readonly default: string | undefined })
  /**
   * A field the schema lets be one of a few names or an object (`policy.struct_layout`:
   * `"original"`, `"reordered"` or an explicit order): the names are its options.
   */
  | (ControlBase & { readonly kind: 'enum-or-object'; readonly options: readonly EnumOption[]; readonly default: string | undefined });

/** The controls one patch series added (or the kernel's own paths). */
export interface PolicyGroup {
  /** `kernel` (the version and its paths), `baseline`, or `seed-000` for the series of seed experiment 000. */
  readonly id: string;
  readonly title: string;
  /** The seed experiment's number, `000`; undefined for the baseline paths. */
  readonly seed: string | undefined;
  /** The kernel the series was written against; undefined for the baseline paths. */
  readonly kernel: string | undefined;
  /** The series' idea in one sentence, from the schema. */
  readonly summary: string | undefined;
  readonly controls: readonly PolicyControl[];
}

/**
 * Names and kernels of the patch series the schema's descriptions refer to as
 * `Seed NNN:`. A series not listed here still gets a group, titled by its number,
 * with the first kernel version its description mentions.
 */
const SERIES: Readonly<Record<string, { readonly title: string; readonly kernel: string }>> = {
  '000': { title: 'SHARED_RUNQ', kernel: '6.5' },
  '001': { title: 'select_idle_sibling idle-thread scan', kernel: '4.6' },
  '002': { title: 'cfs_rq / sched_entity field order', kernel: '6.15' },
  '003': { title: 'TurboSched task packing', kernel: '5.2' },
  '004': { title: 'NUMA affinity at fork', kernel: '5.18' },
};

/** The part of a JSON Schema this reads. */
interface SchemaNode {
  readonly $ref?: string;
  readonly type?: string | readonly string[];
  readonly description?: string;
  readonly default?: JsonValue;
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly oneOf?: readonly SchemaNode[];
  readonly anyOf?: readonly SchemaNode[];
  readonly allOf?: readonly SchemaNode[];
  readonly enum?: readonly JsonValue[];
  readonly const?: JsonValue;
  readonly minimum?: number;
  readonly maximum?: number;
}

interface SchemaRoot extends SchemaNode {
  readonly $defs?: Readonly<Record<string, SchemaNode>>;
}

/** Descriptions are wrapped in the Rust source: one line, single spaces. */
export function oneLine(text: string | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}

/** Follows a local `$ref`, a one-entry `allOf`, and an optional field's `anyOf` with null. */
function resolve(root: SchemaRoot, node: SchemaNode): SchemaNode {
  let current = node;
  for (let depth = 0; depth < 16; depth++) {
    if (current.$ref?.startsWith('#/$defs/')) {
      const target = root.$defs?.[current.$ref.slice('#/$defs/'.length)];
      if (!target) return current;
      current = target;
    } else if (current.allOf?.length === 1 && current.allOf[0]) {
      current = current.allOf[0];
    } else if (current.anyOf && current.anyOf.length === 2 && current.anyOf.some((branch) => branch.type === 'null')) {
      const other = current.anyOf.find((branch) => branch.type !== 'null');
      if (!other) return current;
      current = other;
    } else {
      return current;
    }
  }
  return current;
}

function hasType(node: SchemaNode, type: string): boolean {
  return node.type === type || (Array.isArray(node.type) && node.type.includes(type));
}

export function isObject(value: JsonValue | undefined): value is { readonly [key: string]: JsonValue } {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A leaf without a description of its own explains itself with its parent's, minus the series tag. */
function withoutSeed(text: string): string {
  const seed = /^Seed \d+:\s*/.exec(text);
  return seed ? capitalise(text.slice(seed[0].length)) : text;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The first sentence of a description, capitalised. */
function firstSentence(text: string): string {
  const match = /^(.*?[.!?])(\s|$)/.exec(text);
  return capitalise(match?.[1] ?? text);
}

/** `enabled` and `mode` lead their object: they say whether the rest matters. */
function leadingFirst(keys: readonly string[]): readonly string[] {
  const lead = (key: string) => (key === 'enabled' || key === 'mode' ? 0 : 1);
  return [...keys].sort((a, b) => lead(a) - lead(b));
}

function controlFor(
  root: SchemaRoot,
  property: SchemaNode,
  path: string,
  inheritedDefault: JsonValue | undefined,
  parentDescription: string,
): PolicyControl | undefined {
  const node = resolve(root, property);
  const fallback = property.default ?? node.default ?? inheritedDefault;
  const own = oneLine(property.description);
  const base = { path, label: path.replace(/^(policy|features)\./, '') };
  const options = node.oneOf?.every((branch) => typeof branch.const === 'string')
    ? node.oneOf.map((branch) => ({ value: branch.const as string, description: oneLine(branch.description) }))
    : node.enum?.every((value) => typeof value === 'string')
      ? node.enum.map((value) => ({ value: value as string, description: '' }))
      : undefined;
  if (options) {
    // The enum's own description says what is chosen; the field's often only lists the values.
    const description = oneLine(node.description) || own || parentDescription;
    return { ...base, kind: 'enum', description, options, default: typeof fallback === 'string' ? fallback : undefined };
  }
  const description = own || oneLine(node.description) || parentDescription;
  // A name or an object: the names from the string branch (an enum), the object left to the engine to check.
  const branches = node.anyOf?.map((branch) => resolve(root, branch));
  const named = branches?.find((branch) => branch.enum?.every((value) => typeof value === 'string') || branch.oneOf?.every((entry) => typeof entry.const === 'string'));
  if (named && branches?.some((branch) => hasType(branch, 'object'))) {
    const names = named.enum
      ? named.enum.map((value) => ({ value: value as string, description: '' }))
      : (named.oneOf ?? []).map((entry) => ({ value: entry.const as string, description: oneLine(entry.description) }));
    // Without a default in the schema, the first name: the core's value when the field is absent (`"original"`).
    return { ...base, kind: 'enum-or-object', description: withoutSeed(description), options: names, default: typeof fallback === 'string' ? fallback : names[0]?.value };
  }
  if (hasType(node, 'boolean')) {
    return { ...base, kind: 'boolean', description, default: typeof fallback === 'boolean' ? fallback : undefined };
  }
  if (hasType(node, 'integer') || hasType(node, 'number')) {
    return {
      ...base,
      kind: hasType(node, 'integer') ? 'integer' : 'number',
      description,
      minimum: node.minimum,
      maximum: node.maximum,
      default: typeof fallback === 'number' ? fallback : undefined,
    };
  }
  if (hasType(node, 'string')) {
    return { ...base, kind: 'text', description, default: typeof fallback === 'string' ? fallback : undefined };
  }
  return undefined;
}

/** Every settable leaf under a policy property, `enabled`/`mode` first. */
function controlsUnder(
  root: SchemaRoot,
  property: SchemaNode,
  path: string,
  inheritedDefault: JsonValue | undefined,
  parentDescription: string,
): PolicyControl[] {
  const node = resolve(root, property);
  const defaults = property.default ?? node.default ?? inheritedDefault;
  if (node.properties) {
    const description = withoutSeed(oneLine(property.description)) || oneLine(node.description) || parentDescription;
    return leadingFirst(Object.keys(node.properties)).flatMap((key) => {
      const child = node.properties?.[key];
      if (!child) return [];
      return controlsUnder(root, child, `${path}.${key}`, isObject(defaults) ? defaults[key] : undefined, description);
    });
  }
  const control = controlFor(root, property, path, inheritedDefault, parentDescription);
  return control ? [control] : [];
}

/**
 * The Policy panel's groups from the scenario schema: the baseline paths first,
 * then each patch series by the kernel it was written against. A `policy`
 * property whose description starts `Seed NNN:` belongs to that series.
 */
export function policyGroups(schema: unknown, kernel: string = DEFAULT_KERNEL): readonly PolicyGroup[] {
  const root = schema as SchemaRoot;
  const kernelControls = kernelGroup(root, kernel);
  const policyProperty = root.properties?.policy;
  if (!policyProperty) return [];
  const policy = resolve(root, policyProperty);
  const defaults = policyProperty.default ?? policy.default;
  const baseline: PolicyControl[] = [];
  const series = new Map<string, { summary: string; kernel: string | undefined; controls: PolicyControl[] }>();
  for (const [key, property] of Object.entries(policy.properties ?? {})) {
    const description = oneLine(property.description) || oneLine(resolve(root, property).description);
    const seed = /^Seed (\d+):\s*/.exec(description);
    const controls = controlsUnder(root, property, `policy.${key}`, isObject(defaults) ? defaults[key] : undefined, description);
    if (!seed?.[1]) {
      baseline.push(...controls);
      continue;
    }
    const id = seed[1];
    const entry = series.get(id) ?? {
      summary: firstSentence(description.slice(seed[0].length)),
      kernel: SERIES[id]?.kernel ?? /\b(\d+\.\d+)\b/.exec(description)?.[1],
      controls: [],
    };
    entry.controls.push(...controls);
    series.set(id, entry);
  }
  const groups: PolicyGroup[] = kernelControls ? [kernelControls] : [];
  if (baseline.length > 0) {
    groups.push({ id: 'baseline', title: 'Baseline paths', seed: undefined, kernel: undefined, summary: undefined, controls: baseline });
  }
  const ordered = [...series.entries()].sort(([idA, a], [idB, b]) => {
    if (a.kernel && b.kernel) return compareKernels(a.kernel, b.kernel) || idA.localeCompare(idB);
    if (a.kernel || b.kernel) return a.kernel ? -1 : 1;
    return idA.localeCompare(idB);
  });
  for (const [id, entry] of ordered) {
    // A series of one setting whose own text begins with the summary says it once.
    const [only] = entry.controls;
    const repeated = entry.controls.length === 1 && only !== undefined && oneLine(only.description).startsWith(entry.summary.replace(/\.$/, ''));
    groups.push({
      id: `seed-${id}`,
      title: SERIES[id]?.title ?? `Seed ${id}`,
      seed: id,
      kernel: entry.kernel,
      summary: repeated ? undefined : entry.summary,
      controls: entry.controls,
    });
  }
  return groups;
}

/**
 * The kernel group: which version's baseline paths run (`kernel`), then each path
 * a scenario's `features` can set, its default the variant `kernel` takes (from
 * the core's version table), so a switch shows what actually runs.
 */
function kernelGroup(root: SchemaRoot, kernel: string): PolicyGroup | undefined {
  const kernelProperty = root.properties?.kernel;
  const featuresProperty = root.properties?.features;
  if (!kernelProperty || !featuresProperty) return undefined;
  // The file's own spelling is a choice too (`5.18.3`, or a minor the table lacks), so the select shows it.
  const versions = KERNEL_VERSIONS.includes(kernel) ? KERNEL_VERSIONS : [...KERNEL_VERSIONS, kernel];
  const versionControl: PolicyControl = {
    kind: 'enum',
    path: 'kernel',
    label: 'kernel',
    description: firstSentence(oneLine(kernelProperty.description)),
    options: versions.map((version) => ({ value: version, description: '' })),
    default: DEFAULT_KERNEL,
  };
  const resolved = kernelFeatures(kernel);
  const features = resolve(root, featuresProperty);
  const featureControls = Object.entries(features.properties ?? {}).flatMap(([name, property]) => {
    const control = controlFor(root, property, `features.${name}`, resolved?.[name], '');
    return control ? [control] : [];
  });
  return {
    id: 'kernel',
    title: 'Kernel version and paths',
    seed: undefined,
    kernel: undefined,
    summary: `The kernel whose baseline paths run, and each path on its own: a setting left as the version has it follows the version.`,
    controls: [versionControl, ...featureControls],
  };
}

/** Every control of every group, in the panel's order. */
export function allControls(groups: readonly PolicyGroup[]): readonly PolicyControl[] {
  return groups.flatMap((group) => group.controls);
}

/** The kernel a scenario runs: its `kernel` field, else the schema's default. */
export function scenarioKernel(schema: unknown, scenario: JsonValue | undefined): { readonly version: string; readonly fromFile: boolean } {
  const kernel = isObject(scenario) ? scenario.kernel : undefined;
  if (typeof kernel === 'string') return { version: kernel, fromFile: true };
  const description = (schema as SchemaRoot).properties?.kernel?.description ?? '';
  return { version: /default "([\d.]+)"/.exec(description)?.[1] ?? '6.5', fromFile: false };
}

/** The value at a dotted path, or undefined. */
export function valueAtPath(root: JsonValue | undefined, path: string): JsonValue | undefined {
  let node: JsonValue | undefined = root;
  for (const key of path.split('.')) {
    if (!isObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

/** A control's value in a scenario: what the file says, else the schema's default. */
export function fileSetting(control: PolicyControl, scenario: JsonValue | undefined): SettingValue | undefined {
  const value = valueAtPath(scenario, control.path);
  if (typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string') return value;
  if (control.kind === 'enum-or-object' && isObject(value)) return value;
  return control.default;
}

/** Whether two settings are the same value (objects compared by their contents). */
export function sameSetting(a: SettingValue | undefined, b: SettingValue | undefined): boolean {
  if (typeof a === 'object' && typeof b === 'object') return canonicalJson(a) === canonicalJson(b);
  return a === b;
}

/** JSON with object keys in order, so equal contents give equal text. */
function canonicalJson(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map((item: JsonValue) => canonicalJson(item)).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key] as JsonValue)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A control's value in the run: the override, else the file's. */
export function currentSetting(control: PolicyControl, scenario: JsonValue | undefined, overrides: PolicyOverrides): SettingValue | undefined {
  return Object.hasOwn(overrides, control.path) ? overrides[control.path] : fileSetting(control, scenario);
}

/** The scenario with the overrides written in, creating `policy.*` objects the file leaves out. */
export function withOverrides(scenario: JsonValue, overrides: PolicyOverrides): JsonValue {
  const copy = structuredClone(scenario) as { [key: string]: JsonValue };
  if (!isObject(copy)) return copy;
  for (const [path, value] of Object.entries(overrides)) {
    const keys = path.split('.');
    const last = keys.pop();
    if (last === undefined) continue;
    let node: { [key: string]: JsonValue } = copy;
    for (const key of keys) {
      const next = node[key];
      if (!isObject(next)) node[key] = {};
      node = node[key] as { [key: string]: JsonValue };
    }
    node[last] = value;
  }
  return copy;
}

/** The overrides after the user sets a control: setting the file's own value drops the override. */
export function setOverride(overrides: PolicyOverrides, control: PolicyControl, value: SettingValue, scenario: JsonValue | undefined): PolicyOverrides {
  const next: Record<string, SettingValue> = { ...overrides };
  if (sameSetting(value, fileSetting(control, scenario))) delete next[control.path];
  else next[control.path] = value;
  return next;
}

/** A setting that differs from the scenario file. */
export interface ChangedSetting {
  readonly path: string;
  readonly label: string;
  readonly file: SettingValue | undefined;
  readonly value: SettingValue;
}

/** The overrides that differ from the file, in the panel's order. */
export function changedSettings(groups: readonly PolicyGroup[], scenario: JsonValue | undefined, overrides: PolicyOverrides): readonly ChangedSetting[] {
  return allControls(groups).flatMap((control) => {
    const value = overrides[control.path];
    const file = fileSetting(control, scenario);
    return value === undefined || sameSetting(value, file) ? [] : [{ path: control.path, label: control.label, file, value }];
  });
}

/** Objects up to this long are shown whole; longer ones (an explicit field order) are summarised. */
const SHOWN_OBJECT_CHARS = 60;

/**
 * A setting as a scenario file writes it: `true`, `6`, `"all"`; a long object
 * by its keys and list lengths: `{"cfs_rq": [37 names], "sched_entity": [23 names]}`.
 */
export function formatSetting(value: SettingValue | undefined): string {
  if (value === undefined) return '(unset)';
  const text = JSON.stringify(value);
  if (typeof value !== 'object' || text.length <= SHOWN_OBJECT_CHARS) return text;
  const parts = Object.entries(value).map(([key, entry]) => `${JSON.stringify(key)}: ${Array.isArray(entry) ? `[${entry.length} names]` : JSON.stringify(entry)}`);
  return `{${parts.join(', ')}}`;
}

/** A setting's value as `--set` and share links write it: `off`, `6`, or an object's JSON. */
export function settingText(value: SettingValue): string {
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** A shell word: as it is when plain, else in single quotes. */
export function shellWord(text: string): string {
  return /^[\w.,=:/+-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The CLI's `--set` for a setting: `--set policy.shared_runq.mode=off` (quoted for the shell when it must be). */
export function setArgument(path: string, value: SettingValue): string {
  return `--set ${shellWord(`${path}=${settingText(value)}`)}`;
}

export type ParsedInput = { readonly ok: true; readonly value: SettingValue } | { readonly ok: false; readonly problem: ScenarioProblem };

/**
 * Reads what the user typed or picked for a control, as the CLI's `--set` reads a
 * value by the field's type, and checks the schema's range and choices. Problems
 * are worded as the schema validator words them (`must be at least 0, got -1`),
 * or as `--set` does for a value of the wrong type (`expected an integer, got
 * \`abc\``), always with the field's path.
 */
export function parseControlInput(control: PolicyControl, raw: string): ParsedInput {
  const fail = (message: string): ParsedInput => ({ ok: false, problem: { path: control.path, message } });
  const text = raw.trim();
  const shown = text === '' ? 'an empty value' : `\`${raw}\``;
  switch (control.kind) {
    case 'boolean':
      if (text === 'true' || text === 'false') return { ok: true, value: text === 'true' };
      return fail(`expected a boolean, got ${shown}`);
    case 'enum': {
      if (control.options.some((option) => option.value === text)) return { ok: true, value: text };
      const choices = control.options.map((option) => `"${option.value}"`).join(', ');
      return fail(`must be one of ${choices}, got "${raw}"`);
    }
    case 'integer':
    case 'number': {
      const pattern = control.kind === 'integer' ? /^-?\d+$/ : /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
      const value = Number(text);
      if (!pattern.test(text) || !Number.isFinite(value) || (control.kind === 'integer' && !Number.isSafeInteger(value))) {
        return fail(`expected ${control.kind === 'integer' ? 'an integer' : 'a number'}, got ${shown}`);
      }
      if (control.minimum !== undefined && value < control.minimum) return fail(`must be at least ${control.minimum}, got ${value}`);
      if (control.maximum !== undefined && value > control.maximum) return fail(`must be at most ${control.maximum}, got ${value}`);
      return { ok: true, value };
    }
    case 'text':
      return { ok: true, value: raw };
    case 'enum-or-object': {
      if (control.options.some((option) => option.value === text)) return { ok: true, value: text };
      const value = parseScenarioValue(text);
      if (value !== undefined && isObject(value)) return { ok: true, value };
      if (typeof value === 'string' && control.options.some((option) => option.value === value)) return { ok: true, value };
      const choices = control.options.map((option) => `"${option.value}"`).join(', ');
      return fail(`must be one of ${choices} or a JSON object, got ${shown}`);
    }
    default:
      return unreachable(control);
  }
}

/** The scenario file's text as a value, or undefined when it is not JSON. */
export function parseScenarioValue(text: string): JsonValue | undefined {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return undefined;
  }
}

/** The scenario text a run with these overrides loads (the file's own text when there are none). */
export function runText(fileText: string, overrides: PolicyOverrides): string | undefined {
  if (Object.keys(overrides).length === 0) return fileText;
  const value = parseScenarioValue(fileText);
  return value === undefined ? undefined : JSON.stringify(withOverrides(value, overrides), null, 2);
}
