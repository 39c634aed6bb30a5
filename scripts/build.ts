// `npm run build`: builds the k6 bundles, scenarios/<name>.ts -> dist/<name>.js (orchestrator/bundles.ts), and the
// suite's Node programs, scripts/{bench,sim,report}.ts -> dist-node/<name>.mjs (node/node-programs.ts). Runs in Node.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBundles } from '../orchestrator/bundles';
import { buildNodeBundles } from '../node/node-programs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

Promise.all([buildBundles(), buildNodeBundles()]).then(
  ([k6, node]) => {
    const files = [...k6, ...node];
    process.stderr.write(`built ${files.map((f) => path.relative(root, f)).join(', ')}\n`);
  },
  (e: unknown) => {
    process.stderr.write(`build failed: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}\n`);
    process.exit(1);
  },
);
