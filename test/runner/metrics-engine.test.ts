// Sinks and percentiles checked against a real k6's numbers (the golden CSV's raw values and summary). Runs in Node.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CounterSink, GaugeSink, MetricsEngine, RateSink, sinkValues, TrendSink } from '../../runner/metrics-engine';
import { GOLDEN_DIR } from '../fixtures/golden';

const GOLDEN = GOLDEN_DIR;

describe('TrendSink', () => {
  it('computes percentiles as k6 does: linear interpolation at p * (count - 1)', () => {
    const t = new TrendSink();
    for (const v of [4, 1, 3, 2]) t.add(v);
    expect(t.stat('med')).toBe(2.5);
    expect(t.stat('p(90)')).toBeCloseTo(3.7, 12);
    expect(t.stat('min')).toBe(1);
    expect(t.stat('max')).toBe(4);
    expect(t.stat('avg')).toBe(2.5);
    expect(t.stat('count')).toBe(4);
  });

  it('returns zeros with no samples and the value itself with one', () => {
    const t = new TrendSink();
    expect(['avg', 'min', 'med', 'max', 'p(95)', 'count'].map((s) => t.stat(s))).toEqual([0, 0, 0, 0, 0, 0]);
    t.add(7);
    expect(t.stat('p(99)')).toBe(7);
  });

  it("reproduces a real k6's summary from the raw samples of the same run (NDJSON)", () => {
    const points = readFileSync(`${GOLDEN}/samples.ndjson`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; metric: string; data: { value: number; tags: Record<string, string> } })
      .filter((p) => p.type === 'Point');
    const summary = JSON.parse(readFileSync(`${GOLDEN}/handle-summary-data.json`, 'utf8')) as { metrics: Record<string, { values: Record<string, number> }> };
    for (const [metric, filter] of [
      ['iteration_duration', () => true],
      ['http_req_sending', () => true],
      ['llm_decode_speed', () => true],
      ['llm_ttft{cell:ctx1k_c2}', (tags: Record<string, string>) => tags.cell === 'ctx1k_c2'],
    ] as const) {
      const name = metric.split('{')[0]!;
      const t = new TrendSink();
      for (const p of points) if (p.metric === name && filter(p.data.tags)) t.add(p.data.value);
      for (const [stat, v] of Object.entries(summary.metrics[metric]!.values)) expect(t.stat(stat), `${metric} ${stat}`).toBeCloseTo(v, 9);
    }
  });
});

describe('other sinks', () => {
  it('Counter counts and rates per second of test time; Rate counts non-zero as true; Gauge keeps last, min, max', () => {
    const c = new CounterSink();
    c.add(3);
    c.add(0);
    expect(sinkValues('counter', c, [], 2000)).toEqual({ count: 3, rate: 1.5 });
    const r = new RateSink();
    for (const v of [1, 0, 5, 0]) r.add(v);
    expect(sinkValues('rate', r, [], 1000)).toEqual({ rate: 0.5, passes: 2, fails: 2 });
    const g = new GaugeSink();
    for (const v of [5, 2, 9, 4]) g.add(v);
    expect(sinkValues('gauge', g, [], 1000)).toEqual({ value: 4, min: 2, max: 9 });
  });
});

describe('MetricsEngine', () => {
  it('feeds sub-metrics whose tags match and rejects a name re-declared with another type', () => {
    const e = new MetricsEngine();
    const m = e.register('fx_ttft', 'trend', 'time');
    const sub = m.addSubmetric({ cell: 'a' });
    e.push(m, 0, 10, { cell: 'a', scenario: 'a' });
    e.push(m, 0, 20, { cell: 'b' });
    expect((m.sink as TrendSink).count).toBe(2);
    expect((sub.sink as TrendSink).count).toBe(1);
    expect(sub.name).toBe('fx_ttft{cell:a}');
    expect(() => e.register('fx_ttft', 'counter', 'default')).toThrow(/already exists/);
    expect(() => e.register('9bad', 'counter', 'default')).toThrow(/Invalid metric name/);
  });
});

describe('TrendSink incremental sorting', () => {
  it('gives the same percentiles when asked between additions as when asked once', () => {
    const a = new TrendSink();
    const b = new TrendSink();
    let x = 12345;
    for (let i = 0; i < 5000; i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      const v = x / 1e6;
      a.add(v);
      b.add(v);
      if (i % 777 === 0) a.stat('p(95)');
    }
    for (const s of ['min', 'med', 'p(90)', 'p(99)', 'p(99.9)', 'max']) expect(a.stat(s)).toBe(b.stat(s));
  });
});
