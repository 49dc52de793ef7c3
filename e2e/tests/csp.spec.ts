import { expect, test } from '@playwright/test';
import { openApp, waitIdle } from './helpers';

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

test('the Content-Security-Policy holds: no inline script or style, no eval, while every part of the app is used', async ({ page }) => {
  // Every violation the page reports, from its first moment.
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __violations: string[] }).__violations = seen;
    document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective}: ${event.blockedURI} ${event.sample}`));
  });
  await openApp(page);
  const policy = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  expect(policy).toContain("script-src 'self' 'wasm-unsafe-eval'");
  expect(policy).not.toContain('unsafe-inline');
  expect(policy).not.toMatch(/'unsafe-eval'/);

  // Play, with the charts and the motion drawing.
  await page.getByRole('combobox', { name: 'Speed' }).selectOption({ label: '1/10×' });
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await expect.poll(() => page.evaluate(() => window.__schedlab?.events ?? 0)).toBeGreaterThan(2000);
  await page.getByRole('button', { name: 'Pause' }).click();
  await waitIdle(page);
  // The editor's live check (the schema's validator) and its suggestions.
  const editor = page.getByRole('textbox', { name: 'Scenario JSON' });
  await editor.fill((await editor.inputValue()).replace('"seed": 42', '"seed": -1'));
  await expect(page.getByRole('list', { name: 'Problems in the text' })).toContainText('seed');
  // Exports that serialise drawings and make images.
  for (const item of ['Machine (SVG)', 'Machine (PNG)', 'Timeline (SVG)', 'Timeline (PNG)', 'Trace (Chrome JSON: Perfetto, chrome://tracing)']) {
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    const downloading = page.waitForEvent('download');
    await page.getByRole('menu', { name: 'Export' }).getByRole('menuitem', { name: item }).click();
    await downloading;
  }
  // A sweep in its worker, and compare mode's second engine.
  const sweep = page.getByRole('region', { name: 'Sweep' });
  await sweep.getByRole('textbox', { name: 'Vary' }).fill('workloads.0.worker_threads=2,3');
  await sweep.getByRole('textbox', { name: 'Seeds' }).fill('1,2');
  await sweep.getByRole('button', { name: 'Run sweep' }).click();
  await expect(sweep.getByTestId('sweep-plot')).toBeVisible({ timeout: 60_000 });
  await page.getByRole('button', { name: 'Compare' }).click();
  await waitIdle(page);
  await page.getByRole('button', { name: 'Share link' }).click();
  await expect(page.getByRole('region', { name: 'Comparison' }).getByRole('table')).toBeVisible();

  expect(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations)).toEqual([]);
});
