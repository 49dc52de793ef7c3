// Serves the built app (web/dist) on localhost and prints the URL.
// PORT picks the port; STRICT_PORT=1 fails instead of moving to a free one.
import { preview } from 'vite';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../web/', import.meta.url));
const port = Number(process.env.PORT ?? 4173);
const server = await preview({
  root,
  configFile: fileURLToPath(new URL('../web/vite.config.ts', import.meta.url)),
  logLevel: 'warn',
  preview: { port, strictPort: process.env.STRICT_PORT === '1', host: '127.0.0.1', open: false },
});
const url = server.resolvedUrls?.local[0] ?? `http://127.0.0.1:${port}/`;
console.log(`\nschedlab is running at ${url}  (Ctrl-C to stop)\n`);
