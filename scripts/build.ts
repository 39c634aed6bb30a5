// Builds one k6 bundle per entry script (scenarios/<name>.ts -> dist/<name>.js) with esbuild. Runs in Node.

import { build, type BuildOptions } from 'esbuild';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * esbuild settings for k6's JavaScript engine (reference/k6.md, section 7): ESM so that k6's
 * automatic extension resolution sees `import 'k6/x/sse'`; k6 modules external; ES2020 so esbuild
 * lowers syntax Sobek lacks (logical assignment, class fields); platform neutral: no Node shims.
 */
export const K6_BUILD_OPTIONS: BuildOptions = {
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  target: 'es2020',
  external: ['k6', 'k6/*', 'https://*'],
  mainFields: ['module', 'main'],
  sourcemap: 'linked',
  legalComments: 'none',
  logLevel: 'warning',
};

export function entryScripts(): string[] {
  return readdirSync(path.join(root, 'scenarios'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(root, 'scenarios', f))
    .sort();
}

export async function buildBundles(outdir = path.join(root, 'dist')): Promise<string[]> {
  const entries = entryScripts();
  await build({ ...K6_BUILD_OPTIONS, entryPoints: entries, outdir });
  return entries.map((e) => path.join(outdir, path.basename(e).replace(/\.ts$/, '.js')));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildBundles().then(
    (files) => {
      process.stderr.write(`built ${files.map((f) => path.relative(root, f)).join(', ')}\n`);
    },
    (e: unknown) => {
      process.stderr.write(`build failed: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}\n`);
      process.exit(1);
    },
  );
}
