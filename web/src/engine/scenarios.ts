/** The scenarios shipped in `scenarios/`, bundled into the app as text. */
const files = import.meta.glob('../../../scenarios/*.json', {
  query: '?raw',
  import: 'default',
  eager: true,
}) as Record<string, string>;

export interface BundledScenario {
  readonly id: string;
  readonly title: string;
  readonly text: string;
}

export const DEFAULT_SCENARIO_ID = 'teaching-small';

export const bundledScenarios: readonly BundledScenario[] = Object.entries(files)
  .filter(([path]) => !path.endsWith('.schema.json'))
  .map(([path, text]) => {
    const id = path.split('/').pop()?.replace(/\.json$/, '') ?? path;
    let title = id;
    try {
      const parsed = JSON.parse(text) as { title?: unknown };
      if (typeof parsed.title === 'string') title = parsed.title;
    } catch {
      // A broken file still shows up; loading it reports the problem.
    }
    return { id, title, text };
  })
  .sort((a, b) => (a.id === DEFAULT_SCENARIO_ID ? -1 : b.id === DEFAULT_SCENARIO_ID ? 1 : a.id.localeCompare(b.id)));
