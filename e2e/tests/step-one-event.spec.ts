import { expect, test } from '@playwright/test';
import { eventCount, openApp, waitIdle } from './helpers';

test('Step advances exactly one event', async ({ page }) => {
  await openApp(page);
  const start = await eventCount(page);
  await page.getByRole('button', { name: 'Step' }).click();
  await waitIdle(page);
  expect(await eventCount(page)).toBe(start + 1);
  await expect(page.getByTestId('event-count')).toHaveText(`event ${start + 1}`);

  await page.getByRole('button', { name: 'Step' }).click();
  await waitIdle(page);
  expect(await eventCount(page)).toBe(start + 2);

  // The keyboard binding does the same.
  await page.locator('body').press('.');
  await waitIdle(page);
  expect(await eventCount(page)).toBe(start + 3);
});
