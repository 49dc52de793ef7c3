import { expect, test, type Page } from '@playwright/test';
import { openApp, waitIdle } from './helpers';

/** The timeline's draw figures (see `helpers.ts`). */
async function hook(page: Page) {
  const value = await page.evaluate(() => window.__schedlab?.timeline);
  if (!value) throw new Error('no timeline hook');
  return value;
}

/**
 * The colours of a horizontal run of canvas pixels (device pixels), as `#rrggbb`:
 * what the timeline really painted there.
 */
async function pixelsAlong(page: Page, x0: number, x1: number, y: number): Promise<string[]> {
  return page.getByTestId('timeline-canvas').evaluate(
    (canvas: HTMLCanvasElement, [from, to, row]) => {
      const ratio = canvas.width / canvas.getBoundingClientRect().width;
      const ctx = canvas.getContext('2d');
      if (!ctx) return [];
      const left = Math.round(from * ratio);
      const width = Math.max(1, Math.round((to - from) * ratio));
      const data = ctx.getImageData(left, Math.round(row * ratio), width, 1).data;
      const colours: string[] = [];
      for (let index = 0; index < data.length; index += 4) {
        colours.push(`#${[data[index], data[index + 1], data[index + 2]].map((value) => (value ?? 0).toString(16).padStart(2, '0')).join('')}`);
      }
      return colours;
    },
    [x0, x1, y] as const,
  );
}

/** Whether a colour is within a few steps of `target` on every channel. */
function near(colour: string, target: string): boolean {
  const channels = (hex: string) => [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16));
  const [a, b] = [channels(colour), channels(target)];
  return a.every((value, index) => Math.abs(value - (b[index] ?? 0)) <= 24);
}

