// How much CPU and memory a client process used: /proc sampled every SAMPLE_MS while it runs, for the benchmarks that
// charge a client's CPU per token (bench/engine-overhead.ts, bench/accuracy.ts). Linux; runs in Node.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
/** How often a process is sampled, ms. */
export const SAMPLE_MS = 100;

export interface ProcSample {
  t: number;
  cpuMs: number;
}

export const epochNow = (): number => performance.timeOrigin + performance.now();
/** Raised priority keeps other work on the machine from preempting the two measured processes, when allowed. */
export const NICE =
  spawnSync('nice', ['-n', '-10', 'true'], { encoding: 'utf8' }).stderr === '' ? ['nice', '-n', '-10'] : [];

/** Samples utime+stime and the peak RSS of one process until stopped. */
export function sampleProcess(pid: number): { stop: () => { samples: ProcSample[]; peakRssKb: number } } {
  const samples: ProcSample[] = [];
  let peakRssKb = 0;
  const tick = (): void => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // Fields 14 and 15 of stat(5); f[0] is field 3.
      samples.push({ t: epochNow(), cpuMs: ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK });
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      peakRssKb = Math.max(peakRssKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
    } catch {
      // The process has exited: keep what was sampled.
    }
  };
  tick();
  const timer = setInterval(tick, SAMPLE_MS);
  return {
    stop: () => {
      clearInterval(timer);
      return { samples, peakRssKb };
    },
  };
}

/** Cumulative CPU at epoch time t, interpolated between samples. */
export function cpuAt(samples: readonly ProcSample[], t: number): number {
  if (samples.length === 0) return NaN;
  if (t <= samples[0]!.t) return samples[0]!.cpuMs;
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1]!;
    const b = samples[i]!;
    if (t <= b.t) return a.cpuMs + ((b.cpuMs - a.cpuMs) * (t - a.t)) / Math.max(1e-9, b.t - a.t);
  }
  return samples[samples.length - 1]!.cpuMs;
}
