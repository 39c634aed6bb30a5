// Runs one k6 part for test/deploy/prometheus-e2e.test.ts as `npm run bench` would, with a measuring agent of its own
// and the remote-write output as the README documents it. Runs in Node (vitest).

import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readSummaryData, type SummaryData } from '../../lib/summary-data';
import { bundlePath, runArguments } from '../../orchestrator/engine';
import { RW_TREND_STATS_ENV } from '../../deploy/grafana/remote-write';
import { ROOT, startTestAgent, tempDir, testEngine } from '../e2e/helpers';
import { MODEL, TESTID } from './prometheus-e2e-plans';

export interface K6Run {
  readonly exitCode: number;
  readonly stderr: string;
  readonly dir: string;
  readonly summary: SummaryData;
}

/**
 * One part as `npm run bench` runs it (a measuring agent of its own beside k6, stopped when k6 has exited), plus the
 * remote-write output and its environment exactly as the README documents.
 */
export async function runK6(
  script: string, plan: object, baseUrl: string, rwUrl: string, extraEnv: Record<string, string> = {},
  extraTags: Record<string, string> = {},
): Promise<K6Run> {
  const agent = await startTestAgent();
  try {
    return await runK6WithAgent(agent.url, script, plan, baseUrl, rwUrl, extraEnv, extraTags);
  } finally {
    await agent.stop();
  }
}

function runK6WithAgent(
  agentUrl: string, script: string, plan: object, baseUrl: string, rwUrl: string, extraEnv: Record<string, string>,
  extraTags: Record<string, string>,
): Promise<K6Run> {
  const dir = tempDir(`prom-${script}`);
  const planFile = path.join(dir, 'plan-input.json');
  writeFileSync(planFile, JSON.stringify(plan));
  const engine = testEngine();
  const args = runArguments({
    bundle: bundlePath(script, path.join(ROOT, 'dist')),
    partDir: dir,
    env: { PLAN: planFile, RESULTS_DIR: dir, BASE_URL: baseUrl, MODEL, LLM_AGENT: agentUrl },
    tags: { testid: TESTID, ...extraTags },
  });
  // `-o experimental-prometheus-rw` next to the CSV output, before the bundle path.
  args.splice(args.length - 1, 0, '-o', 'experimental-prometheus-rw');
  const env = {
    ...process.env,
    K6_PROMETHEUS_RW_SERVER_URL: rwUrl,
    K6_PROMETHEUS_RW_TREND_STATS: RW_TREND_STATS_ENV,
    K6_PROMETHEUS_RW_PUSH_INTERVAL: '1s',
    ...extraEnv,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(engine.command[0]!, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      let summary: SummaryData;
      try {
        summary = readSummaryData(JSON.parse(readFileSync(path.join(dir, 'summary.json'), 'utf8')), 'summary.json');
      } catch (e) {
        reject(new Error(
          `k6 ${script} exited ${code} without summary.json (${(e as Error).message}):\n${stderr.slice(-3000)}`,
        ));
        return;
      }
      resolve({ exitCode: code ?? -1, stderr, dir, summary });
    });
  });
}
