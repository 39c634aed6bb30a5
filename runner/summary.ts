// End-of-test data: k6's handleSummary `data`, the --summary-export shape and a text summary. Renderers return strings. Runs in Node.
import { createHash } from 'node:crypto';
import type { SummaryGroup } from '../lib/summary-data';
import type { RunContext } from './context';
import { sinkValues, TrendSink, type Metric } from './metrics-engine';
import type { CompiledThreshold } from './thresholds';

export interface SummaryMetric {
  type: string;
  contains: string;
  values: Record<string, number>;
  thresholds?: Record<string, { ok: boolean }>;
}

export interface SummaryData {
  root_group: SummaryGroup;
  options: { summaryTrendStats: string[]; summaryTimeUnit: string; noColor: boolean };
  state: { isStdOutTTY: boolean; isStdErrTTY: boolean; testRunDurationMs: number };
  metrics: Record<string, SummaryMetric>;
  setup_data?: unknown;
}

export interface SummaryEnv {
  noColor: boolean;
  isStdOutTTY: boolean;
  isStdErrTTY: boolean;
  testRunDurationMs: number;
}

/**
 * k6's root group, the only one: the bundles call no group() and no check(), so it stays empty. Its id is
 * k6's, the md5 of its path "" (lib/models.go); the report requires root_group in handleSummary data.
 */
const ROOT_GROUP: SummaryGroup = { name: '', path: '', id: createHash('md5').update('').digest('hex'), groups: [], checks: [] };

/** k6 lists observed metrics, thresholded metrics and sub-metrics (even empty), and other sub-metrics (http_req_duration{expected_response:true}) once they got samples. */
export function buildSummaryData(rc: RunContext, thresholds: readonly CompiledThreshold[], env: SummaryEnv): SummaryData {
  const stats = [...(rc.options?.summaryTrendStats ?? ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)'])];
  const byKey = new Map<string, CompiledThreshold[]>();
  for (const t of thresholds) {
    const list = byKey.get(t.key) ?? [];
    list.push(t);
    byKey.set(t.key, list);
  }
  const entry = (m: Metric, name: string, sink: Metric['sink']): SummaryMetric => {
    const out: SummaryMetric = { type: m.type, contains: m.contains, values: sinkValues(m.type, sink, stats, env.testRunDurationMs) };
    const ts = byKey.get(name);
    if (ts) {
      out.thresholds = {};
      for (const t of ts) out.thresholds[t.spec.threshold] = { ok: t.ok };
    }
    return out;
  };
  const metrics: Record<string, SummaryMetric> = {};
  const names = [...rc.engine.metrics.keys()].sort();
  for (const name of names) {
    const m = rc.engine.metrics.get(name)!;
    if (!m.observed && !byKey.has(name)) continue;
    metrics[name] = entry(m, name, m.sink);
    for (const sub of m.submetrics) {
      // A sub-metric without thresholds is reported once it got a sample, as k6 marks it observed then.
      const hasSamples = sub.sink instanceof TrendSink ? sub.sink.count > 0 : true;
      if (byKey.has(sub.name) || (m.observed && hasSamples)) metrics[sub.name] = entry(m, sub.name, sub.sink);
    }
  }
  const data: SummaryData = {
    root_group: ROOT_GROUP,
    options: { summaryTrendStats: stats, summaryTimeUnit: rc.options?.summaryTimeUnit ?? '', noColor: env.noColor },
    state: { isStdOutTTY: env.isStdOutTTY, isStdErrTTY: env.isStdErrTTY, testRunDurationMs: env.testRunDurationMs },
    metrics,
  };
  if (rc.setupDataJson !== undefined) data.setup_data = JSON.parse(rc.setupDataJson) as unknown;
  return data;
}

/** --summary-export: flattened values, Rate's `rate` as `value`, thresholds true when FAILED; the root group's groups and checks are objects there (empty). */
export function renderSummaryExport(data: SummaryData): string {
  const metrics: Record<string, Record<string, unknown>> = {};
  for (const [name, m] of Object.entries(data.metrics)) {
    const flat: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(m.values)) flat[m.type === 'rate' && k === 'rate' ? 'value' : k] = v;
    if (m.thresholds) {
      const th: Record<string, boolean> = {};
      for (const [expr, r] of Object.entries(m.thresholds)) th[expr] = !r.ok;
      flat.thresholds = th;
    }
    metrics[name] = flat;
  }
  const g = data.root_group;
  return JSON.stringify({ root_group: { name: g.name, path: g.path, id: g.id, groups: {}, checks: {} }, metrics }, null, 4);
}

// ---- text summary (modelled on k6 v1.3's default end-of-test summary) ----

function trimNum(v: number, digits = 6): string {
  if (!Number.isFinite(v)) return String(v);
  return String(Number(v.toFixed(digits)));
}

/** k6's duration humanising for time metrics: µs below 1 ms, ms below 1 s, then s and m. */
export function formatTimeMs(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1) return `${trimNum(ms * 1000, 2)}µs`;
  if (ms < 1000) return `${trimNum(ms, 2)}ms`;
  if (ms < 60_000) return `${trimNum(ms / 1000, 2)}s`;
  const m = Math.floor(ms / 60_000);
  return `${m}m${trimNum((ms - m * 60_000) / 1000, 1)}s`;
}

