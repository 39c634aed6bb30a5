import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * vitest globalSetup: every test file, and every k6, agent and server it starts, makes its temporary folders inside
 * one folder for this run, removed when the run ends. Tests make about 2,600 folders a run (run folders, prompt
 * files, sockets), and a contributor who runs the suite often would otherwise fill /tmp by gigabytes.
 * KEEP_TEST_TMP=1 keeps the folder for a look at a failed run's files.
 */
export default function setup(): () => void {
  // vitest calls a global setup once for the root config and once per project that extends it: one folder serves all.
  if (process.env.K6LLM_TEST_RUN_DIR) return () => undefined;
  const runDir = mkdtempSync(path.join(tmpdir(), 'k6llm-test-run-'));
  // Workers are started after this and inherit the environment; os.tmpdir() reads TMPDIR on every call.
  process.env.TMPDIR = runDir;
  process.env.K6LLM_TEST_RUN_DIR = runDir;
  return () => {
    if (process.env.KEEP_TEST_TMP === '1') {
      console.log(`test files kept in ${runDir}`);
      return;
    }
    rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
  };
}
