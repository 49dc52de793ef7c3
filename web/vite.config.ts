import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Plugin } from 'vite';
import Ajv2020 from 'ajv/dist/2020';
import standaloneCode from 'ajv/dist/standalone';

/** The committed scenario schema, served at `/scenario.schema.json` (the editor links to it). */
const SCHEMA_FILE = fileURLToPath(new URL('../scenarios/scenario.schema.json', import.meta.url));
const SCHEMA_NAME = 'scenario.schema.json';

/** Serves the schema in dev and preview, and emits it into `dist` at build: no copy in git. */
function scenarioSchema(): Plugin {
  let base = '/';
  const serve = (request: IncomingMessage, response: ServerResponse, next: () => void) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== `${base}${SCHEMA_NAME}` || (request.method !== 'GET' && request.method !== 'HEAD')) {
      next();
      return;
    }
    const body = readFileSync(SCHEMA_FILE);
    response.statusCode = 200;
    response.setHeader('Content-Type', 'application/json; charset=utf-8');
    response.setHeader('Content-Length', body.length);
    response.setHeader('Cache-Control', 'no-cache');
    response.end(request.method === 'HEAD' ? undefined : body);
  };
  return {
    name: 'schedlab-scenario-schema',
    configResolved(config) {
      base = config.base.endsWith('/') ? config.base : `${config.base}/`;
    },
    configureServer(server) {
      server.middlewares.use(serve);
    },
    configurePreviewServer(server) {
      server.middlewares.use(serve);
    },
    buildStart() {
      this.addWatchFile(SCHEMA_FILE);
    },
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: SCHEMA_NAME, source: readFileSync(SCHEMA_FILE, 'utf8') });
    },
  };
}

const VALIDATOR_ID = 'virtual:scenario-validator';

/**
 * The scenario schema's Ajv validator, generated as code at build time: the page
 * then never compiles a schema into a function at run time, which its
 * Content-Security-Policy (no `unsafe-eval`) would refuse.
 */
function scenarioValidator(): Plugin {
  return {
    name: 'schedlab-scenario-validator',
    resolveId(id) {
      return id === VALIDATOR_ID ? `\0${VALIDATOR_ID}` : undefined;
    },
    load(id) {
      if (id !== `\0${VALIDATOR_ID}`) return undefined;
      this.addWatchFile(SCHEMA_FILE);
      const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false, code: { source: true, esm: true } });
      return standaloneCode(ajv, ajv.compile(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as object));
    },
  };
}

export default defineConfig({
  plugins: [react(), scenarioSchema(), scenarioValidator()],
  // Scenarios and their schema live at the repository root, one level up.
  server: { fs: { allow: ['..'] } },
  worker: { format: 'es', plugins: () => [scenarioValidator()] },
  build: { target: 'es2022', chunkSizeWarningLimit: 1500 },
  preview: { port: 4173, strictPort: false },
  test: {
    environment: 'node',
    include: ['src/**/*.test.ts'],
    testTimeout: 60_000,
  },
});
