import { readFile } from 'node:fs/promises';
import { expect, type Page } from '@playwright/test';

declare global {
  interface Window {
    __schedlab?: {
      idle: boolean;
      events: number;
      /** The engine's wasm memory in bytes (its high-water mark). */
      wasmBytes: number;
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
      /** The time of the engine snapshot the last step back restored (undefined after a re-run from 0). */
      restoredFromNs: number | undefined;
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

/** Picks a shipped scenario in the toolbar and waits until it is loaded and idle. */
export async function chooseScenario(page: Page, name: string): Promise<void> {
  await page.getByRole('combobox', { name: 'Scenario' }).selectOption(name);
  await waitIdle(page);
}

/** The pid each CPU is running, as the machine view shows it. */
export async function cpuPids(page: Page): Promise<string[]> {
  return page.locator('svg[data-testid="machine"] g.cpu').evaluateAll((cells) => cells.map((cell) => cell.getAttribute('data-pid') ?? ''));
}

export async function eventCount(page: Page): Promise<number> {
  return page.evaluate(() => window.__schedlab?.events ?? -1);
}

/** Picks an Export menu item and returns the file it downloads. */
export async function exportFile(page: Page, item: string): Promise<{ name: string; bytes: Buffer }> {
  await page.getByRole('button', { name: 'Export', exact: true }).click();
  const menu = page.getByRole('menu', { name: 'Export' });
  const downloading = page.waitForEvent('download');
  await menu.getByRole('menuitem', { name: item }).click();
  const download = await downloading;
  const path = await download.path();
  await expect(menu).toHaveCount(0);
  return { name: download.suggestedFilename(), bytes: await readFile(path) };
}
