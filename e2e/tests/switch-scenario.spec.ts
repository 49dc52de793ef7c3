import { expect, test } from '@playwright/test';
import { chooseScenario, openApp, waitIdle } from './helpers';

test('picking another scenario loads its machine', async ({ page }) => {
  await openApp(page);
  await chooseScenario(page, 'sis-schbench-t19');
  await expect(page.getByRole('heading', { name: 'xeon-2s10c: 40 CPUs' })).toBeVisible();
  await expect(page.locator('svg[data-testid="machine"] g.cpu')).toHaveCount(40);
  await expect(page.locator('svg[data-testid="machine"] g.socket')).toHaveCount(2);
});

test('an unapplied edit is set aside when another scenario is picked, and can be put back', async ({ page }) => {
  await openApp(page);
  const editor = page.getByRole('textbox', { name: 'Scenario JSON' });
  const edited = (await editor.inputValue()).replace('"seed": 42', '"seed": 43');
  expect(edited).toContain('"seed": 43');
  await editor.fill(edited);
  await chooseScenario(page, 'cgroup-weights');
  await expect(editor).not.toHaveValue(edited);
  const note = page.getByRole('status').filter({ hasText: 'Your unapplied edit of teaching-small was set aside' });
  await expect(note).toBeVisible();
  await note.getByRole('button', { name: 'Put it back in the editor' }).click();
  await expect(editor).toHaveValue(edited);
  await expect(note).toHaveCount(0);
});

test('the scenario picker shows every shipped scenario\'s whole name at 800 and 1280 px, an ellipsis where the title is cut, and the whole title on hover', async ({ page }) => {
  await openApp(page);
  const picker = page.getByRole('combobox', { name: 'Scenario' });
  for (const width of [800, 1280]) {
    await page.setViewportSize({ width, height: 800 });
    // Two names differ only at their ends (shared-runq-schbench-pipe-milan, -skylake): each is in view whole.
    const cut = await picker.evaluate((select: HTMLSelectElement) => {
      const style = getComputedStyle(select);
      const context = document.createElement('canvas').getContext('2d');
      if (!context) return ['no canvas'];
      context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      // The text's room: the box less its padding and the arrow beside the text.
      const room = select.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight) - 24;
      return [...select.options].map((option) => `${option.value}: …`).filter((shown) => context.measureText(shown).width > room);
    });
    expect(cut, `names cut at ${width} px`).toEqual([]);
  }
  await chooseScenario(page, 'cgroup-d3w10');
  const title = 'cgroup-d3w10: cgroup tree d3 w10, schbench in each leaf at 80 % quota (cfs_rq / sched_entity reordering series)';
  await expect(picker).toHaveAttribute('title', title);
  expect(await picker.evaluate((select) => getComputedStyle(select).textOverflow)).toBe('ellipsis');
});

test('a megabytes-long description shows its start in a box of twelve lines that scrolls, the rest a click away; a shipped one shows whole', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await openApp(page);
  const description = page.getByTestId('scenario-description');
  const measure = () =>
    description.evaluate((box) => {
      const style = getComputedStyle(box);
      return {
        lines: box.clientHeight / Number.parseFloat(style.lineHeight),
        scrolls: box.scrollHeight > box.clientHeight,
        wide: box.scrollWidth > box.clientWidth,
        chars: (box.textContent ?? '').length,
        tabIndex: box.tabIndex,
      };
    });
  // The longest shipped description is whole, with no scroll bar, down to an 800 px window.
  await chooseScenario(page, 'cgroup-weights');
  for (const width of [1280, 800]) {
    await page.setViewportSize({ width, height: 800 });
    await expect(description).toContainText('cpu.weight');
    expect(await measure(), `at ${width} px`).toMatchObject({ scrolls: false, wide: false, tabIndex: -1 });
    await expect(page.getByTestId('scenario-description-cut')).toHaveCount(0);
  }

  // A pasted scenario whose description is 2.4 MB of sentences and very long words.
  await page.setViewportSize({ width: 1280, height: 800 });
  await chooseScenario(page, 'teaching-small');
  const editor = page.getByRole('textbox', { name: 'Scenario JSON' });
  const scenario = JSON.parse(await editor.inputValue()) as { title: string; description: string };
  scenario.title = 'A very long description';
  const sentence = 'The scheduler places each woken task on the idle CPU nearest its waker. ';
  scenario.description = `START ${`${sentence.repeat(300)}${'x'.repeat(5000)} `.repeat(90)}END`;
  const total = scenario.description.length.toLocaleString('en-US');
  await editor.fill(JSON.stringify(scenario, null, 2));
  await page.getByRole('button', { name: 'Apply scenario' }).click();
  await waitIdle(page);
  await expect(page.getByRole('combobox', { name: 'Scenario' })).toHaveValue('custom');
  // The picker names it "Edited scenario"; its own title shows on hover.
  await expect(page.getByRole('combobox', { name: 'Scenario' })).toHaveAttribute('title', 'Edited scenario: A very long description');
  await expect(description).toContainText('START The scheduler places');
  const note = page.getByTestId('scenario-description-cut');
  await expect(note).toContainText(`of ${total} characters`);
  // Twelve lines at most, scrolling inside, no word wider than the box; the machine is still on the first screen.
  const cut = await measure();
  expect(cut.lines).toBeGreaterThan(11.9);
  expect(cut.lines).toBeLessThanOrEqual(12.01);
  expect(cut).toMatchObject({ scrolls: true, wide: false, tabIndex: 0 });
  expect(cut.chars).toBeLessThanOrEqual(20_002);
  expect((await page.locator('svg[data-testid="machine"]').boundingBox())?.y ?? Infinity).toBeLessThan(800);
  await expect(description).toHaveAccessibleName('Scenario description');
  // Space in the focused box scrolls it, as in any scrolling box, and does not play the run.
  await description.focus();
  await page.keyboard.press('Space');
  await expect.poll(() => description.evaluate((box) => box.scrollTop)).toBeGreaterThan(0);
  await expect(page.getByRole('button', { name: 'Play', exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Pause' })).toHaveCount(0);

  // All of it: still in the box, and its last word can be scrolled into view there.
  await page.getByRole('button', { name: `Show all (${total} characters)` }).click();
  await expect(note).toContainText(`All ${total} characters shown.`);
  const end = await description.evaluate((box) => {
    box.scrollTop = box.scrollHeight;
    const range = document.createRange();
    const text = box.firstChild as Text;
    range.setStart(text, text.length - 3);
    range.setEnd(text, text.length);
    const word = range.getBoundingClientRect();
    const shown = box.getBoundingClientRect();
    return { word: range.toString(), inView: word.top >= shown.top && word.bottom <= shown.bottom + 1, lines: box.clientHeight / Number.parseFloat(getComputedStyle(box).lineHeight) };
  });
  expect(end.word).toBe('END');
  expect(end.inView).toBe(true);
  expect(end.lines).toBeLessThanOrEqual(12.01);
  await note.getByRole('button', { name: /^Show the first [\d,]+ only$/ }).click();
  await expect(note).toContainText(`of ${total} characters`);
  expect((await measure()).chars).toBeLessThanOrEqual(20_002);
});
