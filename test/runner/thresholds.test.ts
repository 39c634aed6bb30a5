// Threshold compilation (exit 104 cases) and evaluation semantics of the runner, over lib/thresholds.ts. Runs in Node.
import { describe, expect, it } from 'vitest';
import { RunnerError } from '../../runner/exit-codes';
import { MetricsEngine } from '../../runner/metrics-engine';
import { abortingThresholds, compileThresholds, crossedMetrics, evaluateThresholds } from '../../runner/thresholds';

const spec = (threshold: string, abortOnFail = false, delayAbortEvalMs = 0) => ({ threshold, abortOnFail, delayAbortEvalMs });

describe('compileThresholds', () => {
  it('rejects unknown metrics, aggregations the type lacks and vu/iter sub-metrics with exit 104', () => {
    const e = new MetricsEngine();
    e.register('fx_t', 'trend', 'time');
    const cases: Record<string, ReturnType<typeof spec>[]>[] = [{ nope: [spec('count>0')] }, { fx_t: [spec('count>0')] }, { 'fx_t{vu:1}': [spec('avg<1')] }, { fx_t: [spec('p95<1')] }];
    for (const bad of cases) {
      let err: unknown;
      try {
        compileThresholds(bad, e);
      } catch (x) {
        err = x;
      }
      expect(err).toBeInstanceOf(RunnerError);
      expect((err as RunnerError).exitCode).toBe(104);
    }
  });
});

describe('evaluateThresholds', () => {
  it('skips empty and non-aborting thresholds during the run; at the end an empty Trend sub-metric has zero stats', () => {
    const e = new MetricsEngine();
    const m = e.register('fx_t', 'trend', 'time');
    const list = compileThresholds({ 'fx_t{cell:none}': [spec('avg>0'), spec('p(95)<5000')], fx_t: [spec('avg<1', true, 5000)] }, e);
    e.push(m, 0, 3, { cell: 'a' });
    expect(evaluateThresholds(list, 1000, false).map((r) => [r.metric, r.source, r.ok])).toEqual([['fx_t', 'avg<1', false]]);
    // delayAbortEval: not yet at 1 s, aborting at 6 s.
    expect(abortingThresholds(list, 1000)).toEqual([]);
    expect(abortingThresholds(list, 6000).map((t) => t.key)).toEqual(['fx_t']);
    const final = evaluateThresholds(list, 6000, true);
    expect(final.map((r) => [r.metric, r.source, r.ok])).toEqual([
      ['fx_t{cell:none}', 'avg>0', false],
      ['fx_t{cell:none}', 'p(95)<5000', true],
      ['fx_t', 'avg<1', false],
    ]);
    expect(crossedMetrics(list)).toEqual(['fx_t', 'fx_t{cell:none}']);
  });

  it('lets a Rate with no samples pass and rates a Counter per second', () => {
    const e = new MetricsEngine();
    const c = e.register('fx_c', 'counter', 'default');
    e.register('fx_r', 'rate', 'default');
    const list = compileThresholds({ fx_r: [spec('rate>0.9')], fx_c: [spec('rate>=2'), spec('count==4')] }, e);
    e.push(c, 0, 4, {});
    expect(evaluateThresholds(list, 2000, true).map((r) => r.ok)).toEqual([true, true, true]);
  });
});
