// Scenario config validation, shortcuts and VU sizing (k6 lib/executor); only per-vu-iterations is provided. Runs in Node.
import { describe, expect, it } from 'vitest';
import { resolveOptions, totalVUsNeeded } from '../../runner/options';

const invalidConfig = expect.objectContaining({ exitCode: 104 }) as unknown as Error;

describe('resolveOptions', () => {
  it('applies k6 defaults: no scenarios is one per-vu-iterations scenario of 1 iteration per VU', () => {
    expect(resolveOptions({}, {}).scenarios[0]).toMatchObject({ name: 'default', executor: 'per-vu-iterations', vus: 1, iterations: 1 });
    expect(resolveOptions({ vus: 3 }, {}).scenarios[0]).toMatchObject({ executor: 'per-vu-iterations', vus: 3, iterations: 1 });
    const o = resolveOptions({ scenarios: { a: { executor: 'per-vu-iterations', vus: 2, iterations: 5 } } }, {});
    expect(o.scenarios[0]).toEqual({ name: 'a', executor: 'per-vu-iterations', vus: 2, iterations: 5, maxDurationMs: 600_000, gracefulStopMs: 30_000, startTimeMs: 0, exec: 'default', env: {}, tags: {} });
    expect(o.summaryTrendStats).toEqual(['avg', 'min', 'med', 'max', 'p(90)', 'p(95)']);
  });

  it('rejects what k6 rejects (exit 104)', () => {
    const bad = [
      { scenarios: { a: { executor: 'per-vu-iterations', vus: 1, bogus: 1 } } },
      { scenarios: { a: { executor: 'per-vu-iterations', duration: '1s' } } },
      { scenarios: { 'a b': { executor: 'per-vu-iterations' } } },
      { scenarios: { a: { executor: 'per-vu-iterations', vus: 0 } } },
      { scenarios: { a: { executor: 'per-vu-iterations' } }, duration: '2s' },
      { scenarios: { a: { executor: 'per-vu-iterations', maxDuration: 'soon' } } },
    ];
    for (const o of bad) expect(() => resolveOptions(o, {}), JSON.stringify(o)).toThrow(invalidConfig);
  });

  it('says in one line which option is wrong and what it must be', () => {
    const cases: [unknown, string][] = [
      [{ scenarios: { a: { executor: 'per-vu-iterations', bogus: 1 } } }, 'scenario "a": unknown field "bogus" for executor per-vu-iterations'],
      [{ scenarios: { a: { executor: 'per-vu-iterations', maxDuration: 'soon' } } }, 'scenario "a" maxDuration: "soon" is not a duration (use e.g. "30s", "1m30s", "500ms")'],
      [{ scenarios: { a: { executor: 'per-vu-iterations', vus: 0 } } }, 'scenario "a" vus must be an integer >= 1, got 0'],
      [{ scenarios: { a: { vus: 1 } } }, 'scenario "a": executor is required'],
      [{ summaryTrendStats: ['avg', 'p99'] }, 'summaryTrendStats: "p99" is not a trend statistic (allowed: avg, min, med, max, count, p(N))'],
      [{ insecureSkipTLSVerify: 'yes' }, 'insecureSkipTLSVerify must be a boolean, got "yes"'],
      [{ thresholds: { m: { threshold: 'rate>0', delayAbortEval: 'soon' } } }, 'thresholds "m" delayAbortEval: "soon" is not a duration (use e.g. "30s", "1m30s", "500ms")'],
    ];
    for (const [options, message] of cases) expect(() => resolveOptions(options, {}), message).toThrow(message);
  });

  it('rejects every other executor, and the shortcuts k6 maps to them, naming the one supported (exit 104)', () => {
    for (const executor of ['shared-iterations', 'constant-vus', 'ramping-vus', 'constant-arrival-rate', 'ramping-arrival-rate', 'externally-controlled']) {
      expect(() => resolveOptions({ scenarios: { a: { executor } } }, {})).toThrow(invalidConfig);
      expect(() => resolveOptions({ scenarios: { a: { executor } } }, {})).toThrow(`scenario "a": executor "${executor}" is not supported by the local runner (supported: per-vu-iterations)`);
    }
    expect(() => resolveOptions({ vus: 2, iterations: 4 }, {})).toThrow('iterations without scenarios (executor shared-iterations) is not supported by the local runner (supported: per-vu-iterations)');
    expect(() => resolveOptions({}, { duration: '5s' })).toThrow('duration without scenarios (executor constant-vus) is not supported by the local runner (supported: per-vu-iterations)');
    expect(() => resolveOptions({ stages: [{ duration: '1s', target: 1 }] }, {})).toThrow('options.stages (executor ramping-vus) is not supported by the local runner (supported: per-vu-iterations)');
  });
});

describe('totalVUsNeeded', () => {
  it('is the peak of overlapping scenario windows (maxDuration + gracefulStop)', () => {
    const o = resolveOptions(
      {
        scenarios: {
          a: { executor: 'per-vu-iterations', vus: 2, maxDuration: '1s', gracefulStop: '0s' },
          b: { executor: 'per-vu-iterations', vus: 3, maxDuration: '1s', startTime: '1s' },
          c: { executor: 'per-vu-iterations', vus: 4, maxDuration: '1s', startTime: '1500ms' },
        },
      },
      {},
    );
    expect(totalVUsNeeded(o.scenarios)).toBe(7);
  });
});
