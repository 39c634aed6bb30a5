// What a set of esbuild bundles was built from, and whether they are still current: each build records the source
// files its metafile lists (an `inputs.json` beside the bundles), and a bundle is current while none of them is newer
// than it. Runs in Node.
//
// Lets a caller skip a rebuild (the bench builds the k6 bundles before every run) or run a bundled program instead of
// its TypeScript (node/node-programs.ts), and fall back safely the moment a source is edited: an edited file is newer.
// A file added to or removed from the import graph changes a file that imports it, which is then newer too.

import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Bundle (relative to its folder) -> the source files it was built from (relative to the repository). */
export type BuildInputs = Readonly<Record<string, readonly string[]>>;

const INPUTS_FILE = 'inputs.json';

/** The inputs of each output of an esbuild metafile, keyed by the output's path relative to `outDir`. */
export function inputsOf(
  metafile: { outputs: Record<string, { inputs: Record<string, unknown> }> }, outDir: string, root: string,
): BuildInputs {
  const byBundle: Record<string, string[]> = {};
  for (const [out, o] of Object.entries(metafile.outputs)) {
    if (out.endsWith('.map')) continue;
    const bundle = path.relative(outDir, path.resolve(root, out));
    byBundle[bundle] = Object.keys(o.inputs).filter((i) => !i.includes('node_modules/')).sort();
  }
  return byBundle;
}

/** Writes `inputs.json` into `dir` whole (renamed into place), so no reader sees half of it. */
export function writeBuildInputs(dir: string, inputs: BuildInputs): void {
  const file = path.join(dir, INPUTS_FILE);
  const staging = `${file}.${process.pid}`;
  writeFileSync(staging, `${JSON.stringify(inputs, null, 1)}\n`);
  renameSync(staging, file);
}

function mtimeMs(file: string): number | null {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return null;
  }
}

/**
 * Whether each of `bundles` (relative to `dir`) exists, was recorded by the last build into `dir`, and is no older
 * than any source it was built from (paths relative to `root`). False on anything missing or unreadable.
 */
export function bundlesCurrent(dir: string, bundles: readonly string[], root: string): boolean {
  let inputs: BuildInputs;
  try {
    inputs = JSON.parse(readFileSync(path.join(dir, INPUTS_FILE), 'utf8')) as BuildInputs;
  } catch {
    return false;
  }
  return bundles.every((bundle) => {
    const built = mtimeMs(path.join(dir, bundle));
    const sources = inputs[bundle];
    if (built === null || !Array.isArray(sources) || sources.length === 0) return false;
    return sources.every((s) => {
      const t = mtimeMs(path.join(root, s));
      return t !== null && t <= built;
    });
  });
}
