// Tests for lib/summary-text.ts: the end-of-test text summary of a small handcrafted run, checked line by line.
// Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import { resolvePlan } from '../../lib/plan';
import type { SummaryData, SummaryMetric } from '../../lib/summary-data';
import { renderTextSummary } from '../../lib/summary-text';

function trend(values: Record<string, number>, thresholds?: Record<string, { ok: boolean }>): SummaryMetric {
  return { type: 'trend', contains: 'time', values, ...(thresholds ? { thresholds } : {}) };
}

const plan = resolvePlan(
  {
    name: 'demo', target: { baseUrl: 'http://127.0.0.1:8000/v1', model: 'm' },
    sweep: { contexts: [1024], concurrencies: [1, 2], rounds: 1, outputTokens: 128 },
  },
  'sweep',
);

const data: SummaryData = {
  root_group: { name: '', path: '', id: 'd41d8cd98f00b204e9800998ecf8427e', groups: [], checks: [] },
  options: {
    summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)', 'count'], summaryTimeUnit: '',
    noColor: false,
  },
  state: { isStdOutTTY: false, isStdErrTTY: false, testRunDurationMs: 9000 },
  metrics: {
    'llm_ttft{cell:sweep_c1k_o128_n1}': trend({ avg: 120, 'p(95)': 150, count: 1 }, { 'max>=0': { ok: true } }),
    'llm_e2e{cell:sweep_c1k_o128_n1}': trend(
      { avg: 1500, count: 1 }, { 'max>=0': { ok: true }, 'p(95)<5000': { ok: true } },
    ),
    'llm_itl{cell:sweep_c1k_o128_n1}': trend({ avg: 10.4, count: 127 }, { 'max >= 0': { ok: true } }),
    'llm_decode_speed{cell:sweep_c1k_o128_n1}': {
      type: 'trend', contains: 'default', values: { avg: 95.24 }, thresholds: { 'max>=0': { ok: true } },
    },
    'llm_prefill_speed{cell:sweep_c1k_o128_n1}': { type: 'trend', contains: 'default', values: { avg: 8533.3 } },
    'llm_request_ok{cell:sweep_c1k_o128_n1}': {
      type: 'rate', contains: 'default', values: { rate: 1, passes: 1, fails: 0 },
      thresholds: { 'rate>=0': { ok: true } },
    },
    'llm_ttft{cell:sweep_c1k_o128_n2}': trend(
      { avg: 2500, 'p(95)': 3100, count: 1 }, { 'max>=0': { ok: true }, 'avg<2000': { ok: false } },
    ),
    'llm_request_ok{cell:sweep_c1k_o128_n2}': {
      type: 'rate', contains: 'default', values: { rate: 0.5, passes: 1, fails: 1 },
      thresholds: { 'rate>=0': { ok: true } },
    },
    llm_request_ok: {
      type: 'rate', contains: 'default', values: { rate: 2 / 3, passes: 2, fails: 1 },
      thresholds: { 'rate>=0.99': { ok: false } },
    },
  },
};

