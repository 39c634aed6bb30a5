// Renders cells.csv and capacity.csv, returned as strings. Runs in Node.
// cells.csv has one row per cell with every figure; capacity.csv one row per use case and burst profile.

import Papa from 'papaparse';
import type { Report } from './report-types';
import type { LadderResult } from '../analysis/capacity';
import { reachPhrase } from './predicted';
import { TREND_KEYS, type TrendKey } from '../analysis/cell-accumulator';
import { tierDisplay, ladderDisplay } from './capacity-words';

type Cell = string | number | boolean | null;

function r(v: number | null | undefined, digits = 3): Cell {
  if (v === null || v === undefined || !isFinite(v)) return null;
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

const SNAKE: Record<TrendKey, string> = {
  ttft: 'ttft_ms', ttfc: 'ttfc_ms', itl: 'itl_ms', tpot: 'tpot_ms', e2e: 'e2e_ms', decodeSpeed: 'decode_speed_tok_s',
  prefillSpeed: 'prefill_speed_tok_s', scheduleLag: 'schedule_lag_ms', ttftIntended: 'ttft_intended_ms',
  e2eIntended: 'e2e_intended_ms', ttftCacheHit: 'ttft_cache_hit_ms', ttftCacheMiss: 'ttft_cache_miss_ms',
};

/** The server's own figures of a cell, from the monitor (empty where the server did not expose them). */
function serverColumns(c: Report['cells'][number]): Record<string, Cell> {
  return {
    server_queue_wait_ms: r(c.server?.queueWaitMs),
    server_prefill_time_ms: r(c.server?.prefillTimeMs),
    server_ttft_ms: r(c.server?.serverTtftMs),
    server_itl_ms: r(c.server?.serverItlMs, 3),
    server_e2e_ms: r(c.server?.serverE2eMs),
    server_preemptions: r(c.server?.preemptions, 0),
    server_max_waiting: r(c.server?.maxWaiting, 0),
    server_max_kv_cache_usage: r(c.server?.maxKvCacheUsage, 4),
    server_prefix_cache_hit_rate: r(c.server?.prefixCacheHitRate, 4),
    server_prefill_tokens_per_second: r(c.server?.serverPrefillTokensPerSecond),
    server_decode_tokens_per_second: r(c.server?.serverDecodeTokensPerSecond),
  };
}

export function renderCellsCsv(report: Report): string {
  const rows = report.cells.map((c) => {
    const row: Record<string, Cell> = {
      part: c.script,
      cell: c.id,
      context_tokens: c.contextTokens,
      output_tokens: c.outputTokens,
      concurrency: c.concurrency,
      use_case: c.useCase,
      profile: c.profile,
      requests: c.requests,
      succeeded: c.succeeded,
      failed: c.failed,
      cut: c.cut,
      success_rate: r(c.successRate, 5),
      goodput: r(c.goodput, 5),
      errors: Object.entries(c.errorsByKind).map(([k, n]) => `${k}:${n}`).join(';'),
      // {"kind":[{"message":...,"count":n}, ...]}: the top messages per error kind, as JSON (messages may hold any
      // character).
      error_messages: Object.keys(c.errorMessages).length > 0 ? JSON.stringify(c.errorMessages) : '',
    };
    for (const k of TREND_KEYS) {
      const d = c.metrics[k];
      const name = SNAKE[k];
      row[`${name}_count`] = d?.count ?? 0;
      row[`${name}_mean`] = r(d?.mean);
      row[`${name}_p50`] = r(d?.p50);
      row[`${name}_p90`] = r(d?.p90);
      row[`${name}_p95`] = r(d?.p95);
      row[`${name}_p99`] = r(d?.p99);
      row[`${name}_max`] = r(d?.max);
    }
    Object.assign(row, {
      input_tokens_total: c.inputTokensTotal,
      output_tokens_total: c.outputTokensTotal,
      cache_hit_share: r(c.cacheHitShare, 4),
      token_source: c.tokenSource,
      window_start_ms: c.windowStartMs,
      window_end_ms: c.windowEndMs,
      wall_seconds: r(c.wallSeconds),
      throughput_tok_s: r(c.throughput),
      tokens_per_hour: r(c.tokensPerHour, 0),
      scaling_efficiency: r(c.scalingEfficiency, 4),
      ...serverColumns(c),
      power_mean_w: r(c.power?.meanWatts, 1),
      power_peak_w: r(c.power?.peakWatts, 1),
      joules_per_output_token: r(c.power?.joulesPerOutputToken, 4),
      electricity_usd_per_hour: r(c.power?.electricityUsdPerHour, 4),
      total_usd_per_hour: r(c.power?.totalUsdPerHour, 4),
      usd_per_million_tokens: r(c.power?.usdPerMillionTokens, 4),
      client_bound: c.clientBound !== null,
      ...clientColumns(c),
    });
    return row;
  });
  return `${Papa.unparse(rows)}\n`;
}

/** A cell's client integrity (analysis/client-integrity.ts): how far its own client can be trusted. */
function clientColumns(c: Report['cells'][number]): Record<string, Cell> {
  const i = c.clientIntegrity;
  return {
    client_read_lag_p99_ms: r(i?.readLag?.p99),
    client_read_lag_max_ms: r(i?.readLag?.max),
    client_stall_max_ms: r(i?.stall?.maxMs),
    client_stall_requests: i?.stall?.requestsOver ?? null,
    client_agent_cpu_share: r(i?.agentCpuShare, 4),
    client_tokens_read_together: i?.tokensReadTogether ?? null,
    client_tokens_chunked: i?.tokensChunked ?? null,
    client_mean_in_flight: r(i?.meanInFlight),
    client_send_lag_p99_ms: r(i?.sendLagP99Ms),
    client_achieved_rate: r(i?.achievedRate, 4),
    client_offered_rate: r(i?.offeredRate, 4),
  };
}

/** capacity.csv's columns, in order; `unit` says what a capacity counts. */
const CAPACITY_COLUMNS = [
  'kind', 'id', 'title', 'context_tokens', 'output_tokens', 'limits', 'source', 'result', 'capacity', 'unit',
  'goodput_at_capacity', 'estimate', 'interpolated', 'last_pass', 'first_fail', 'broken_by', 'interval_level',
  'interval_low', 'interval_high', 'tested', 'predicted', 'predicted_profile', 'prediction_low', 'prediction_high',
  'prediction_range', 'prediction_note',
] as const;

/**
 * Whether the row is a prediction (npm run bench -- --predict) and of which simulator profile, so a copied row can
 * never pass for a measured one; a fitted profile's prediction interval beside a use case's capacity.
 */
function predictedColumns(report: Report, useCase: string | null): Record<string, Cell> {
  const p = report.predicted;
  const interval = p?.intervals?.find((i) => i.useCase === useCase) ?? null;
  const reach = p?.reach?.find((r) => r.useCase === useCase) ?? null;
  return {
    predicted: p !== null, predicted_profile: p?.profile ?? null,
    prediction_low: interval?.low ?? null, prediction_high: interval?.high ?? null,
    prediction_range: reach?.range ?? null, prediction_note: reach ? reachPhrase(reach) : null,
  };
}

/** The columns every ladder shares: what it found, between which steps, and each step's verdict. */
function ladderColumns(result: LadderResult): Record<string, Cell> {
  return {
    result: result.kind,
    capacity: ladderDisplay(result),
    estimate: result.estimate,
    interpolated: result.interpolated,
    last_pass: result.lastPass,
    first_fail: result.firstFail,
    broken_by: result.brokenBy?.label ?? null,
    tested: result.steps.map((s) => `${s.concurrency}:${s.ok ? 'pass' : 'fail'}`).join(';'),
  };
}

/** One row per SLO tier of an agentic part: its capacity in concurrent agents, read as measured. */
function sloTierRows(report: Report): Record<string, Cell>[] {
  const a = report.agentic;
  if (a === null) return [];
  const first = a.steps[0];
  return a.tiers.map((t) => ({
    kind: 'slo_tier', id: t.tier.id, title: `agentic, ${t.tier.id} tier`,
    context_tokens: first ? report.cells.find((c) => c.id === first.cellId)?.contextTokens ?? null : null,
    output_tokens: a.model.outputTokens,
    limits: t.tier.limits.map((l) => `${l.metric}:${l.stat}${l.operator}${l.value}`).join(';'),
    // A searched tier says so: its steps were chosen around its boundary, not a fixed ladder.
    source: a.search ? 'agentic-search' : 'agentic',
    unit: 'agents', result: t.kind, capacity: tierDisplay(t), estimate: t.capacity, interpolated: false,
    last_pass: t.capacity, first_fail: t.firstFail, broken_by: t.brokenBy.join(';') || null,
    tested: t.steps.map((s) => `${s.agents}:${s.ok ? 'pass' : 'fail'}`).join(';'),
    interval_level: t.interval?.level ?? null, interval_low: t.interval?.low ?? null,
    interval_high: t.interval?.high ?? null,
  }));
}

/**
 * One row per use case (concurrent users), rate capacity (requests/s), replayed trace (times its recorded speed) and
 * burst profile (requests at once).
 */
export function renderCapacityCsv(report: Report): string {
  const rows: Record<string, Cell>[] = [];
  for (const u of report.useCases) {
    rows.push({
      kind: 'use_case', id: u.useCase.id, title: u.useCase.title, context_tokens: u.useCase.contextTokens,
      output_tokens: report.cells.find((c) => u.cellIds.includes(c.id))?.outputTokens ?? u.useCase.outputTokens,
      limits: u.limits.map((l) => `${l.metric}:${l.expression}`).join(';'), source: u.source, unit: 'users',
      goodput_at_capacity: r(u.goodputAtCapacity, 5), ...ladderColumns(u.result),
      interval_level: u.interval?.level ?? null,
      interval_low: u.interval?.low ?? null,
      // Empty with a low end: open above (some resamples broke no limit up to the largest step).
      interval_high: u.interval?.high ?? null,
      ...predictedColumns(report, u.useCase.id),
    });
  }
  for (const rate of report.rates) {
    rows.push({
      kind: 'rate', id: rate.useCase.id, title: rate.useCase.title, context_tokens: rate.useCase.contextTokens,
      output_tokens: rate.useCase.outputTokens, limits: rate.limits.map((l) => `${l.metric}:${l.expression}`).join(';'),
      source: 'rate', unit: 'requests/s', ...ladderColumns(rate.result),
      interval_level: rate.interval?.level ?? null,
      interval_low: rate.interval?.low ?? null,
      interval_high: rate.interval?.high ?? null,
    });
  }
  const t = report.trace;
  if (t?.capacity) {
    const c = t.capacity;
    rows.push({
      kind: 'trace', id: t.useCase.id, title: `${t.trace.summary.format} trace, ${t.useCase.title} limits`,
      context_tokens: t.trace.summary.stats.inputTokens?.max ?? null,
      output_tokens: t.trace.summary.stats.outputTokens?.max ?? null,
      limits: c.limits.map((l) => `${l.metric}:${l.expression}`).join(';'), source: 'trace',
      unit: 'x recorded speed', ...ladderColumns(c.result),
      interval_level: c.interval?.level ?? null, interval_low: c.interval?.low ?? null,
      interval_high: c.interval?.high ?? null,
    });
  }
  rows.push(...sloTierRows(report));
  for (const b of report.bursts) {
    rows.push({
      kind: 'burst', id: b.profile, title: b.title, context_tokens: b.contextTokens, output_tokens: b.outputTokens,
      limits: `ttft:${b.limit.expression}`, source: 'burst', unit: 'requests', ...ladderColumns(b.result),
    });
  }
  const marked = rows.map((row) => ({ ...predictedColumns(report, null), ...row }));
  const data = marked.map((row) => CAPACITY_COLUMNS.map((k) => row[k] ?? null));
  return `${Papa.unparse({ fields: [...CAPACITY_COLUMNS], data })}\n`;
}
