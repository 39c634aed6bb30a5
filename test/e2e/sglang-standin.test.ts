// SGLang's sgl_kernel on the CPU is the project's stand-in (scripts/sglang-cpu/sgl_kernel, see
// scripts/ensure-sglang.sh): checked here against what SGLang's own kernel does, in SGLang's venv. Needs no server, so
// it runs in the main group rather than in the real servers' lane. Runs in Node (vitest).

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureSglangArtefacts } from '../../orchestrator/sglang-server';
import { ROOT } from './helpers';

describe("SGLang's sgl_kernel stand-in", () => {
  it("does what SGLang's own kernel does", async () => {
    const artefacts = await ensureSglangArtefacts(() => {});
    const python = path.join(path.dirname(artefacts.launcher), 'venv', 'bin', 'python');
    const script = path.join(ROOT, 'scripts', 'sglang-cpu', 'check_standin.py');
    const check = spawnSync(python, [script], { encoding: 'utf8' });
    expect(check.status, check.stderr.slice(-2000)).toBe(0);
    expect(check.stdout.trim()).toBe('ok');
  }, 1_800_000);
});
