import { expect, test } from '@playwright/test';
import { openApp, waitIdle } from './helpers';

test('playing, task moves animate on the machine, coloured by distance and fading with age', async ({ page }) => {
  await openApp(page);
  const machine = page.locator('svg[data-testid="machine"]');
  await expect(machine.locator('g.motion')).toHaveCount(0);
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  // teaching-small's wakeups land on other CPUs and idle CPUs pull: moves appear as arcs with a token.
  await expect.poll(() => machine.locator('g.motion').count(), { timeout: 20_000 }).toBeGreaterThan(0);
  await page.getByRole('button', { name: 'Pause' }).click();
  await waitIdle(page);
  const moves = await machine.locator('g.motion').evaluateAll((groups) =>
    groups.map((group) => ({
      distance: group.getAttribute('data-distance'),
      cause: group.getAttribute('data-cause'),
      opacity: Number(group.getAttribute('opacity')),
      arc: group.querySelector('path.motion-arc')?.getAttribute('stroke'),
      token: group.querySelectorAll('circle.motion-token').length,
    })),
  );
  const colours: Record<string, string> = { smt: '#2f855a', llc: '#2b6cb0', 'cross-llc': '#c05621', 'cross-numa': '#c53030' };
  for (const move of moves) {
    expect(Object.keys(colours)).toContain(move.distance);
    expect(['wakeup', 'pull', 'other']).toContain(move.cause);
    expect(move.arc).toBe(colours[move.distance ?? '']);
    expect(move.token).toBe(1);
    expect(move.opacity).toBeGreaterThan(0.2);
    expect(move.opacity).toBeLessThanOrEqual(1);
  }
  await expect(page.getByRole('list', { name: 'Task moves' })).toContainText('cross-LLC');
  // Paused, the picture holds still.
  const before = await machine.locator('g.motion').count();
  await page.waitForTimeout(300);
  expect(await machine.locator('g.motion').count()).toBe(before);
});

test('the note of moves not drawn comes and goes beside the title, and the drawing does not move', async ({ page }) => {
  await openApp(page);
  await page.getByRole('combobox', { name: 'Scenario' }).selectOption('shared-runq-hackbench-7950x');
  await waitIdle(page);
  const machine = page.locator('svg[data-testid="machine"]');
  const note = page.getByTestId('motion-more');
  // One step first: the hint shown at time 0 goes then.
  await page.getByRole('button', { name: 'Step', exact: true }).click();
  await waitIdle(page);
  await expect(note).toHaveText('');
  const before = await machine.boundingBox();
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  // hackbench moves far more tasks than are drawn.
  await expect(note).toHaveText(/^\+[\d,]+ moves not drawn$/, { timeout: 20_000 });
  await page.getByRole('button', { name: 'Pause' }).click();
  await waitIdle(page);
  await expect(note).toHaveAttribute('title', /not drawn \(the newest are\).*: \d+ /);
  expect((await machine.boundingBox())?.y).toBe(before?.y);
});
