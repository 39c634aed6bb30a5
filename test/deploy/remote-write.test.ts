// Tests for deploy/grafana/remote-write.ts: k6's remote-write series names and units. Runs in Node (vitest).
// They cover each kind of metric in lib/metrics.ts.

import { describe, expect, it } from 'vitest';
import { REQUEST_METRICS } from '../../lib/metrics';
import { SERVER_METRICS } from '../../lib/server-metrics';
import {
  counterSeries,
  gaugeSeries,
  grafanaUnit,
  nativeHistogramSeries,
  rateSeries,
  statSuffix,
  toRemoteWriteUnit,
  trendSeries,
} from '../../deploy/grafana/remote-write';

describe('series names', () => {
  it('names trend stats k6_<name>_<stat>', () => {
    expect(trendSeries(REQUEST_METRICS.ttft, 'p(99)')).toBe('k6_llm_ttft_p99');
    expect(trendSeries(REQUEST_METRICS.decodeSpeed, 'avg')).toBe('k6_llm_decode_speed_avg');
    expect(trendSeries(REQUEST_METRICS.e2e, 'count')).toBe('k6_llm_e2e_count');
  });

  it('names counters, rates and gauges by kind', () => {
    expect(counterSeries(REQUEST_METRICS.outputTokens)).toBe('k6_llm_output_tokens_total');
    expect(rateSeries(REQUEST_METRICS.requestOk)).toBe('k6_llm_request_ok_rate');
    expect(gaugeSeries(SERVER_METRICS.running)).toBe('k6_llm_server_running');
    // A Gauge whose own name ends in _total keeps it: k6 adds nothing to gauges.
    expect(gaugeSeries(SERVER_METRICS.generationTokensTotal)).toBe('k6_llm_server_generation_tokens_total');
  });

  it('names native histograms with _seconds for time Trends only', () => {
    expect(nativeHistogramSeries(REQUEST_METRICS.itl)).toBe('k6_llm_itl_seconds');
    expect(nativeHistogramSeries(REQUEST_METRICS.prefillSpeed)).toBe('k6_llm_prefill_speed');
  });

  it('refuses a series function of the wrong kind', () => {
    expect(() => counterSeries(REQUEST_METRICS.ttft)).toThrow(/llm_ttft is a trend, not a counter/);
    expect(() => trendSeries(REQUEST_METRICS.errors, 'avg')).toThrow(/not a trend/);
  });

  it('maps fractional percentiles', () => {
    expect(statSuffix('p(99.9)')).toBe('p999');
    expect(statSuffix('p(90)')).toBe('p90');
    expect(statSuffix('med')).toBe('med');
  });
});

describe('units', () => {
  it('converts time limits from ms to s and leaves speeds alone', () => {
    expect(toRemoteWriteUnit(REQUEST_METRICS.ttft, 8000)).toBe(8);
    expect(toRemoteWriteUnit(REQUEST_METRICS.e2e, 2000)).toBe(2);
    expect(toRemoteWriteUnit(REQUEST_METRICS.decodeSpeed, 15)).toBe(15);
  });

  it('gives Grafana units as Prometheus holds the values', () => {
    expect(grafanaUnit(REQUEST_METRICS.tpot)).toBe('s');
    expect(grafanaUnit(REQUEST_METRICS.decodeSpeed)).toBe('suffix: tok/s');
    expect(grafanaUnit(SERVER_METRICS.kvCacheUsage)).toBe('percentunit');
    expect(grafanaUnit(SERVER_METRICS.powerWatts)).toBe('watt');
  });
});
