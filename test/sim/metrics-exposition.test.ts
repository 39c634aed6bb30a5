// Unit tests of the hand-written Prometheus exposition, parsed back with lib/prometheus.ts. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { parsePrometheusText, sumSamples } from '../../lib/prometheus';
import { Counter, Gauge, Histogram, Registry } from '../../sim/metrics-exposition';

describe('Registry exposition', () => {
  it('renders counters with _total, gauges, and cumulative histograms that parse back', () => {
    const reg = new Registry();
    const c = reg.add(new Counter('vllm:request_success', 'Finished requests.', { model_name: 'm', engine: '0' }));
    c.inc(2, { finished_reason: 'length' });
    c.inc(1, { finished_reason: 'stop' });
    reg.add(new Gauge('vllm:num_requests_running', 'Running.', { model_name: 'm' }, () => 3));
    const h = reg.add(new Histogram('vllm:time_to_first_token_seconds', 'TTFT.', { model_name: 'm' }, [0.1, 1, 10]));
    for (const v of [0.05, 0.5, 0.7, 5, 50]) h.observe(v);
    const text = reg.render();
    expect(text).toContain('# TYPE vllm:request_success_total counter');
    expect(text).toContain('# TYPE vllm:num_requests_running gauge');
    expect(text).toContain('# TYPE vllm:time_to_first_token_seconds histogram');
    const samples = parsePrometheusText(text);
    expect(sumSamples(samples, 'vllm:request_success_total')).toBe(3);
    expect(
      samples.find((s) => s.name === 'vllm:request_success_total' && s.labels.finished_reason === 'stop')!.value,
    ).toBe(1);
    expect(sumSamples(samples, 'vllm:num_requests_running')).toBe(3);
    const buckets = samples
      .filter((s) => s.name === 'vllm:time_to_first_token_seconds_bucket')
      .map((s) => [s.labels.le, s.value]);
    expect(buckets).toEqual([['0.1', 1], ['1', 3], ['10', 4], ['+Inf', 5]]);
    expect(sumSamples(samples, 'vllm:time_to_first_token_seconds_sum')).toBeCloseTo(56.25, 9);
    expect(sumSamples(samples, 'vllm:time_to_first_token_seconds_count')).toBe(5);
  });

  it('escapes label values', () => {
    const reg = new Registry();
    reg.add(new Gauge('g', 'help', { a: 'x"y\\z\nw' })).set(1);
    expect(reg.render()).toContain('g{a="x\\"y\\\\z\\nw"} 1');
  });
});