function formatBytes(b: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let v = b;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) {
    v /= 1000;
    i++;
  }
  return `${i === 0 ? v : trimNum(v, v < 10 ? 1 : 0)} ${units[i]}`;
}

function formatValue(m: SummaryMetric, v: number): string {
  if (m.contains === 'time') return formatTimeMs(v);
  if (m.contains === 'data') return formatBytes(v);
  return trimNum(v);
}

const HIDDEN = new Set(['http_req_blocked', 'http_req_connecting', 'http_req_tls_handshaking', 'http_req_sending', 'http_req_waiting', 'http_req_receiving']);
const SECTIONS: [string, (n: string) => boolean][] = [
  ['HTTP', (n) => n.startsWith('http_')],
  ['EXECUTION', (n) => ['iteration_duration', 'iterations', 'vus', 'vus_max'].includes(n)],
  ['NETWORK', (n) => n.startsWith('data_')],
];

function metricCells(m: SummaryMetric, stats: readonly string[]): string[] {
  switch (m.type) {
    case 'trend':
      return stats.map((s) => `${s}=${s === 'count' ? String(m.values[s] ?? 0) : formatValue(m, m.values[s] ?? 0)}`);
    case 'counter':
      return [formatValue(m, m.values.count ?? 0), m.contains === 'data' ? `${formatBytes(m.values.rate ?? 0)}/s` : `${trimNum(m.values.rate ?? 0)}/s`];
    case 'rate':
      return [`${((m.values.rate ?? 0) * 100).toFixed(2)}%`, `${m.values.passes ?? 0} out of ${(m.values.passes ?? 0) + (m.values.fails ?? 0)}`];
    default:
      return [formatValue(m, m.values.value ?? 0), `min=${formatValue(m, m.values.min ?? 0)}`, `max=${formatValue(m, m.values.max ?? 0)}`];
  }
}

/** The default end-of-test summary as text (k6 prints it to stdout when there is no handleSummary). */
export function renderTextSummary(data: SummaryData, noColor: boolean): string {
  const color = (ok: boolean, s: string): string => (noColor ? s : `\u001b[${ok ? 32 : 31}m${s}\u001b[0m`);
  const stats = data.options.summaryTrendStats;
  const out: string[] = ['', ''];
  const withThresholds = Object.entries(data.metrics).filter(([, m]) => m.thresholds);
  if (withThresholds.length > 0) {
    out.push('  █ THRESHOLDS ', '');
    for (const [name, m] of withThresholds.sort(([a], [b]) => a.localeCompare(b))) {
      out.push(`    ${name}`);
      for (const [expr, r] of Object.entries(m.thresholds!)) {
        const agg = /^\s*([a-z]+(?:\([\d.]+\))?)/.exec(expr)?.[1] ?? '';
        const v = agg === 'rate' && m.type === 'rate' ? `${((m.values.rate ?? 0) * 100).toFixed(2)}%` : formatValue(m, m.values[agg] ?? 0);
        out.push(`    ${color(r.ok, r.ok ? '✓' : '✗')} '${expr}' ${agg}=${v}`);
      }
      out.push('');
    }
    out.push('');
  }
  out.push('  █ TOTAL RESULTS ', '');
  const names = Object.keys(data.metrics).filter((n) => !n.includes('{') && !HIDDEN.has(n)).sort();
  const groups: [string, string[]][] = [['CUSTOM', names.filter((n) => !SECTIONS.some(([, f]) => f(n)))], ...SECTIONS.map(([t, f]) => [t, names.filter(f)] as [string, string[]])];
  const rows: { label: string; cells: string[]; trend: boolean }[][] = groups.map(([, list]) =>
    list.flatMap((n) => {
      const m = data.metrics[n]!;
      const trend = m.type === 'trend';
      const lines = [{ label: n, cells: metricCells(m, stats), trend }];
      for (const sub of Object.keys(data.metrics).filter((k) => k.startsWith(`${n}{`)).sort()) {
        lines.push({ label: `  { ${sub.slice(n.length + 1, -1)} }`, cells: metricCells(data.metrics[sub]!, stats), trend });
      }
      return lines;
    }),
  );
  const all = rows.flat();
  const labelWidth = Math.max(0, ...all.map((r) => r.label.length)) + 3;
  // Trend columns align with Trend columns, other metrics' values with each other, as in k6.
  const widthsFor = (trend: boolean): number[] => {
    const w: number[] = [];
    for (const r of all) if (r.trend === trend) r.cells.forEach((c, i) => (w[i] = Math.max(w[i] ?? 0, c.length)));
    return w;
  };
  const trendWidths = widthsFor(true);
  const otherWidths = widthsFor(false);
  groups.forEach(([title], gi) => {
    const list = rows[gi]!;
    if (list.length === 0) return;
    out.push(`    ${title}`);
    for (const r of list) {
      const widths = r.trend ? trendWidths : otherWidths;
      out.push(`    ${r.label.padEnd(labelWidth, '.')}: ${r.cells.map((c, i) => (i === r.cells.length - 1 ? c : c.padEnd(widths[i]!))).join(' ')}`);
    }
    out.push('');
  });
  out.push('', '');
  return out.join('\n');
}
