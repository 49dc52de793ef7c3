import { expect, type Page } from '@playwright/test';

declare global {
  interface Window {
    __schedlab?: {
      idle: boolean;
      events: number;
      status: string;
      /**
       * Switches and waiting-count changes the timeline holds; lanes, spans and wait-band
       * rectangles (and lanes with any) its last draw painted; the time range it drew; the
       * middle of its widest run and of its tallest, widest wait rectangle (canvas pixels).
       */
      timeline: {
        switches: number;
        waitChanges: number;
        lanes: number;
        spans: number;
        waitSpans: number;
        waitLanes: number;
        t0: number;
        t1: number;
        sample: { x: number; y: number; cpu: number } | undefined;
        waitSample: { x0: number; x1: number; y: number; height: number; cpu: number } | undefined;
      };
    };
  }
}

/** Waits for the app's own idle signal: nothing playing, no engine call in flight. */
export async function waitIdle(page: Page): Promise<void> {
  await page.waitForFunction(() => window.__schedlab?.idle === true);
}

export async function openApp(page: Page): Promise<void> {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto('/');
  await waitIdle(page);
  expect(errors).toEqual([]);
  await expect(page.getByRole('combobox', { name: 'Scenario' })).toHaveValue('teaching-small');
}

/** The pid each CPU is running, as the machine view shows it. */
export async function cpuPids(page: Page): Promise<string[]> {
  return page.locator('svg[data-testid="machine"] g.cpu').evaluateAll((cells) => cells.map((cell) => cell.getAttribute('data-pid') ?? ''));
}

export async function eventCount(page: Page): Promise<number> {
  return page.evaluate(() => window.__schedlab?.events ?? -1);
}
