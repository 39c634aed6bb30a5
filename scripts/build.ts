// `npm run build`: builds the k6 bundles, scenarios/<name>.ts -> dist/<name>.js (orchestrator/bundles.ts).
// Runs in Node.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBundles } from '../orchestrator/bundles';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

buildBundles().then(
  (files) => {
    process.stderr.write(`built ${files.map((f) => path.relative(root, f)).join(', ')}\n`);
  },
  (e: unknown) => {
    process.stderr.write(`build failed: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}\n`);
    process.exit(1);
  },
);
