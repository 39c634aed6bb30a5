// How the suite starts its own Node programs (the bench, the simulator, the report, and the simulator's tokenizer
// worker threads): from one bundled file that `npm run build` made (dist-node/<name>.mjs) while no source it was
// built from is newer, else from the TypeScript through tsx. Runs in Node.
//
// Why: each start through tsx compiles some 300 modules through tsx's loader thread, 1 to 1.7 CPU-seconds more than
// loading the bundle (bench: 2.7 against 1.0, report: 2.0 against 0.9, on this 2-core machine), and the tests start
// the bench about 60 times, each with a simulator and a report. An edited source is newer than the bundle, so the
// TypeScript runs until the next build: a bundle never runs code older than the working tree.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildInPlace, bundlesCurrent } from './build-inputs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/**
 * One level below the repository, as scripts/ is: the programs find the repository from their own file
 * (`new URL('..', import.meta.url)`), which then holds in the bundle and in the TypeScript alike.
 */
export const NODE_BUNDLE_DIR = path.join(ROOT, 'dist-node');

/**
 * The programs the suite starts as processes of their own (scripts/<name>.ts CLIs), and the simulator's tokenizer
 * worker, which each simulator starts as a thread.
 */
const SOURCES = {
  bench: 'scripts/bench.ts', sim: 'scripts/sim.ts', report: 'scripts/report.ts',
  'tokenize-worker': 'sim/tokenize-worker.ts',
} as const;
export type NodeProgram = Exclude<keyof typeof SOURCES, 'tokenize-worker'>;
type Entry = keyof typeof SOURCES;
const ENTRIES = Object.keys(SOURCES) as Entry[];

const bundleName = (name: Entry): string => `${name}.mjs`;

/** The entry's bundle when it is current, else null. */
export function currentBundle(name: Entry): string | null {
  const bundle = path.join(NODE_BUNDLE_DIR, bundleName(name));
  return bundlesCurrent(NODE_BUNDLE_DIR, [bundleName(name)], ROOT) ? bundle : null;
}

/** The program's command line up to its own arguments: `node <bundle>` when current, else `node --import tsx <ts>`. */
export function nodeProgram(name: NodeProgram): string[] {
  const bundle = currentBundle(name);
  // `--import tsx` resolves from the working directory: start the program with cwd at the repository.
  return bundle ? [process.execPath, bundle] : [process.execPath, '--import', 'tsx', path.join(ROOT, SOURCES[name])];
}

/** Whether every bundle is current. */
export function nodeBundlesCurrent(): boolean {
  return bundlesCurrent(NODE_BUNDLE_DIR, ENTRIES.map(bundleName), ROOT);
}

/**
 * Bundles every program (its npm packages stay imports, loaded by Node as they are) into dist-node/, renamed into
 * place whole with their inputs (node/build-inputs.ts buildInPlace). Returns the bundles' paths.
 */
export async function buildNodeBundles(): Promise<string[]> {
  await buildInPlace(NODE_BUNDLE_DIR, ROOT, async (staging) => {
    const result = await build({
      entryPoints: ENTRIES.map((name) => ({ in: path.join(ROOT, SOURCES[name]), out: name })),
      outdir: staging, outExtension: { '.js': '.mjs' }, absWorkingDir: ROOT,
      bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external',
      metafile: true, logLevel: 'warning', legalComments: 'none',
    });
    return [result.metafile];
  });
  return ENTRIES.map((name) => path.join(NODE_BUNDLE_DIR, bundleName(name)));
}
