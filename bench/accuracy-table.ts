// The accuracy study's rows and their tables (bench/accuracy.ts): per level and client, each figure's median and p99
// of per-request differences client - truth, then what the client cost. Renderers return strings. Runs in Node.

import type { ClientName } from './accuracy-args';
import type { Figure, Judgement } from './accuracy-judge';

/** One client at one level: its judgement, or why it has none ("-" in every figure). */
export interface Row {
  readonly loop: 'closed' | 'open';
  /** "256 x 100 tok/s" or "20 req/s". */
  readonly level: string;
  readonly client: ClientName;
  readonly judgement: Judgement | null;
  /** Client CPU per token received, µs: the whole client, and its parts ("k6 6.3 + agent 16.9") where it has two. */
  readonly cpuUsPerToken: number | null;
  readonly cpuParts: string;
  readonly peakRssMb: number | null;
  /** What went wrong, or why the client cannot run the level; '' when nothing. */
  readonly note: string;
}

export const CLIENT_LABEL: Record<ClientName, string> = {
  suite: 'suite (k6 + agent)', vllm: 'vllm bench serve', aiperf: 'AIPerf', guidellm: 'GuideLLM',
};

const f = (v: number, d = 2): string => (Number.isFinite(v) ? v.toFixed(d) : '-');
const pct = (v: number): string => (Number.isFinite(v) ? `${(v * 100).toFixed(1)}%` : '-');
const cellText = (s: string): string => s.replace(/\|/g, '\\|');

const TIMING: readonly { figure: Figure; label: string; open?: true }[] = [
  { figure: 'ttft', label: 'TTFT (ms)' }, { figure: 'itl', label: 'ITL per token (ms)' },
  { figure: 'tpot', label: 'TPOT (ms)' }, { figure: 'e2e', label: 'e2e (ms)' },
  { figure: 'decodeSpeed', label: 'decode speed (%)' }, { figure: 'prefillSpeed', label: 'prefill speed (%)' },
  { figure: 'sendLag', label: 'send lag (ms)', open: true },
  { figure: 'ttftIntended', label: 'TTFT from intended send (ms)', open: true },
  { figure: 'e2eIntended', label: 'e2e from intended send (ms)', open: true },
];

/** One figure's cell: "median / p99" of the differences, "-" when the client gives none. */
function figureCell(j: Judgement | null, figure: Figure): string {
  const x = j?.figures[figure];
  if (x === undefined || x.n === 0) return '-';
  return `${f(x.median)} / ${f(x.p99)}`;
}

/** The error table of one loop: a row per level and client, a column per figure. */
export function renderErrors(rows: readonly Row[], loop: 'closed' | 'open'): string {
  const cols = TIMING.filter((c) => loop === 'open' || c.open !== true);
  const head = [loop === 'closed' ? 'streams x tok/s' : 'offered', 'client', 'requests', ...cols.map((c) => c.label)];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i < 2 ? '---' : '---:')).join('|')}|`];
  for (const r of rows.filter((x) => x.loop === loop)) {
    const j = r.judgement;
    lines.push(`| ${r.level} | ${CLIENT_LABEL[r.client]} | ${j === null ? '-' : j.requests} | ` +
      `${cols.map((c) => figureCell(j, c.figure)).join(' | ')} |`);
  }
  return lines.join('\n');
}

/** The client table: tokens read together, ITL p99, CPU per token, peak RSS and the notes. */
export function renderClient(rows: readonly Row[]): string {
  const lines = [
    '| level | client | read together client / server | ITL p99 client / server (ms) | ITL count differs | ' +
    'CPU per token (µs) | peak RSS (MB) | note |',
    '|---|---|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of rows) {
    const j = r.judgement;
    const cpu = r.cpuUsPerToken === null ? '-' : `${f(r.cpuUsPerToken, 1)}${r.cpuParts ? ` (${r.cpuParts})` : ''}`;
    lines.push(
      `| ${r.level} | ${CLIENT_LABEL[r.client]} | ` +
      `${j ? `${pct(j.together.client)} / ${pct(j.together.truth)}` : '-'} | ` +
      `${j ? `${f(j.itlP99.client)} / ${f(j.itlP99.truth)}` : '-'} | ${j ? j.itlCountMismatches : '-'} | ${cpu} | ` +
      `${r.peakRssMb === null ? '-' : f(r.peakRssMb, 0)} | ${cellText(r.note)} |`,
    );
  }
  return lines.join('\n');
}

const HOW = 'per-request differences client - truth, median (signed) / p99 (of the absolute values); speeds ' +
  'relative to the truth';

/** Both tables with their headings. */
export function renderStudy(rows: readonly Row[]): string {
  const out: string[] = [];
  if (rows.some((r) => r.loop === 'closed'))
    out.push(`Closed loop: ${HOW}`, '', renderErrors(rows, 'closed'));
  if (rows.some((r) => r.loop === 'open'))
    out.push('', `Open loop (Poisson): ${HOW}`, '',
      renderErrors(rows, 'open'));
  out.push('', 'The clients: tokens read together, ITL p99, CPU and memory', '', renderClient(rows));
  return out.join('\n');
}
