// Benchmarks why one stream reads late: one stream at a time through the measuring agent against the simulator
// (default profile: the example report's 1-user code completion, 1K-token prompt, 128 tokens, ~6.3 ms apart), with
// the agent at the normal priority and at a real-time one (SCHED_FIFO, when allowed). Runs in Node.
//
// The simulator is pinned to the first core, the agent and this process to the last (nothing pinned on one core).
// Per row: each request's longest read lag (health.readLagMs) p50 / p90 / max, the tokens read together against the
// ITL samples, and the last core's steal time over the row (/proc/stat: time the hypervisor ran something else). A
// late read that a real-time agent no longer shows was the guest scheduler giving the core to another process; what
// remains under SCHED_FIFO is outside the guest (steal) or the kernel's own work.
// Usage: npm run bench:read-lag [-- --requests 30 --priorities normal,fifo]

import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { startAgent } from '../orchestrator/agent-process';
import { startSimChild } from '../sim/child';
import { percentile, sortValues } from '../analysis/stats';

const MODEL = 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8';

interface Row {
  readonly priority: string;
  readonly lags: number[];
  readonly together: number;
  readonly itlSamples: number;
  readonly stealMs: number | null;
}

/** The last core's steal time so far, ms (USER_HZ 100); null off Linux. */
function stealMs(core: number): number | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n').find((l) => l.startsWith(`cpu${core} `));
    return line ? Number(line.trim().split(/\s+/)[8]) * 10 : null;
  } catch {
    return null;
  }
}

type Measured = Omit<Row, 'priority' | 'stealMs'>;

async function measure(simBase: string, agentUrl: string, requests: number, label: string): Promise<Measured> {
  const lags: number[] = [];
  let together = 0;
  let itlSamples = 0;
  for (let i = 0; i < requests; i++) {
    const body = JSON.stringify({
      model: MODEL, messages: [{ role: 'user', content: `${label} ${i} ${'x '.repeat(1000)}` }], max_tokens: 128,
      ignore_eos: true, stream: true, stream_options: { include_usage: true },
    });
    const res = await fetch(`${agentUrl}/stream`, {
      method: 'POST',
      body: JSON.stringify({
        url: `${simBase}/v1/chat/completions`, body, pool: 'vu-1', headers: { 'Content-Type': 'application/json' },
      }),
    });
    const a = (await res.json()) as {
      record: { itlMs?: number[] }; health: { readLagMs: number | null; tokensReadTogether?: number };
    };
    if (a.health.readLagMs !== null) lags.push(a.health.readLagMs);
    together += a.health.tokensReadTogether ?? 0;
    itlSamples += a.record.itlMs?.length ?? 0;
  }
  return { lags, together, itlSamples };
}

async function main(): Promise<void> {
  const opts = new Command().option('--requests <n>', 'requests per row', '30')
    .option('--priorities <list>', 'normal,fifo', 'normal,fifo').parse()
    .opts<{ requests: string; priorities: string }>();
  const last = cpus().length - 1;
  const pin = (core: number): string[] => (last > 0 ? ['taskset', '-c', String(core)] : []);
  const sim = await startSimChild([], pin(0));
  if (last > 0) spawnSync('taskset', ['-cp', String(last), String(process.pid)]);
  const rows: Row[] = [];
  try {
    for (const priority of opts.priorities.split(',')) {
      const rt = priority === 'fifo' && spawnSync('chrt', ['-f', '10', 'true']).status === 0;
      if (priority === 'fifo' && !rt) {
        console.error('read-lag: SCHED_FIFO not allowed here (needs CAP_SYS_NICE): row left out');
        continue;
      }
      const agent = await startAgent({ prefix: [...(rt ? ['chrt', '-f', '10'] : []), ...pin(last)] });
      const before = stealMs(last);
      try {
        const m = await measure(sim.base, agent.url, Number(opts.requests), priority);
        const after = stealMs(last);
        rows.push({ priority, ...m, stealMs: before === null || after === null ? null : after - before });
      } finally {
        await agent.stop();
      }
    }
  } finally {
    await sim.stop();
  }
  console.log(`cores ${cpus().length}, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  console.log('| agent priority | requests | longest read lag per request p50 / p90 / max (ms) | ' +
    'tokens read together | steal on its core (ms) |');
  console.log('|---|---:|---|---:|---:|');
  for (const r of rows) {
    const s = sortValues(r.lags);
    const q = (p: number): string => percentile(s, p).toFixed(2);
    console.log(`| ${r.priority} | ${r.lags.length} | ${q(0.5)} / ${q(0.9)} / ${q(1)} | ` +
      `${r.together} of ${r.itlSamples} | ` +
      `${r.stealMs ?? 'n/a'} |`);
  }
}

main().catch((e: unknown) => {
  console.error(`read-lag: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
