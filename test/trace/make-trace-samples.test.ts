// The samples in examples/traces are what scripts/make-trace-samples.ts writes, byte for byte. Runs in Node (vitest).
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SYNC_CHILD_LIMIT } from '../sync-child';

describe('scripts/make-trace-samples.ts --check', () => {
  it('finds the samples current', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/make-trace-samples.ts', '--check'],
      { cwd: resolve(__dirname, '../..'), encoding: 'utf8', ...SYNC_CHILD_LIMIT });
    expect(r.stderr).toBe('make-trace-samples: 6 samples current\n');
    expect(r.status).toBe(0);
  });
});
