// End to end: deploy/k6-operator/testrun-split-capacity.yaml run on this machine as the k6-operator would run it.
// Runs in Node (vitest).
//
// No cluster: each runner's command line is built from the manifest the way the operator builds it
// (pkg/resources/jobs/runner.go), its environment the way the kubelet fills it in (the Job name from the
// downward API, $(VAR) expanded), the shared claim is a temporary folder and its subPathExpr mount a
// folder in it. Each runner pod's agent sidecar is an agent of its own here, started as the manifest
// starts it; the pod's loopback address in the manifest's -e LLM_AGENT becomes that agent's (runners share
// this machine's loopback, where one port cannot serve them all). Only what the manifest says to edit for a
// cluster (the target, the use cases) and the ConfigMap's files are the test's. The runners are resumed
// with the operator's PATCH, and npm run report reads the claim's run folder.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorSegmentFlags } from '../../lib/segments';
import { freePort } from '../../node/free-port';
import { buildBundles } from '../../orchestrator/bundles';
import { bundlePath } from '../../orchestrator/engine';
import { analyzeRun } from '../../report/generate';
import { startSim } from '../../sim/server';
import { resumeWhenPaused, ROOT, runK6, startTestAgent, tempDir } from './helpers';
import { nodeProgram } from '../../node/node-programs';
import { SYNC_CHILD_LIMIT } from '../sync-child';

type Obj = Record<string, unknown>;
const TESTID = 'capacity-e2e';

let sim: Awaited<ReturnType<typeof startSim>>;
beforeAll(async () => {
  await buildBundles();
  sim = await startSim({ port: 0, fixed: { ttftMs: 50, itlMs: 10 } });
}, 120_000);
afterAll(async () => {
  await sim?.close();
});

/** What the manifest says, with the envsubst of its header applied. */
function manifest(): {
  name: string; parallelism: number; arguments: string[]; env: Obj[]; mount: Obj; initContainers: Obj[];
} {
  const text = readFileSync(path.join(ROOT, 'deploy/k6-operator/testrun-split-capacity.yaml'), 'utf8').replace(
    /\$\{TESTID\}/g, TESTID,
  );
  const testRun = yaml.loadAll(text).map((d) => d as Obj).find((d) => d.kind === 'TestRun')!;
  const spec = testRun.spec as Obj;
  const runner = spec.runner as Obj;
  return {
    name: String((testRun.metadata as Obj).name), parallelism: Number(spec.parallelism),
    arguments: String(spec.arguments).split(/\s+/), env: runner.env as Obj[],
    mount: (runner.volumeMounts as Obj[]).find((m) => m.name === 'results')!,
    initContainers: (runner.initContainers as Obj[] | undefined) ?? [],
  };
}

/**
 * The runner's agent as the manifest has it: the sidecar's --host and --port, which the -e LLM_AGENT argument must
 * name, and the index of that argument's value in `arguments`.
 */
function agentOf(m: ReturnType<typeof manifest>): { url: string; argIndex: number } {
  const sidecar = m.initContainers.find((c) => c.name === 'llm-agent')!;
  expect(sidecar, 'the runner pod has an llm-agent sidecar').toBeDefined();
  // A native sidecar: an init container that keeps running beside k6.
  expect(sidecar.restartPolicy).toBe('Always');
  const args = (sidecar.args as string[]).map(String);
  const flag = (name: string): string => args[args.indexOf(name) + 1]!;
  const url = `http://${flag('--host')}:${flag('--port')}`;
  const argIndex = m.arguments.findIndex((a, i) => m.arguments[i - 1] === '-e' && a.startsWith('LLM_AGENT='));
  expect(argIndex, 'the TestRun passes -e LLM_AGENT=...').toBeGreaterThan(0);
  expect(m.arguments[argIndex]).toBe(`LLM_AGENT=${url}`);
  return { url, argIndex };
}

/** The kubelet's $(VAR) expansion of a value from the variables defined so far. */
const expand = (value: string, vars: Readonly<Record<string, string>>): string =>
  value.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (whole, name: string) => vars[name] ?? whole);

/**
 * Runner i's environment and its folder on the claim: the manifest's env in order (the Job name for the
 * downward-API RUNNER, secrets absent), container paths under the mount moved to that folder.
 */
