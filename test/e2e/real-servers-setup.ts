// vitest globalSetup of the real servers' lane (vitest.config.ts REAL_SERVERS): starts vLLM and SGLang as the run
// begins, in the background, with the code `npm run bench -- --target vllm|sglang` runs. Their files run after the
// main group; started there, one after the other, the two starts (about 30 and 40 s of the core they are pinned to,
// 2026-12-07) were a minute of the lane that ends last. Started here they overlap the main group, then wait idle
// (their CPU then: under 0.02 of a core each, measured).
//
// Each server, once up, is written to <dir>/<name>.json (test/e2e/started-server.ts reads it); a start that fails is
// written to <dir>/<name>.error, and the file then reports it. Runs in vitest's main process, so the servers are its
// children: stopped at the end of the run, and SIGKILLed with it if it dies.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import type { RealServer } from './real-server';
import { ensureSglangArtefacts, startSglangServer } from '../../orchestrator/sglang-server';
import { ensureVllmArtefacts, startVllmServer } from '../../orchestrator/vllm-server';

/** The key under which the setup provides the folder it writes the servers to. */
export const STARTED_SERVERS_KEY = 'startedServersDir';

/** The servers the setup starts, written to <dir>/starting.json before any of them is up. */
export const STARTING_FILE = 'starting.json';

/** What the setup writes of a server once it is up. */
export interface StartedServerFile {
  readonly base: string;
  readonly model: string;
  readonly settings: object;
  /** Its process group: the API server leads it. */
  readonly pgid: number;
  /** SIGTERM to SIGKILL when its file stops it (its launch spec's). */
  readonly stopGraceMs: number;
}

interface Running extends RealServer {
  readonly settings: object;
  readonly stopGraceMs: number;
}

const STARTS: Record<string, () => Promise<Running>> = {
  vllm: async () => startVllmServer(await ensureVllmArtefacts(() => {})),
  sglang: async () => startSglangServer(await ensureSglangArtefacts(() => {})),
};

/** The servers whose test file this run selected: vitest's positional filters match a file's path by substring. */
export function selectedServers(argv: readonly string[], names: readonly string[]): string[] {
  const runAt = argv.findIndex((a) => a === 'run');
  const filters = argv.slice(runAt + 1).filter((a) => !a.startsWith('-') && !a.includes('='));
  if (filters.length === 0) return [...names];
  return names.filter((name) => filters.some((f) => `test/e2e/${name}-server.test.ts`.includes(f)));
}

export default function setup(project: TestProject): () => Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'real-servers-'));
  project.provide(STARTED_SERVERS_KEY, dir);
  const names = selectedServers(process.argv, Object.keys(STARTS));
  writeFileSync(path.join(dir, STARTING_FILE), JSON.stringify(names));
  const starting = names.map((name) =>
    STARTS[name]!().then(
      (server) => {
        const file: StartedServerFile = {
          base: server.base, model: server.model, settings: server.settings, pgid: server.group.pgid,
          stopGraceMs: server.stopGraceMs,
        };
        writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(file));
        return server;
      },
      (error: unknown) => {
        writeFileSync(path.join(dir, `${name}.error`), error instanceof Error ? error.message : String(error));
        return null;
      },
    ));
  return async () => {
    // A file may have stopped its server already (it kills one mid-stream): stopping it again finds no process.
    for (const server of await Promise.all(starting)) await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
