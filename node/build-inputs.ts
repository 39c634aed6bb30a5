// What a set of esbuild bundles was built from, and whether they are still current: each build records the source
// files its metafile lists (an `inputs.json` beside the bundles), and a bundle is current while none of them is newer
// than it. Runs in Node.
//
// Lets a caller skip a rebuild (the bench builds the k6 bundles before every run) or run a bundled program instead of
// its TypeScript (node/node-programs.ts), and fall back safely the moment a source is edited: an edited file is newer.
// A file added to or removed from the import graph changes a file that imports it, which is then newer too.

import {
  mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync,
} from 'node:fs';
import path from 'node:path';

/** Bundle (relative to its folder) -> the source files it was built from (relative to the repository). */
export type BuildInputs = Readonly<Record<string, readonly string[]>>;

/** What esbuild's metafile says of its outputs (BuildResult.metafile). */
export interface Metafile {
  readonly outputs: Record<string, { readonly inputs: Record<string, unknown> }>;
}

const INPUTS_FILE = 'inputs.json';

/** The inputs of each output of an esbuild metafile, keyed by the output's path relative to `outDir`. */
export function inputsOf(metafile: Metafile, outDir: string, root: string): BuildInputs {
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

/**
 * Runs `build` into a folder of its own inside `dir`, then renames what it wrote into `dir` (source maps first, so no
 * bundle points at a map that is not there yet) and records each bundle's sources: a reader started meanwhile (a k6,
 * a program of the suite's) never sees a bundle half written. `build` returns its builds' metafiles.
 */
export async function buildInPlace(
  dir: string, root: string, build: (staging: string) => Promise<readonly Metafile[]>,
): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const staging = mkdtempSync(path.join(dir, '.build-'));
  try {
    const metafiles = await build(staging);
    const files = readdirSync(staging).sort((a, b) => Number(b.endsWith('.map')) - Number(a.endsWith('.map')));
    for (const f of files) renameSync(path.join(staging, f), path.join(dir, f));
    writeBuildInputs(dir, Object.assign({}, ...metafiles.map((m) => inputsOf(m, staging, root))) as BuildInputs);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
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
