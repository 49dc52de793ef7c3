import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
const PORT = 4393;
const server = spawn(process.execPath, ['/work/main/scripts/serve.mjs'], { env: { ...process.env, PORT: String(PORT), STRICT_PORT: '1' }, stdio: ['ignore', 'pipe', 'inherit'] });
await new Promise((resolve) => server.stdout.on('data', (chunk) => String(chunk).includes('running at') && resolve()));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--headless'] });
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  await page.goto(`http://127.0.0.1:${PORT}/`);
  await page.waitForFunction(() => window.__schedlab?.idle === true);
  const replay = page.getByRole('region', { name: 'Replay' });
  await replay.getByLabel('Open a log file').setInputFiles(process.argv[2]);
  await replay.getByRole('button', { name: 'Replay', exact: true }).click();
  await replay.getByTestId('replay-playing').waitFor({ timeout: 120000 });
  await page.waitForFunction(() => window.__schedlab?.idle === true);
  await page.getByRole('combobox', { name: 'Speed' }).selectOption({ label: '1/1000×' });
  await page.getByRole('button', { name: 'Play', exact: true }).click();
  await page.waitForTimeout(4000);
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  await page.waitForFunction(() => window.__schedlab?.idle === true);
  await page.screenshot({ path: '/tmp/pb/log-top.png' });
  await replay.scrollIntoViewIfNeeded();
  await page.screenshot({ path: '/tmp/pb/log-panel.png' });
} finally {
  await browser.close();
  server.kill();
}