describe('renderTextSummary', () => {
  const text = renderTextSummary(data, plan, 'results/demo');

  it('renders the header, one row per cell, totals, deciding thresholds and where the results are', () => {
    expect(text.split('\n')).toEqual([
      '',
      'k6-llm-capacity: sweep "demo" against http://127.0.0.1:8000/v1 (model m)',
      '',
      'cell               ok/req  TTFT avg  TTFT p95  e2e avg  ITL avg  tok/s/user  prefill tok/s',
      'sweep_c1k_o128_n1     1/1     120ms     150ms    1.50s     10ms        95.2           8533',
      'sweep_c1k_o128_n2     1/2     2.50s     3.10s        -        -           -              -',
      '',
      'requests: 2 succeeded, 1 failed',
      '',
      'thresholds:',
      '  ✓ llm_e2e{cell:sweep_c1k_o128_n1} p(95)<5000',
      '  ✗ llm_request_ok rate>=0.99',
      '  ✗ llm_ttft{cell:sweep_c1k_o128_n2} avg<2000',
      '',
      'results: results/demo/summary.json, results/demo/plan.json',
      '',
    ]);
  });

  it('has no colour codes and hides the informational thresholds (also when written with spaces)', () => {
    expect(text).not.toMatch(/\x1b\[/); // eslint-disable-line no-control-regex
    expect(text).not.toContain('max>=0');
    expect(text).not.toContain('max >= 0');
    expect(text).not.toContain('rate>=0\n');
  });

  it('without a request_ok sub-metric, counts TTFT samples against the planned requests; ' +
    'no thresholds section when none decide', () => {
    const bare: SummaryData = {
      ...data, metrics: { 'llm_ttft{cell:sweep_c1k_o128_n2}': trend({ avg: 50, 'p(95)': 60, count: 1 }) },
    };
    const lines = renderTextSummary(bare, plan, 'out').split('\n');
    expect(lines[4]).toBe('sweep_c1k_o128_n1     0/1   not run         -        -        -           -              -');
    expect(lines[5]).toBe('sweep_c1k_o128_n2     1/2      50ms      60ms        -        -           -              -');
    expect(lines).not.toContain('thresholds:');
    expect(lines.some((l) => l.startsWith('requests:'))).toBe(false);
  });

  it('counts requests of a cell that ran but never ended as cut, apart from failures', () => {
    // Cell n2 planned 2 requests; one succeeded and the other was cut by the end of its slot.
    const cutRun: SummaryData = {
      ...data,
      metrics: {
        ...data.metrics,
        'llm_request_ok{cell:sweep_c1k_o128_n2}': {
          type: 'rate', contains: 'default', values: { rate: 1, passes: 1, fails: 0 },
        },
        llm_request_ok: { type: 'rate', contains: 'default', values: { rate: 1, passes: 2, fails: 0 } },
      },
    };
    const lines = renderTextSummary(cutRun, plan, 'out').split('\n');
    expect(lines.find((l) => l.startsWith('sweep_c1k_o128_n2'))).toMatch(/^sweep_c1k_o128_n2 +1\/1 \+1 cut /);
    expect(lines).toContain(
      'requests: 2 succeeded, 0 failed, 1 cut (slot ended or interrupted: neither measured nor failed)',
    );
  });

  it("counts a split run's runner against its share: no share of a cell is not a cell that did not run", () => {
    // Runner 2 of 2: no user of the 1-user cell, 1 of the 2-user cell.
    const metrics = Object.fromEntries(Object.entries(data.metrics).filter(([key]) => !key.includes('_n1}')));
    const lines = renderTextSummary({ ...data, metrics }, plan, 'out', (cell) => cell.concurrency - 1).split('\n');
    expect(lines.find((l) => l.startsWith('sweep_c1k_o128_n1'))).toMatch(/^sweep_c1k_o128_n1 +0\/0 +no share /);
    expect(lines.find((l) => l.startsWith('sweep_c1k_o128_n2'))).toMatch(/^sweep_c1k_o128_n2 +1\/2 +2\.50s/);
    expect(lines.join('\n')).not.toContain('cut');
  });
});

describe('renderTextSummary of an embed run', () => {
  it("gives each cell its latency, which is all an embed request has: no TTFT, ITL or speeds", () => {
    const embedPlan = resolvePlan({
      name: 'emb', target: { baseUrl: 'http://127.0.0.1:8000/v1', model: 'm' },
      embed: { kind: 'embeddings', inputTokens: [64], batchSizes: [4], concurrencies: [1, 2], rounds: 2 },
    }, 'embed');
    const [one, two] = embedPlan.cells.map((c) => c.id);
    const ok = (passes: number): SummaryMetric => ({
      type: 'rate', contains: 'default', values: { rate: 1, passes, fails: 0 },
    });
    const metrics: SummaryData['metrics'] = {
      [`llm_embed_latency{cell:${one}}`]: trend({ avg: 40, 'p(95)': 45, 'p(99)': 46, count: 2 }),
      [`llm_request_ok{cell:${one}}`]: ok(2),
      // k6 also reports the stream metrics' empty sub-metrics of every cell, as zeros: not figures of this run.
      [`llm_ttft{cell:${one}}`]: trend({ avg: 0, 'p(95)': 0, count: 0 }),
    };
    const lines = renderTextSummary({ ...data, metrics }, embedPlan, 'out').split('\n');
    expect(lines[3]).toBe(`${'cell'.padEnd(one!.length)}  ok/req  latency avg  latency p95  latency p99`);
    expect(lines[4]).toBe(`${one}     2/2         40ms         45ms         46ms`);
    expect(lines[5]).toBe(`${two}     0/4      not run            -            -`);
  });
});
