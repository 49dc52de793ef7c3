import { expect, test } from '@playwright/test';
import { chooseScenario, openApp, waitIdle } from './helpers';

test('on a small machine each CPU shows its queued tasks themselves, as many as wait on it', async ({ page }) => {
  await openApp(page);
  const slider = page.getByRole('slider', { name: 'Playhead' });
  await slider.focus();
  const machine = page.locator('svg[data-testid="machine"]');
  let checked = 0;
  // Moments of the run, at least 4 a page apart, then a millisecond at a time until some task
  // waits (waits are brief, and pages of the run can all land between them): at each, every
  // CPU's chips (and "+N") add up to the tasks waiting on it.
  for (let moment = 0; moment < 4 || (checked === 0 && moment < 400); moment++) {
    await page.keyboard.press(moment < 4 ? 'PageUp' : 'ArrowRight');
    await waitIdle(page);
    const cpus = await machine.locator('g.cpu').evaluateAll((cells) =>
      cells.map((cell) => ({ cpu: cell.getAttribute('data-cpu'), runnable: Number(cell.getAttribute('data-nr-running')), running: cell.getAttribute('data-pid') !== '0' })),
    );
    for (const cpu of cpus) {
      const queue = machine.locator(`g.queue[data-cpu="${cpu.cpu}"]`);
      const chips = await queue.locator('rect.queued').count();
      const more = Number((await queue.locator('text.queued-more').allTextContents())[0]?.replace('+', '') ?? 0);
      expect(chips + more, `CPU ${cpu.cpu}`).toBe(Math.max(0, cpu.runnable - (cpu.running ? 1 : 0)));
      checked += chips;
    }
  }
  // teaching-small runs 12 threads on 8 CPUs: some wait.
  expect(checked).toBeGreaterThan(0);
  // Each chip is a task's, in its colour.
  const chip = machine.locator('rect.queued').first();
  if ((await chip.count()) > 0) await expect(chip).toHaveAttribute('data-pid', /^\d+$/);
});

test('a CPU with more tasks waiting than its cell has chips for shows "+N" beside its number, not over it', async ({ page }) => {
  await openApp(page);
  // cgroup-weights runs dozens of tasks on the 8-CPU teaching machine: a dozen or more wait on some CPUs.
  await chooseScenario(page, 'cgroup-weights');
  const slider = page.getByRole('slider', { name: 'Playhead' });
  await slider.focus();
  const machine = page.locator('svg[data-testid="machine"]');
  let counts = 0;
  // A millisecond at a time from the start, while the groups' tasks crowd the CPUs they forked on.
  for (let moment = 0; moment < 40 && counts < 3; moment++) {
    await page.keyboard.press('ArrowRight');
    await waitIdle(page);
    const overlaps = await machine.locator('g.queue').evaluateAll((queues) =>
      queues.flatMap((queue) => {
        const more = queue.querySelector('text.queued-more');
        const cpu = queue.getAttribute('data-cpu');
        const label = [...(queue.ownerSVGElement?.querySelectorAll('text.cpu-label') ?? [])].find((text) => text.textContent === cpu);
        if (!more || !label) return [];
        const a = more.getBoundingClientRect();
        const b = label.getBoundingClientRect();
        return [{ cpu, more: more.textContent, apart: a.left >= b.right || a.right <= b.left || a.top >= b.bottom || a.bottom <= b.top }];
      }),
    );
    counts += overlaps.length;
    for (const overlap of overlaps) expect(overlap.apart, `CPU ${overlap.cpu}: ${overlap.more}`).toBe(true);
  }
  expect(counts).toBeGreaterThan(0);
});
