// A real server test/e2e/real-servers-setup.ts started when the run began, taken over by its test file: waited for,
// then used and stopped as if the file had started it. Runs in Node (vitest).

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';
import { stopGroup } from '../../orchestrator/process-group';
import type { RealServer } from './real-server';
import { STARTED_SERVERS_KEY, STARTING_FILE, type StartedServerFile } from './real-servers-setup';

declare module 'vitest' {
  export interface ProvidedContext {
    startedServersDir: string;
  }
}

/** A server started in vitest's main process, as its test file holds it; stop() stops its whole process group. */
export interface StartedServer<S> extends RealServer {
  readonly settings: S;
}

/**
 * The server `name` ('vllm', 'sglang') the setup is starting or has started, once it serves; null when this run did
 * not start it (another config, a filter the setup did not read): then the file starts its own.
 */
export async function takeStartedServer<S>(name: string, timeoutMs: number): Promise<StartedServer<S> | null> {
  let dir: string | undefined;
  try {
    dir = inject(STARTED_SERVERS_KEY);
  } catch {
    return null;
  }
  if (!dir) return null;
  const starting = JSON.parse(readFileSync(path.join(dir, STARTING_FILE), 'utf8')) as string[];
  if (!starting.includes(name)) return null;
  const ready = path.join(dir, `${name}.json`);
  const failed = path.join(dir, `${name}.error`);
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(ready)) {
    if (existsSync(failed)) throw new Error(readFileSync(failed, 'utf8'));
    if (Date.now() > deadline) throw new Error(`${name} was not up within ${timeoutMs / 1000} s of the wait`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const file = JSON.parse(readFileSync(ready, 'utf8')) as StartedServerFile;
  return {
    base: file.base, model: file.model, settings: file.settings as S, group: { pgid: file.pgid },
    stop: () => stopGroup(file.pgid, file.stopGraceMs),
  };
}
