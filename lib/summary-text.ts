// The end-of-test text summary of a suite run: one line per cell and the thresholds that decide pass or fail.
// Runs in k6 and Node (pure renderer).

import { EMBED_METRICS, REQUEST_METRICS } from './metrics';
import { INFORMATIONAL_THRESHOLDS } from './options';
import type { Plan } from './plan';
import { cellMetricKey, type SummaryData } from './summary-data';

function fmtMs(ms: number | undefined): string {
  if (ms === undefined || !isFinite(ms)) return '-';
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)}s` : `${ms.toFixed(0)}ms`;
}

function fmtNum(n: number | undefined, digits = 1): string {
  return n === undefined || !isFinite(n) ? '-' : n.toFixed(digits);
}

function padEnd(s: string, width: number): string {
  return s.length >= width ? s : s + ' '.repeat(width - s.length);
}

function padStart(s: string, width: number): string {
  return s.length >= width ? s : ' '.repeat(width - s.length) + s;
}

/** Threshold lines worth showing: the always-true 'max>=0' only keeps per-cell statistics and decides nothing. */
function decidingThresholds(data: SummaryData): { key: string; expr: string; ok: boolean }[] {
  const out: { key: string; expr: string; ok: boolean }[] = [];
  for (const key of Object.keys(data.metrics).sort()) {
    const t = data.metrics[key]!.thresholds;
    if (!t) continue;
    for (const expr of Object.keys(t)) {
      if (INFORMATIONAL_THRESHOLDS.includes(expr.replace(/\s/g, ''))) continue;
      out.push({ key, expr, ok: t[expr]!.ok });
    }
  }
  return out;
}

type MetricValues = SummaryData['metrics'][string]['values'] | undefined;

/**
 * A row's figures after its cell and counts: a streamed request's timing and speeds, or an embed request's latency
 * (it streams nothing, so it has no TTFT, ITL or decode speed). `count` names the metric with one value per request.
 */
const FIGURES = {
  stream: {
    header: ['TTFT avg', 'TTFT p95', 'e2e avg', 'ITL avg', 'tok/s/user', 'prefill tok/s'],
    count: REQUEST_METRICS.ttft.name,
    row: (v: (metric: string) => MetricValues) => [
      fmtMs(v(REQUEST_METRICS.ttft.name)?.avg),
      fmtMs(v(REQUEST_METRICS.ttft.name)?.['p(95)']),
      fmtMs(v(REQUEST_METRICS.e2e.name)?.avg),
      fmtMs(v(REQUEST_METRICS.itl.name)?.avg),
      fmtNum(v(REQUEST_METRICS.decodeSpeed.name)?.avg),
      fmtNum(v(REQUEST_METRICS.prefillSpeed.name)?.avg, 0),
    ],
  },
  embed: {
    header: ['latency avg', 'latency p95', 'latency p99'],
    count: EMBED_METRICS.embedLatency.name,
    row: (v: (metric: string) => MetricValues) => [
      fmtMs(v(EMBED_METRICS.embedLatency.name)?.avg),
      fmtMs(v(EMBED_METRICS.embedLatency.name)?.['p(95)']),
      fmtMs(v(EMBED_METRICS.embedLatency.name)?.['p(99)']),
    ],
  },
} as const;

/**
 * Renders the per-cell summary as plain text (no colour codes). `usersOf` gives this process's users of a
 * cell: a runner of a split run has only its share (lib/runner.ts cellShare).
 */
export function renderTextSummary(
  data: SummaryData, plan: Plan, resultsDir: string,
  usersOf: (cell: Plan['cells'][number]) => number = (cell) => cell.concurrency,
): string {
  const lines: string[] = [];
  lines.push(
    '',
    `k6-llm-capacity: ${plan.script} "${plan.name}" against ${plan.target.baseUrl} (model ${plan.target.model})`,
    '',
  );
  const figures = plan.embed ? FIGURES.embed : FIGURES.stream;
  const header = ['cell', 'ok/req', ...figures.header];
  const dashes = figures.header.slice(1).map(() => '-');
  const rows: string[][] = [];
  const reqOk = (cell: Plan['cells'][number]) =>
    data.metrics[cellMetricKey(REQUEST_METRICS.requestOk.name, cell)]?.values;
  let cut = 0;
  for (const cell of plan.cells) {
    const v = (metric: string) => data.metrics[cellMetricKey(metric, cell)]?.values;
    const ok = reqOk(cell);
    const count = v(figures.count)?.count ?? 0;
    const requested = usersOf(cell) * (cell.rounds - cell.warmupRounds);
    const attempted = ok ? (ok.passes ?? 0) + (ok.fails ?? 0) : count;
    if (attempted === 0 && requested === 0) {
      rows.push([cell.id, '0/0', 'no share', ...dashes]);
      continue;
    }
    if (attempted === 0) {
      // k6 reports an empty sub-metric as zeros; a cell that sent nothing says so instead.
      rows.push([cell.id, `0/${requested}`, 'not run', ...dashes]);
      continue;
    }
    // Requests of a cell that ran but never ended: cut by the end of its slot or by Ctrl-C.
    // Without llm_request_ok, failures are unknown, so nothing can be called cut.
    const cellCut = ok ? Math.max(0, requested - attempted) : 0;
    cut += cellCut;
    rows.push([
      cell.id,
      (ok ? `${ok.passes ?? 0}/${attempted}` : `${count}/${requested}`) + (cellCut > 0 ? ` +${cellCut} cut` : ''),
      ...figures.row(v),
    ]);
  }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const align = (c: string, i: number) => (i === 0 ? padEnd(c, widths[i]!) : padStart(c, widths[i]!));
  lines.push(header.map(align).join('  '));
  for (const r of rows) lines.push(r.map(align).join('  '));
  const total = data.metrics[REQUEST_METRICS.requestOk.name]?.values;
  if (total)
    lines.push(
      '',
      `requests: ${total.passes ?? 0} succeeded, ${total.fails ?? 0} failed` +
        (cut > 0 ? `, ${cut} cut (slot ended or interrupted: neither measured nor failed)` : ''),
    );
  const deciding = decidingThresholds(data);
  if (deciding.length > 0) {
    lines.push('', 'thresholds:');
    for (const t of deciding) lines.push(`  ${t.ok ? '✓' : '✗'} ${t.key} ${t.expr}`);
  }
  lines.push('', `results: ${resultsDir}/summary.json, ${resultsDir}/plan.json`, '');
  return lines.join('\n');
}