function runnerEnv(m: ReturnType<typeof manifest>, i: number, claim: string, target: Record<string, string>) {
  const vars: Record<string, string> = {};
  for (const e of m.env) {
    const name = String(e.name);
    if (e.valueFrom && (e.valueFrom as Obj).fieldRef) vars[name] = `${m.name}-${i}`;
    else if (typeof e.value === 'string') vars[name] = expand(e.value, vars);
  }
  const folder = path.join(claim, expand(String(m.mount.subPathExpr), vars));
  mkdirSync(folder, { recursive: true }); // The kubelet creates a subPath that does not exist.
  const mountPath = String(m.mount.mountPath);
  for (const [k, v] of Object.entries(vars)) if (v.startsWith(mountPath)) vars[k] = folder + v.slice(mountPath.length);
  return { env: { ...vars, ...target }, folder };
}

describe('the split capacity manifest, run as the k6-operator runs it', () => {
  it("writes each runner's folder to the claim, and npm run report merges them into one capacity report", async () => {
    const m = manifest();
    const dir = tempDir('split-manifest');
    const claim = path.join(dir, 'claim');
    // The ConfigMap's plan.json: one small use case, a ladder of 1, 4 and 6 users.
    const plan = path.join(dir, 'plan.json');
    writeFileSync(plan, JSON.stringify({
      useCases: [
        {
          id: 'tiny_chat', contextTokens: 256, outputTokens: 16,
          limits: [{ metric: 'ttft', operator: '<', value: 5000 }],
        },
      ],
      capacity: { concurrencies: { tiny_chat: [1, 4, 6] }, rounds: 1, warmupRequests: 0 },
      schedule: {
        prefillTokensPerSecond: 100_000, decodeTokensPerSecond: 100, safetyFactor: 2, minCellSeconds: 1,
        gapSeconds: 0.2,
      },
    }));
    const target = {
      PLAN: plan, BASE_URL: sim.url, MODEL: 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8', USE_CASES: 'tiny_chat',
      METRICS_URL: sim.url.replace(/\/v1$/, '/metrics'),
    };
    const { argIndex } = agentOf(m);
    // One agent per runner pod, as its sidecar.
    const agents = await Promise.all(Array.from({ length: m.parallelism }, () => startTestAgent()));
    try {
      const addresses: string[] = [];
      const exits: Promise<number>[] = [];
      for (let i = 1; i <= m.parallelism; i++) {
        const { env, folder } = runnerEnv(m, i, claim, target);
        const address = `127.0.0.1:${await freePort()}`;
        addresses.push(address);
        const own = m.arguments.map((a, at) => (at === argIndex ? `LLM_AGENT=${agents[i - 1]!.url}` : a));
        const args = [
          'run', '--quiet', ...operatorSegmentFlags(i, m.parallelism), ...own,
          bundlePath('capacity', path.join(ROOT, 'dist')),
          `--address=${address}`, '--paused', '--tag', `instance_id=${i}`, '--tag', `testrun_name=${m.name}`,
        ];
        exits.push(runK6(args, { ...process.env, ...env }, path.join(dir, `stderr-${i}.txt`)));
        expect(folder).toBe(path.join(claim, TESTID, `${m.name}-${i}`));
      }
      await resumeWhenPaused(addresses);
      const codes = await Promise.all(exits);
      expect(codes, readFileSync(path.join(dir, 'stderr-1.txt'), 'utf8')).toEqual(Array(m.parallelism).fill(0));
    } finally {
      await Promise.all(agents.map((a) => a.stop()));
    }

    const report = await analyzeRun(path.join(claim, TESTID));
    expect(report.incomplete).toBe(false);
    expect(report.cells.map((c) => [c.id, c.requests])).toEqual([
      ['capacity_tiny_chat_n1', 1], ['capacity_tiny_chat_n4', 4], ['capacity_tiny_chat_n6', 6],
    ]);
    expect(report.useCases.map((u) => [u.useCase.id, u.result.displayShort])).toEqual([['tiny_chat', '6+']]);
    expect(report.runNotes[0]).toContain(`${TESTID} ran split across ${m.parallelism} k6 processes`);
    const [program, ...lead] = nodeProgram('report');
    // Exits 0 (execFileSync throws otherwise); the report goes next to the runners' folders.
    execFileSync(program!, [...lead, path.join(claim, TESTID), '--gate'], {
      cwd: ROOT, stdio: 'pipe', ...SYNC_CHILD_LIMIT,
    });
    expect(readFileSync(path.join(claim, TESTID, 'report.md'), 'utf8')).toContain('tiny_chat');
  }, 180_000);
});
