// Builds one k6 bundle per entry script with esbuild: scenarios/<name>.ts -> dist/<name>.js, and the
// stream module alone for users' own scripts: lib/k6/llm.ts -> dist/llm.js. Runs in Node.
//
// The library half of `npm run build` (scripts/build.ts), which the bench and the tests call too.

import { build, type BuildOptions, type Plugin } from 'esbuild';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { buildInPlace, bundlesCurrent } from '../node/build-inputs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * esbuild settings for k6's JavaScript engine (docs/design/k6-observed.md): ESM, as k6 reads it natively; k6's
 * modules external; ES2020 so esbuild lowers
 * syntax Sobek lacks (logical assignment, class fields); platform neutral: no Node shims.
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

/**
 * valibot (lib/schema.ts) from its own minified build: half the bytes it adds to every bundle in its
 * readable build, and nothing in a k6 stack trace needs to be read inside the validation library.
 */
function minifiedValibot(): Plugin {
  const file = path.join(path.dirname(createRequire(import.meta.url).resolve('valibot')), 'index.min.mjs');
  return {
    name: 'valibot-min',
    setup(b) {
      b.onResolve({ filter: /^valibot$/ }, () => ({ path: file }));
    },
  };
}

/** The stream module as a k6 user imports it: `import llm from './llm.js'` (examples/). */
export const STREAM_MODULE = { entry: path.join(root, 'lib', 'k6', 'llm.ts'), bundle: 'llm.js' } as const;

/** The bundles' file names, dist/<name>.js per entry script and the stream module. */
function bundleNames(): string[] {
  return [...entryScripts().map((e) => path.basename(e).replace(/\.ts$/, '.js')), STREAM_MODULE.bundle];
}

/** Whether every bundle in `distDir` is newer than every source it was built from (node/build-inputs.ts). */
export function k6BundlesCurrent(distDir = path.join(root, 'dist')): boolean {
  return bundlesCurrent(distDir, bundleNames(), root);
}

/**
 * Builds every entry script and the stream module; returns the bundle paths (dist/<name>.js, dist/llm.js). The build
 * is renamed into place whole (node/build-inputs.ts buildInPlace), so a k6 started by another process (two test
 * files, a bench beside a test) never reads a bundle half written.
 */
export async function buildBundles(distDir = path.join(root, 'dist')): Promise<string[]> {
  await buildInPlace(distDir, root, async (staging) => {
    const options = { ...K6_BUILD_OPTIONS, absWorkingDir: root, metafile: true };
    const entryPoints = entryScripts();
    const scripts = await build({ ...options, entryPoints, outdir: staging, plugins: [minifiedValibot()] });
    const module = path.join(staging, STREAM_MODULE.bundle);
    const stream = await build({ ...options, entryPoints: [STREAM_MODULE.entry], outfile: module });
    return [scripts.metafile!, stream.metafile!];
  });
  return bundleNames().map((n) => path.join(distDir, n));
}
