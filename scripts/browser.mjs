// What the scripts that drive the built app share: the app served on a port of
// their own, and Debian's Chromium, headless (the set-up installs it; Playwright's
// own browsers are never downloaded).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const serve = fileURLToPath(new URL('serve.mjs', import.meta.url));

/** Serves web/dist on `port` (failing if it is taken); resolves once it answers. Stop it with `.kill()`. */
export async function serveApp(port) {
  const server = spawn(process.execPath, [serve], { env: { ...process.env, PORT: String(port), STRICT_PORT: '1' }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve) => server.stdout.on('data', (chunk) => String(chunk).includes('running at') && resolve()));
  return server;
}

/** Headless Chromium, with `args` added to the flags every script needs. */
export function launchChromium(args = []) {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--headless', ...args] });
}
