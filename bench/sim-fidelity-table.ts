// The simulator fidelity benchmark's table (bench/sim-fidelity.ts): a row per published figure, the markdown table,
// the TTFT-under-load bracket and the verdict per profile. Pure: the benchmark measures, this only writes. Runs in
// Node.

import type { Kind, Point } from './fidelity-points';
import { median } from '../lib/percentile';

export interface Row {
  readonly label: string;
  readonly metric: string;
  readonly kind: Kind;
  readonly published: number;
  /** The performance model's own prediction in virtual time (no HTTP). */
  readonly model: number | null;
  /** Client-side over HTTP; null for figures only the virtual run can give (max safe queue depth). */
  readonly measured: number | null;
  readonly errorPct: number;
  readonly profile: string;
  readonly cls: Point['cls'];
  /** A burst TTFT or e2e under load: not a fit target; TTFTs are checked by their bracket. */
  readonly bracketOnly: boolean;
  readonly note: string;
  /**
   * TTFT under load only: the mean over closed-loop users in steady state (each user's first request,
   * the arrival burst, excluded), measured over HTTP and predicted in virtual time. The burst round's
   * mean is `measured`; the published figure, whose arrival pattern is not stated, should lie between.
   */
  readonly steady?: { readonly measured: number; readonly model: number };
}

/** The name of a kind of figure in the table, with its unit. */
export function metricName(kind: Kind): string {
  switch (kind) {
    case 'ttft_s':
      return 'TTFT (s)';
    case 'decode_tps':
      return 'decode (tok/s per user)';
    case 'system_tps':
      return 'system throughput (tok/s)';
    case 'users_x_decode_tps':
      return 'system throughput, N x per-user (tok/s)';
    case 'e2e_ms':
      return 'end-to-end (ms)';
    case 'itl_ms':
      return 'ITL (ms)';
    case 'power_w':
      return 'peak power (W)';
    case 'mean_power_w':
      return 'cell mean power (W)';
    case 'max_queue':
      return 'max safe queue depth';
  }
}

export function fmt(v: number, kind: Kind): string {
  switch (kind) {
    case 'ttft_s':
      return v < 1 ? v.toFixed(3) : v.toFixed(2);
    case 'itl_ms':
      return v.toFixed(2);
    default:
      return v.toFixed(1);
  }
}

/** The table as markdown. */
export function renderTable(rows: readonly Row[]): string {
  const lines = [
    '| point | metric | published | model (virtual time) | measured over HTTP | error | note |',
    '|---|---|---:|---:|---:|---:|---|',
  ];
  for (const r of rows) {
    const err = `${r.errorPct >= 0 ? '+' : ''}${r.errorPct.toFixed(1)}%`;
    const measured = r.measured === null ? '(virtual only)' : fmt(r.measured, r.kind);
    lines.push(
      `| ${r.label} | ${r.metric} | ${fmt(r.published, r.kind)} | ${r.model === null ? '' : fmt(r.model, r.kind)} ` +
      `| ${measured} | ${err} | ${r.note} |`,
    );
  }
  return lines.join('\n');
}

/**
 * TTFT under load: the burst round's mean, the steady-state mean, and whether the published figure lies between them.
 */
export function renderBracket(rows: readonly Row[]): string {
  const bracketed = rows.filter((r) => r.steady !== undefined && r.measured !== null);
  if (bracketed.length === 0) return '';
  const lines = [
    'TTFT under load (s): one burst round against closed-loop users in steady state ' +
      '(first request per user left out); ' +
      'the published figure does not say how requests arrived, so it should lie between.',
    '',
    '| point | published | burst, HTTP | steady state, HTTP | burst, model | steady state, model | published ' +
    'inside the HTTP bracket | burst error |',
    '|---|---:|---:|---:|---:|---:|:---:|---:|',
  ];
  let inside = 0;
  for (const r of bracketed) {
    const lo = Math.min(r.measured!, r.steady!.measured);
    const hi = Math.max(r.measured!, r.steady!.measured);
    const ok = r.published >= lo && r.published <= hi;
    if (ok) inside++;
    lines.push(
      `| ${r.label} | ${fmt(r.published, 'ttft_s')} | ${fmt(r.measured!, 'ttft_s')} | ` +
      `${fmt(r.steady!.measured, 'ttft_s')} | ${r.model === null ? '' : fmt(r.model, 'ttft_s')} | ` +
        `${fmt(r.steady!.model, 'ttft_s')} | ${ok ? 'yes' : 'no'} | ` +
        `${r.errorPct >= 0 ? '+' : ''}${r.errorPct.toFixed(1)}% |`,
    );
  }
  lines.push(
    '',
    `${inside} of ${bracketed.length} published TTFTs under load ` +
      'lie inside their burst/steady-state bracket (target: all).',
  );
  return lines.join('\n');
}

const isPower = (k: Kind) => k === 'power_w' || k === 'mean_power_w';

/** Acceptance summary per profile, with the targets of profile A. */
export function renderVerdict(rows: readonly Row[]): string {
  const out: string[] = [];
  for (const letter of [...new Set(rows.map((r) => r.profile))]) {
    const mine = rows.filter((r) => r.profile === letter);
    const single = mine.filter((r) => r.cls === 'single' && !isPower(r.kind));
    if (single.length) {
      const over = single.filter((r) => Math.abs(r.errorPct) > 5).map((r) => `${r.label} ${r.metric}`);
      const max = Math.max(...single.map((r) => Math.abs(r.errorPct)));
      out.push(
        `${letter} single-request figures: max error ${max.toFixed(1)}% (target <= ` +
        `5%)${over.length ? `; over 5%: ${over.join(', ')}` : ''}`,
      );
    }
    const load = mine.filter((r) => r.cls === 'load' && !r.bracketOnly && !isPower(r.kind));
    if (load.length) {
      const e = load.map((r) => Math.abs(r.errorPct));
      const over = load.filter((r) => Math.abs(r.errorPct) > 20).map((r) => `${r.label} ${r.metric}`);
      out.push(
        `${letter} load figures: median error ${median(e).toFixed(1)}% (target < 10%), max ` +
        `${Math.max(...e).toFixed(1)}% (target <= 20%)${over.length ? `; over 20%: ${over.join(', ')}` : ''}`,
      );
    }
    for (const r of mine.filter((x) => isPower(x.kind)))
      out.push(
        `${letter} ${r.metric} at ${r.label}: ${r.errorPct >= 0 ? '+' : ''}${r.errorPct.toFixed(1)}% (target 5%)`,
      );
  }
  return out.join('\n');
}