test('the timeline shades where runnable tasks wait, and a drag along its time axis zooms to that window', async ({ page }) => {
  await openApp(page);
  const timeline = page.getByRole('region', { name: 'Timeline' });
  // teaching-small: 12 schbench threads on 8 CPUs, so woken workers queue behind others.
  await page.getByRole('combobox', { name: 'Speed' }).selectOption('3');
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  // Until 0.15 s, and until a wait at least 2 px wide is in view (how far the view
  // has moved when Pause lands depends on the wall clock).
  await page.waitForFunction(() => {
    const now = Number(/t = (\d+\.\d+)/.exec(document.querySelector('[data-testid="sim-time"]')?.textContent ?? '')?.[1] ?? 0);
    const widest = window.__schedlab?.timeline.waitSample;
    return now >= 0.15 && widest !== undefined && widest.x1 - widest.x0 >= 2;
  });
  await page.getByRole('button', { name: 'Pause' }).click();
  await waitIdle(page);

  // The legend explains the band.
  await expect(timeline.getByText(/1, 2, 3\+ tasks waiting on the CPU's runqueue/)).toBeVisible();

  // The core's waiting counts reached the timeline, and its last draw shaded some lanes.
  await page.waitForFunction(() => (window.__schedlab?.timeline.waitSpans ?? 0) > 0);
  const shaded = await hook(page);
  expect(shaded.waitChanges).toBeGreaterThan(20);
  expect(shaded.waitLanes).toBeGreaterThan(0);
  expect(shaded.waitLanes).toBeLessThanOrEqual(8);
  // The canvas really holds the band there: black where it is (light theme).
  const sample = shaded.waitSample;
  if (!sample) throw new Error('no wait band drawn');
  // Every row of the band: a narrow hatched band may cross its middle row only between hatch lines.
  const rows: string[] = [];
  for (let dy = -sample.height / 2 + 0.5; dy < sample.height / 2; dy += 1) rows.push(...(await pixelsAlong(page, sample.x0, sample.x1, sample.y + dy)));
  expect(rows.some((colour) => near(colour, '#000000'))).toBe(true);

  // Brush: a drag along the time axis, from 20 px before the widest wait band to 20 px
  // after it, selects that window.
  const canvas = page.getByTestId('timeline-canvas');
  const box = await canvas.boundingBox();
  if (!box) throw new Error('no canvas');
  const plotLeft = 66;
  const plotWidth = box.width - plotLeft - 8;
  const before = await hook(page);
  expect(before.t1).toBeGreaterThan(before.t0);
  const follow = timeline.getByRole('button', { name: 'Follow' });
  await expect(follow).toHaveAttribute('aria-pressed', 'true');
  const windowText = async () => (await timeline.getByTestId('timeline-window').textContent()) ?? '';
  const beforeText = await windowText();
  const lanes = timeline.getByRole('group', { name: /^CPU lanes/ });
  const widest = before.waitSample;
  if (!widest) throw new Error('no wait band to zoom to');
  const fromX = Math.max(plotLeft, widest.x0 - 20);
  const toX = Math.min(plotLeft + plotWidth, widest.x1 + 20);
  await page.mouse.move(box.x + fromX, box.y + 10);
  await page.mouse.down();
  await page.mouse.move(box.x + toX, box.y + 10, { steps: 6 });
  // While dragging, the window is drawn as a brush; the view has not moved yet.
  await expect(lanes).toHaveAttribute('data-brushing', 'true');
  expect(await windowText()).toBe(beforeText);
  await page.mouse.up();
  await expect(lanes).not.toHaveAttribute('data-brushing', 'true');
  await expect(follow).toHaveAttribute('aria-pressed', 'false');
  await expect.poll(windowText).not.toBe(beforeText);
  const span = before.t1 - before.t0;
  const wantT0 = before.t0 + (span * (fromX - plotLeft)) / plotWidth;
  const wantT1 = before.t0 + (span * (toX - plotLeft)) / plotWidth;
  // Within two pixels' worth of time of where the drag began and ended.
  const slack = (2 * span) / plotWidth;
  await expect.poll(async () => Math.abs((await hook(page)).t0 - wantT0)).toBeLessThan(slack);
  await expect.poll(async () => Math.abs((await hook(page)).t1 - wantT1)).toBeLessThan(slack);
  // The zoomed window still shows where tasks wait, now wide enough to hatch: black lines on white.
  await page.waitForFunction((t0) => window.__schedlab?.timeline.t0 !== t0 && (window.__schedlab?.timeline.waitSpans ?? 0) > 0, before.t0);
  let zoomed = (await hook(page)).waitSample;
  if (!zoomed) throw new Error('no wait band drawn in the zoomed window');
  // Several short waits can share one pixel at the first scale; a second brush, 3 px
  // either side of the widest band now, separates them.
  let brushes = 1;
  if (zoomed.x1 - zoomed.x0 < 6) {
    brushes = 2;
    const first = await hook(page);
    await page.mouse.move(box.x + zoomed.x0 - 3, box.y + 10);
    await page.mouse.down();
    await page.mouse.move(box.x + zoomed.x1 + 3, box.y + 10, { steps: 4 });
    await page.mouse.up();
    await page.waitForFunction((t0) => window.__schedlab?.timeline.t0 !== t0 && (window.__schedlab?.timeline.waitSpans ?? 0) > 0, first.t0);
    zoomed = (await hook(page)).waitSample;
    if (!zoomed) throw new Error('no wait band drawn in the second zoomed window');
  }
  expect(zoomed.x1 - zoomed.x0).toBeGreaterThanOrEqual(6);
  const light = await pixelsAlong(page, zoomed.x0, Math.min(zoomed.x1, zoomed.x0 + 40), zoomed.y);
  expect(light.some((colour) => near(colour, '#000000'))).toBe(true);
  expect(light.some((colour) => near(colour, '#ffffff'))).toBe(true);
  // In the dark theme, the same band is white lines on black.
  await page.keyboard.press('t');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expect
    .poll(async () => {
      const dark = (await hook(page)).waitSample;
      if (!dark) return [];
      return pixelsAlong(page, dark.x0, Math.min(dark.x1, dark.x0 + 40), dark.y);
    })
    .toEqual(expect.arrayContaining([expect.stringMatching(/^#f[0-9a-f]f[0-9a-f]f[0-9a-f]$/), expect.stringMatching(/^#0[0-9a-f]0[0-9a-f]0[0-9a-f]$/)]));
  await page.keyboard.press('t');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');

  // Escape goes back through the brushes to the view before the first: following the
  // playhead, the same window.
  await lanes.focus();
  for (let brush = 0; brush < brushes; brush++) await page.keyboard.press('Escape');
  await expect(follow).toHaveAttribute('aria-pressed', 'true');
  await expect.poll(windowText).toBe(beforeText);

  // A click on the axis without a drag still moves the playhead (no brush, no zoom).
  const eventsBefore = await page.evaluate(() => window.__schedlab?.events ?? 0);
  await canvas.click({ position: { x: plotLeft + plotWidth * 0.5, y: 10 } });
  await waitIdle(page);
  await expect(follow).toHaveAttribute('aria-pressed', 'true');
  const time = Number(/t = ([\d.]+) s/.exec((await page.getByTestId('sim-time').textContent()) ?? '')?.[1]);
  const clicked = (before.t0 + span * 0.5) / 1e9;
  expect(Math.abs(time - clicked)).toBeLessThan(span / 1e9 / 50);
  expect(await page.evaluate(() => window.__schedlab?.events ?? 0)).not.toBe(eventsBefore);

  // The shortcuts list tells about the drag and Escape.
  await page.keyboard.press('?');
  const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(dialog).toContainText('Drag on the time axis');
  await expect(dialog).toContainText('back to the window before the last zoom');
});
