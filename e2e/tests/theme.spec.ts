import { expect, test } from '@playwright/test';
import { chooseScenario, openApp, waitIdle } from './helpers';

/** A colour's luminance, 0 (black) to 1 (white). */
function luminance(color: string): number {
  const [r = 0, g = 0, b = 0] = (color.match(/\d+(\.\d+)?/g) ?? []).map(Number);
  return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
}

test('the dark theme: light text on dark panels, kept across a reload, and the timeline drawn dark', async ({ page }) => {
  await openApp(page);
  const button = page.getByRole('button', { name: 'Dark theme' });
  await button.click();
  await expect(button).toHaveAttribute('aria-pressed', 'true');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  const panel = page.getByRole('region', { name: 'Policy' });
  const colors = await panel.evaluate((element) => ({ background: getComputedStyle(element).backgroundColor, text: getComputedStyle(element.querySelector('p') ?? element).color }));
  expect(luminance(colors.background)).toBeLessThan(0.2);
  expect(luminance(colors.text)).toBeGreaterThan(0.6);
  // The event log's lines stay readable: light on dark.
  await page.getByRole('button', { name: 'Step', exact: true }).click();
  const payload = page.getByRole('list', { name: 'Recent scheduler events' }).locator('.ev-payload').first();
  expect(luminance(await payload.evaluate((element) => getComputedStyle(element).color))).toBeGreaterThan(0.5);
  // The timeline's canvas: its gutter is dark.
  const gutter = await page.getByTestId('timeline-canvas').evaluate((canvas) => {
    const data = (canvas as HTMLCanvasElement).getContext('2d')?.getImageData(2, 2, 1, 1).data;
    return data ? `rgb(${data[0]}, ${data[1]}, ${data[2]})` : '';
  });
  expect(luminance(gutter)).toBeLessThan(0.2);
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.keyboard.press('t');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
});

test('presenter mode in the dark theme keeps light text: headings, labels and descriptions', async ({ page }) => {
  await openApp(page);
  await page.getByRole('button', { name: 'Dark theme' }).click();
  await page.getByRole('button', { name: 'Presenter mode' }).click();
  await expect(page.getByRole('button', { name: 'Presenter mode' })).toHaveAttribute('aria-pressed', 'true');
  const panel = page.getByRole('region', { name: 'Policy' });
  const colors = await panel.evaluate((element) => ({
    background: getComputedStyle(element).backgroundColor,
    heading: getComputedStyle(element.querySelector('h2') ?? element).color,
    text: getComputedStyle(element.querySelector('p') ?? element).color,
  }));
  expect(luminance(colors.background)).toBeLessThan(0.2);
  expect(luminance(colors.heading)).toBeGreaterThan(0.6);
  expect(luminance(colors.text)).toBeGreaterThan(0.6);
  // The toolbar's field labels and the scenario description, which the light presenter mode makes black.
  const label = page.locator('.toolbar label').first();
  expect(luminance(await label.evaluate((element) => getComputedStyle(element).color))).toBeGreaterThan(0.5);
  const description = page.locator('.scenario-description').first();
  expect(luminance(await description.evaluate((element) => getComputedStyle(element).color))).toBeGreaterThan(0.6);
});

test('the dark theme draws SHARED_RUNQ\'s shard lanes dark under their light labels, and the CPU numbers over the move arcs with a halo of their cell\'s colour', async ({ page }) => {
  await openApp(page);
  await page.getByRole('button', { name: 'Dark theme' }).click();
  const machine = page.locator('svg[data-testid="machine"]');
  // An idle CPU's number: light on the dark idle cell, its halo the cell's own colour.
  const idle = await machine.evaluate((svg) => {
    const text = svg.querySelector('g.cpu-text[data-pid="0"]:not([data-idle]) text.cpu-label');
    const cpu = text?.parentElement?.getAttribute('data-cpu');
    const cell = svg.querySelector(`g.cpu[data-cpu="${cpu}"] rect.cpu-cell`);
    return text && cell ? { fill: getComputedStyle(text).fill, halo: getComputedStyle(text).stroke, cell: getComputedStyle(cell).fill } : undefined;
  });
  expect(idle).toBeDefined();
  expect(luminance(idle!.cell)).toBeLessThan(0.3);
  expect(idle!.halo).toBe(idle!.cell);
  expect(luminance(idle!.fill)).toBeGreaterThan(0.6);
  await chooseScenario(page, 'shared-runq-hackbench-7950x');
  await page.getByRole('button', { name: 'Step', exact: true }).click();
  await waitIdle(page);
  const lane = machine.locator('g.lane').first();
  const fill = await lane.locator('rect.lane-box').getAttribute('fill');
  const label = await lane.locator('text.lane-label').evaluate((element) => getComputedStyle(element).fill);
  expect(luminance(fill ?? '')).toBeLessThan(0.3);
  expect(luminance(label)).toBeGreaterThan(0.6);
  // The moves' layer sits under the cells' numbers and pids.
  const order = await machine.evaluate((svg) => [...svg.children].map((child) => child.getAttribute('class')));
  expect(order.indexOf('layer-motions')).toBeGreaterThan(order.indexOf('layer-cpus'));
  expect(order.indexOf('layer-motions')).toBeLessThan(order.indexOf('layer-cpu-text'));
});

test("Compare's run B is drawn in the theme of the page, before and after a switch", async ({ page }) => {
  await openApp(page);
  await page.keyboard.press('t');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.getByRole('button', { name: 'Compare' }).click();
  await waitIdle(page);
  const gutterOf = (testId: string) =>
    page.getByTestId(testId).evaluate((canvas) => {
      const data = (canvas as HTMLCanvasElement).getContext('2d')?.getImageData(2, 2, 1, 1).data;
      return data ? `rgb(${data[0]}, ${data[1]}, ${data[2]})` : '';
    });
  await expect.poll(async () => luminance(await gutterOf('timeline-canvas-b'))).toBeLessThan(0.2);
  expect(luminance(await gutterOf('timeline-canvas'))).toBeLessThan(0.2);
  await page.keyboard.press('t');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
  await expect.poll(async () => luminance(await gutterOf('timeline-canvas-b'))).toBeGreaterThan(0.8);
});
