// The runner's own health per scenario (event-loop lag, delivery backlog, CPU share): is the client the bottleneck? Runs in Node.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { monoMs } from './clock';

/** Log-bucketed histogram (5% relative resolution) so recording a delivery is one array increment. */
export class LogHistogram {
  private readonly buckets = new Uint32Array(600);
  count = 0;
  max = 0;

  record(ms: number): void {
    const v = ms < 0.001 ? 0.001 : ms;
    // bucket i covers [0.001 * 1.05^i, 0.001 * 1.05^(i+1)).
    let i = Math.floor(Math.log(v / 0.001) / 0.04879016416943205);
    if (i >= this.buckets.length) i = this.buckets.length - 1;
    this.buckets[i]!++;
    this.count++;
    if (ms > this.max) this.max = ms;
  }

  percentile(p: number): number {
    if (this.count === 0) return 0;
    const rank = Math.ceil(p * this.count);
    let seen = 0;
    for (let i = 0; i < this.buckets.length; i++) {
      seen += this.buckets[i]!;
      if (seen >= rank) return Math.min(this.max, 0.001 * Math.pow(1.05, i + 1));
    }
    return this.max;
  }
}

export interface ScenarioHealth {
  eventLoopLagMs: { p50: number; p99: number; max: number };
  cpuPercent: number;
  deliveryBacklogMs: { p99: number; max: number };
  clientBound: boolean;
  reason: string | null;
  /** Not in the contract's required fields: process CPU time and wall time of the scenario, for benchmarks. */
  cpuTimeMs: number;
  wallTimeMs: number;
}

export interface HealthFile {
  schemaVersion: 1;
  scenarios: Record<string, ScenarioHealth>;
}

/** Limits beyond which a scenario's latencies say more about this process than about the server. */
export const CLIENT_BOUND = { eventLoopLagP99Ms: 10, deliveryBacklogP99Ms: 5, cpuPercent: 90 } as const;

class ScenarioRecorder {
  readonly backlog = new LogHistogram();
  private readonly loop: IntervalHistogram;
  private readonly cpu0 = process.cpuUsage();
  private readonly t0 = monoMs();
  result: ScenarioHealth | null = null;

  constructor() {
    this.loop = monitorEventLoopDelay({ resolution: 10 });
    this.loop.enable();
  }

  delivery(ms: number): void {
    this.backlog.record(ms);
  }

  finish(): ScenarioHealth {
    if (this.result) return this.result;
    this.loop.disable();
    const cpu = process.cpuUsage(this.cpu0);
    const cpuTimeMs = (cpu.user + cpu.system) / 1000;
    const wallTimeMs = monoMs() - this.t0;
    const ns = (v: number): number => (Number.isFinite(v) ? v / 1e6 : 0);
    // monitorEventLoopDelay includes its own resolution in every reading: subtract it.
    const lag = (v: number): number => Math.max(0, ns(v) - 10);
    const h: ScenarioHealth = {
      eventLoopLagMs: { p50: lag(this.loop.percentile(50)), p99: lag(this.loop.percentile(99)), max: lag(this.loop.max) },
      cpuPercent: wallTimeMs > 0 ? (100 * cpuTimeMs) / wallTimeMs : 0,
      deliveryBacklogMs: { p99: this.backlog.percentile(0.99), max: this.backlog.max },
      clientBound: false,
      reason: null,
      cpuTimeMs,
      wallTimeMs,
    };
    const reasons: string[] = [];
    if (h.eventLoopLagMs.p99 > CLIENT_BOUND.eventLoopLagP99Ms) reasons.push(`event-loop lag p99 ${h.eventLoopLagMs.p99.toFixed(1)} ms > ${CLIENT_BOUND.eventLoopLagP99Ms} ms`);
    if (h.deliveryBacklogMs.p99 > CLIENT_BOUND.deliveryBacklogP99Ms) reasons.push(`delivery backlog p99 ${h.deliveryBacklogMs.p99.toFixed(1)} ms > ${CLIENT_BOUND.deliveryBacklogP99Ms} ms`);
    // CPU share of a scenario shorter than a second says little (startup, JIT): judge longer ones only.
    if (wallTimeMs >= 1000 && h.cpuPercent > CLIENT_BOUND.cpuPercent) reasons.push(`runner CPU ${h.cpuPercent.toFixed(0)}% of one core > ${CLIENT_BOUND.cpuPercent}%`);
    if (reasons.length > 0) {
      h.clientBound = true;
      h.reason = reasons.join('; ');
    }
    this.result = h;
    return h;
  }
}

export class HealthRecorder {
  private readonly byScenario = new Map<string, ScenarioRecorder>();

  start(scenario: string): void {
    if (!this.byScenario.has(scenario)) this.byScenario.set(scenario, new ScenarioRecorder());
  }

  /** The recorder of a running scenario, or undefined (setup, teardown). */
  forScenario(scenario: string): ScenarioRecorder | undefined {
    return this.byScenario.get(scenario);
  }

  finish(scenario: string): ScenarioHealth | undefined {
    return this.byScenario.get(scenario)?.finish();
  }

  toJSON(): HealthFile {
    const scenarios: Record<string, ScenarioHealth> = {};
    for (const [name, r] of this.byScenario) scenarios[name] = r.finish();
    return { schemaVersion: 1, scenarios };
  }
}
