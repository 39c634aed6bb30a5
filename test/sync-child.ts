// The bound on a child process a test waits for synchronously (spawnSync, execFileSync).
//
// A synchronous wait blocks the test's worker: vitest's test timeout cannot fire until it returns, so a child that
// never exits would hang the whole run, and CI with it (a fresh Node process once never finished reading its first
// module here, 2026-12-07). Past this it is killed and its test fails with what it printed.

/** Spread into the options of spawnSync or execFileSync. */
export const SYNC_CHILD_LIMIT = { timeout: 300_000, killSignal: 'SIGKILL' } as const;
