// Builds one k6 bundle per entry script and transport flavour with esbuild: scenarios/<name>.ts -> dist/<name>.js (k6/x/llm) and dist/sse/<name>.js (k6/x/sse). Runs in Node.

import { build, type BuildOptions, type Plugin } from 'esbuild';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * esbuild settings for k6's JavaScript engine (docs/k6-observed.md): ESM so that k6's automatic
 * extension resolution sees `import 'k6/x/sse'`; k6 modules external; ES2020 so esbuild lowers
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

/** Bundle flavours: which extension streams the requests, and where the bundles go under dist/. */
export const FLAVOURS = {
  llm: { transport: 'lib/k6/transport-llm.ts', subdir: '' },
  sse: { transport: 'lib/k6/transport-sse.ts', subdir: 'sse' },
} as const;
export type Flavour = keyof typeof FLAVOURS;

/** Resolves the seam import 'k6-llm-transport' to the flavour's transport, so a bundle imports exactly one extension. */
function transportSeam(flavour: Flavour): Plugin {
  return {
    name: 'k6-llm-transport',
    setup(b) {
      b.onResolve({ filter: /^k6-llm-transport$/ }, () => ({ path: path.join(root, FLAVOURS[flavour].transport) }));
    },
  };
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

/** Builds every entry script in one flavour; returns the bundle paths. */
export async function buildFlavour(flavour: Flavour, distDir = path.join(root, 'dist')): Promise<string[]> {
  const entries = entryScripts();
  const outdir = path.join(distDir, FLAVOURS[flavour].subdir);
  await build({ ...K6_BUILD_OPTIONS, entryPoints: entries, outdir, plugins: [transportSeam(flavour), minifiedValibot()] });
  return entries.map((e) => path.join(outdir, path.basename(e).replace(/\.ts$/, '.js')));
}

/** Builds both flavours; returns the k6/x/llm bundles (dist/<name>.js) first, then dist/sse/. */
export async function buildBundles(distDir = path.join(root, 'dist')): Promise<string[]> {
  const llm = await buildFlavour('llm', distDir);
  const sse = await buildFlavour('sse', distDir);
  return [...llm, ...sse];
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
