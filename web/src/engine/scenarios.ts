/** The scenarios shipped in `scenarios/`, bundled into the app as text. */
const files = import.meta.glob('../../../scenarios/*.json', {
  query: '?raw',
  import: 'default',
  eager: true,
}) as Record<string, string>;

export interface BundledScenario {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  /** The patch series (seed experiment) the scenario belongs to: the picker's group. */
  readonly series: string;
  readonly text: string;
}

/** The picker's groups, in order: the seed experiment each scenario reproduces, by its file name and title. */
export const SERIES: readonly { readonly name: string; readonly test: (id: string, title: string) => boolean }[] = [
  { name: 'Teaching', test: (id) => id.startsWith('teaching') },
  { name: 'series 000 · SHARED_RUNQ (6.5)', test: (id, title) => id.startsWith('shared-runq') || title.includes('SHARED_RUNQ') },
  { name: 'series 001 · select_idle_sibling idle-thread scan (4.6)', test: (id) => id.startsWith('sis-') },
  { name: 'series 002 · cfs_rq / sched_entity reordering (6.x)', test: (id) => id.startsWith('cgroup-') },
  { name: 'series 003 · TurboSched task packing (5.2)', test: (id) => id.startsWith('turbo-') },
  { name: 'series 004 · NUMA affinity at fork (5.18)', test: (id, title) => id.startsWith('stream') || title.includes('NUMA affinity') },
];
const OTHER_SERIES = 'Other';

export function seriesOf(id: string, title: string): string {
  return SERIES.find((series) => series.test(id, title))?.name ?? OTHER_SERIES;
}

/** A scenario text's description, when it is JSON with one. */
export function descriptionOf(text: string): string {
  try {
    const parsed = JSON.parse(text) as { description?: unknown };
    return typeof parsed.description === 'string' ? parsed.description : '';
  } catch {
    return '';
  }
}

/** A scenario text's title, when it is JSON with one (else empty). */
export function titleOf(text: string): string {
  try {
    const parsed = JSON.parse(text) as { title?: unknown };
    return typeof parsed.title === 'string' ? parsed.title : '';
  } catch {
    return '';
  }
}

export const DEFAULT_SCENARIO_ID = 'teaching-small';

export const bundledScenarios: readonly BundledScenario[] = Object.entries(files)
  .filter(([path]) => !path.endsWith('.schema.json'))
  .map(([path, text]) => {
    const id = path.split('/').pop()?.replace(/\.json$/, '') ?? path;
    // A broken file still shows up, by its id; loading it reports the problem.
    const title = titleOf(text) || id;
    return { id, title, description: descriptionOf(text), series: seriesOf(id, title), text };
  })
  .sort((a, b) => (a.id === DEFAULT_SCENARIO_ID ? -1 : b.id === DEFAULT_SCENARIO_ID ? 1 : a.id.localeCompare(b.id)));
