// Scenario config validation, shortcuts, VU sizing and arrival schedules (k6 lib/executor). Runs in Node.
import { describe, expect, it } from 'vitest';
import { arrivalOffsetsMs } from '../../runner/executors/arrival';
import { resolveOptions, totalVUsNeeded, type ScenarioConfig } from '../../runner/options';

function take(gen: Generator<number>, n: number): number[] {
  const out: number[] = [];
  for (const v of gen) {
    out.push(v);
    if (out.length === n) break;
  }
  return out;
}

describe('resolveOptions', () => {
  it('maps shortcuts to the executors k6 uses and applies defaults', () => {
    expect(resolveOptions({}, {}).scenarios[0]).toMatchObject({ name: 'default', executor: 'per-vu-iterations', vus: 1, iterations: 1 });
    expect(resolveOptions({ vus: 3, iterations: 9 }, {}).scenarios[0]).toMatchObject({ executor: 'shared-iterations', vus: 3, iterations: 9 });
    expect(resolveOptions({}, { vus: 2, duration: '5s' }).scenarios[0]).toMatchObject({ executor: 'constant-vus', vus: 2, durationMs: 5000 });
    const o = resolveOptions({ scenarios: { a: { executor: 'constant-arrival-rate', rate: 5, duration: '1m', preAllocatedVUs: 2 } } }, {});
    expect(o.scenarios[0]).toMatchObject({ timeUnitMs: 1000, durationMs: 60_000, maxVUs: 2, gracefulStopMs: 30_000, startTimeMs: 0, exec: 'default' });
    expect(o.summaryTrendStats).toEqual(['avg', 'min', 'med', 'max', 'p(90)', 'p(95)']);
  });

  it('rejects what k6 rejects (exit 104)', () => {
    const bad = [
      { scenarios: { a: { executor: 'constant-vus', vus: 1, duration: '1s', bogus: 1 } } },
      { scenarios: { 'a b': { executor: 'constant-vus', duration: '1s' } } },
      { scenarios: { a: { executor: 'constant-vus' } } },
      { scenarios: { a: { executor: 'ramping-vus', stages: [] } } },
      { scenarios: { a: { executor: 'constant-vus', duration: '1s' } }, duration: '2s' },
      { scenarios: { a: { executor: 'constant-vus', duration: 'soon' } } },
    ];
    for (const o of bad) expect(() => resolveOptions(o, {}), JSON.stringify(o)).toThrow(expect.objectContaining({ exitCode: 104 }) as unknown as Error);
  });
});

describe('totalVUsNeeded', () => {
  it('is the peak of overlapping scenario windows (duration + gracefulStop)', () => {
    const o = resolveOptions(
      {
        scenarios: {
          a: { executor: 'constant-vus', vus: 2, duration: '1s', gracefulStop: '0s' },
          b: { executor: 'constant-vus', vus: 3, duration: '1s', startTime: '1s' },
          c: { executor: 'constant-vus', vus: 4, duration: '1s', startTime: '1500ms' },
        },
      },
      {},
    );
    expect(totalVUsNeeded(o.scenarios)).toBe(7);
  });
});

describe('arrivalOffsetsMs', () => {
  it('spaces constant-rate arrivals by timeUnit / rate from 0', () => {
    const cfg = resolveOptions({ scenarios: { a: { executor: 'constant-arrival-rate', rate: 4, timeUnit: '2s', duration: '10s', preAllocatedVUs: 1 } } }, {}).scenarios[0] as Extract<ScenarioConfig, { executor: 'constant-arrival-rate' }>;
    expect(take(arrivalOffsetsMs(cfg), 4)).toEqual([0, 500, 1000, 1500]);
  });

  it('follows the integral of a linear ramp: 0 -> 10/s over 2 s starts the k-th iteration at sqrt(0.4 k) s', () => {
    const cfg = resolveOptions({ scenarios: { a: { executor: 'ramping-arrival-rate', startRate: 0, preAllocatedVUs: 1, stages: [{ duration: '2s', target: 10 }] } } }, {}).scenarios[0] as Extract<ScenarioConfig, { executor: 'ramping-arrival-rate' }>;
    const all = [...arrivalOffsetsMs(cfg)];
    expect(all).toHaveLength(10);
    all.forEach((t, i) => expect(t).toBeCloseTo(Math.sqrt(0.4 * (i + 1)) * 1000, 6));
  });
});
