import { expect, test } from '@playwright/test';
import { chooseScenario, exportFile, openApp, waitIdle } from './helpers';

test('a large machine paints its CPUs on a canvas that still answers clicks and hovers', async ({ page }) => {
  await openApp(page);
  await chooseScenario(page, 'kcompile-milan');
  const machine = page.locator('svg[data-testid="machine"]');
  // 72 CPUs: no SVG cell elements, one canvas holding all 72 cells.
  const cells = machine.locator('foreignObject.cells');
  await expect(cells).toHaveAttribute('data-cells', '72');
  await expect(machine.locator('g.cpu')).toHaveCount(0);
  // Not all 72 lanes fit the timeline's box: it says how to reach the others.
  await expect(page.getByTestId('timeline-scroll-hint')).toHaveText(/^\d+ of 72 CPUs fit: Shift\+wheel or the scroll bar shows the others\.$/);
  await page.getByRole('slider', { name: 'Playhead' }).focus();
  await page.keyboard.press('PageUp');
  await waitIdle(page);
  await expect.poll(async () => Number(await cells.getAttribute('data-running'))).toBeGreaterThan(0);
  // The canvas has pixels where the cells are: the first core's first thread, CPU 0.
  const core = machine.locator('rect.core').first();
  const box = await core.boundingBox();
  if (!box) throw new Error('no core box');
  const point = { x: box.x + box.width * 0.25, y: box.y + box.height * 0.5 };
  await page.mouse.move(point.x, point.y);
  await expect(machine.locator('canvas.cells-canvas')).toHaveAttribute('title', /^CPU 0: (idle|running pid \d+), \d+ waiting/);
  await page.mouse.click(point.x, point.y);
  const inspector = page.getByRole('region', { name: 'Inspector' });
  await expect(inspector.getByTestId('cpu-inspection')).toContainText('CPU 0 (core 0, LLC 0');

  // Playing, the task moves are painted on the canvas too (none in the SVG's moves layer).
  await page.getByRole('combobox', { name: 'Speed' }).selectOption('1/10×');
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await expect.poll(async () => Number(await cells.getAttribute('data-motions')), { timeout: 20_000 }).toBeGreaterThan(0);
  await page.getByRole('button', { name: 'Pause' }).click();
  await waitIdle(page);
  await expect(machine.locator('g.motion')).toHaveCount(0);

  // Exported as SVG, the canvas goes into the file as the picture it shows.
  const svg = await exportFile(page, 'Machine (SVG)');
  const text = svg.bytes.toString('utf8');
  expect(text).toMatch(/<image x="0" y="0" width="\d+(\.\d+)?" height="\d+(\.\d+)?" preserveAspectRatio="none" href="data:image\/png;base64,[A-Za-z0-9+/]{1000,}/);
  expect(text).not.toContain('foreignObject');
});
