// Summary renderers: --summary-export from handleSummary data, checked against one real k6 run's two files (less check/group, which the runner lacks); the text summary. Runs in Node.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatTimeMs, renderSummaryExport, renderTextSummary, type SummaryData } from '../../runner/summary';
import { GOLDEN_DIR } from '../fixtures/golden';

const GOLDEN = GOLDEN_DIR;
/** Metrics of golden.js's check() and group(): the runner never has them. */
const NOT_PROVIDED = ['checks', 'group_duration'];
const withoutChecks = <T>(metrics: Record<string, T>): Record<string, T> => Object.fromEntries(Object.entries(metrics).filter(([n]) => !NOT_PROVIDED.includes(n)));

/** The golden run's handleSummary data as the runner gives it: no check or group metrics, an empty root group. */
const golden = JSON.parse(readFileSync(`${GOLDEN}/handle-summary-data.json`, 'utf8')) as SummaryData;
const data: SummaryData = { ...golden, metrics: withoutChecks(golden.metrics), root_group: { ...golden.root_group, groups: [], checks: [] } };

describe('renderSummaryExport', () => {
  it("turns a real k6 run's handleSummary data into that run's --summary-export", () => {
    const ours = JSON.parse(renderSummaryExport(data)) as unknown;
    const theirs = JSON.parse(readFileSync(`${GOLDEN}/summary-export.json`, 'utf8')) as { root_group: object; metrics: Record<string, unknown> };
    expect(ours).toEqual({ root_group: { ...theirs.root_group, groups: {}, checks: {} }, metrics: withoutChecks(theirs.metrics) });
  });
});

describe('renderTextSummary', () => {
  const text = renderTextSummary(data, true);

  it('lists thresholds with ✓/✗ and the value they were judged on', () => {
    expect(text).toContain('█ THRESHOLDS');
    expect(text).toContain("    llm_decode_speed{cell:none}\n    ✗ 'avg>0' avg=0");
    expect(text).toContain("✓ 'p(95)<5000' p(95)=7.21ms");
    expect(text).toContain("✓ 'rate>0.5' rate=97.62%");
  });

  it('groups metrics like k6 and humanises time, data, rate and counter values', () => {
    expect(text).not.toContain('checks');
    expect(text).toMatch(/ {4}CUSTOM\n {4}llm_decode_speed\.+: avg=191\.968583/);
    expect(text).toMatch(/ {6}\{ cell:none \}\.+: avg=0 /);
    expect(text).toMatch(/http_req_failed\.+: 12\.50% 1 out of 8/);
    expect(text).toMatch(/data_received\.+: 30 kB +6 kB\/s/);
    expect(text).not.toContain('\u001b[');
    expect(formatTimeMs(0.72699)).toBe('726.99µs');
    expect(formatTimeMs(27.921)).toBe('27.92ms');
    expect(formatTimeMs(1600)).toBe('1.6s');
  });
});
