// Run progress from the growing k6 CSV : per-cell request counts, and renderers that return strings. Runs in Node.

import { closeSync, openSync, readSync, statSync } from 'node:fs';
import Papa from 'papaparse';
import { METRICS, REQUEST_METRICS, REQUEST_SPAN_KEYS } from '../lib/metrics';
import { parseErrorMessage } from '../analysis/sample-text';
import { cellRequests, type Plan } from '../lib/plan';

/** How a CSV row of a request's whole time begins (lib/metrics.ts REQUEST_SPAN_KEYS). */
const SPAN_ROW_STARTS = REQUEST_SPAN_KEYS.map((key) => `${METRICS[key].name},`);

export interface CellProgress {
  readonly id: string;
  /**
   * Requests the cell sends; null for a step that holds its time instead (sessions, agentic in k6's slots), whose
   * users send as many as fit.
   */
  readonly planned: number | null;
  /** When its slot and grace end, seconds from the part's start. */
  readonly endsAtSeconds: number;
  done: number;
  failed: number;
}

/** Where a bench-driven part stands (orchestrator/driver.ts), shown instead of the slot-based cell count. */
export interface DrivenProgress {
  /** The step running: its cell, users, requests ended in it and how many of those were measured. */
  readonly step: {
    readonly id: string; readonly index: number; readonly users: number; readonly ended: number;
    readonly measured: number; readonly warmingUsers: number;
  } | null;
  /** For the capacity search: the use case, its place in the list, and the interval so far [last pass, first fail). */
  readonly search: {
    readonly useCase: string; readonly index: number; readonly count: number; readonly lastPass: number | null;
    readonly firstFail: number | null;
  } | null;
  /** Estimated seconds left; null when unknown. */
  readonly etaSeconds: number | null;
  /** Requests ended in the part so far, and how many of them failed. */
  readonly ended: number;
  readonly failed: number;
}

export interface ProgressState {
  readonly part: string;
  readonly partIndex: number;
  readonly partCount: number;
  readonly cells: CellProgress[];
  /** Seconds since the part's engine started. */
  elapsedSeconds: number;
  readonly totalSeconds: number;
  /** Set while the bench drives the part. */
  driven?: DrivenProgress;
}

/**
 * Requests per outcome over a part's cells: cut = planned requests of cells that started but never ended (slot end,
 * Ctrl-C).
 */
export function requestCounts(
  state: ProgressState,
): { planned: number; succeeded: number; failed: number; cut: number } {
  let planned = 0, ended = 0, failed = 0, cut = 0;
  for (const c of state.cells) {
    planned += c.planned ?? c.done;
    ended += c.done;
    failed += c.failed;
    if (c.done > 0 && c.planned !== null) cut += Math.max(0, c.planned - c.done);
  }
  return { planned, succeeded: ended - failed, failed, cut };
}

/** A cell that holds its time rather than a count of requests: a sessions or agentic step in k6's slots. */
function holdsItsTime(c: Plan['cells'][number]): boolean {
  return c.script === 'sessions' || c.script === 'agentic';
}

/** Requests the part's cells plan; null when one of them holds its time instead (a count is not known before). */
export function plannedRequests(state: Pick<ProgressState, 'cells'>): number | null {
  return state.cells.some((c) => c.planned === null) ? null : state.cells.reduce((n, c) => n + c.planned!, 0);
}

export function initialProgress(plan: Plan, partIndex: number, partCount: number): ProgressState {
  return {
    part: plan.script,
    partIndex,
    partCount,
    cells: plan.cells.map((c) => ({
      id: c.id, planned: holdsItsTime(c) ? null : cellRequests(c),
      endsAtSeconds: c.startSeconds + c.maxDurationSeconds + c.gracefulStopSeconds, done: 0, failed: 0,
    })),
    elapsedSeconds: 0,
    totalSeconds: plan.totalSeconds,
  };
}

/** How often one cell saw one error kind with one message (k6 sample metadata error_message). */
export interface ErrorMessageCount {
  readonly cell: string;
  readonly kind: string;
  readonly message: string;
  count: number;
}

/**
 * Reads the lines appended to a CSV since the last call and counts llm_request_ok samples per
 * scenario (one per request), and the failures' messages per cell and kind. Only whole lines are
 * consumed; a partial last line waits.
 */
export class CsvTail {
  private offset = 0;
  private carry = '';
  private scenarioColumn = -1;
  private header: string[] = [];
  /** Keyed by cell, kind and message; at most 100 distinct messages are kept per part. */
  readonly errorMessages = new Map<string, ErrorMessageCount>();
  /** [start, end] of every measured request (llm_e2e samples), epoch ms: when requests were running. */
  readonly requestSpans: [number, number][] = [];

  constructor(private readonly file: string) {}

  poll(onRequest: (scenario: string, ok: boolean) => void): void {
    let size: number;
    try {
      size = statSync(this.file).size;
    } catch {
      return; // Not created yet.
    }
    if (size <= this.offset) return;
    const fd = openSync(this.file, 'r');
    try {
      const buffer = Buffer.alloc(size - this.offset);
      readSync(fd, buffer, 0, buffer.length, this.offset);
      this.offset = size;
      const text = this.carry + buffer.toString('utf8');
      const lines = text.split('\n');
      this.carry = lines.pop() ?? '';
      for (const line of lines) {
        if (this.scenarioColumn < 0) {
          this.header = line.split(',');
          this.scenarioColumn = this.header.indexOf('scenario');
          continue;
        }
        if (line.startsWith(REQUEST_METRICS.errors.name + ',')) this.noteError(line);
        if (SPAN_ROW_STARTS.some((start) => line.startsWith(start))) {
          const f = line.split(',', 3);
          const end = Number(f[1]);
          const e2e = Number(f[2]);
          if (isFinite(end) && isFinite(e2e)) this.requestSpans.push([end - e2e, end]);
        }
        if (!line.startsWith(REQUEST_METRICS.requestOk.name + ',')) continue;
        const fields = line.split(',');
        // A bench-driven run has one scenario for every cell: the cell tag names the cell.
        // extra_tags follows a comma and lists its tags in no stable order.
        const cell = /[,&]cell=([^&,]*)/.exec(line)?.[1] ?? fields[this.scenarioColumn];
        if (cell) onRequest(cell, Number(fields[2]) !== 0);
      }
    } finally {
      closeSync(fd);
    }
  }

  private noteError(line: string): void {
    // Messages may hold commas and quotes: this line goes through a CSV parser (failures are rare).
    const fields = Papa.parse<string[]>(line).data[0] ?? [];
    const at = (name: string) => fields[this.header.indexOf(name)] ?? '';
    const cell = /(?:^|&)cell=([^&]*)/.exec(at('extra_tags'))?.[1] ?? at('scenario');
    const kind = /(?:^|&)error_kind=([^&]*)/.exec(at('extra_tags'))?.[1] ?? 'unknown';
    const message = parseErrorMessage(at('metadata')) ?? '';
    const key = `${cell}\u0000${kind}\u0000${message}`;
    const known = this.errorMessages.get(key);
    if (known) known.count++;
    else if (this.errorMessages.size < 100) this.errorMessages.set(key, { cell, kind, message, count: 1 });
  }
}

/**
 * The most frequent messages per cell and kind (at most `top` each), as lines for the end of a part; '' without
 * failures.
 */
export function renderErrorMessages(counts: Iterable<ErrorMessageCount>, top = 3): string {
  const groups = new Map<string, ErrorMessageCount[]>();
  for (const c of counts) {
    const key = `${c.cell} ${c.kind}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  if (groups.size === 0) return '';
  const lines = ['failures, most frequent messages per cell and kind:'];
  for (const [key, list] of groups) {
    for (const c of list.sort((a, b) => b.count - a.count).slice(0, top))
      lines.push(`  ${key} x${c.count}: ${c.message || '(no message)'}`);
  }
  return lines.join('\n');
}

export function applyRequest(state: ProgressState, scenario: string, ok: boolean): void {
  const cell = state.cells.find((c) => c.id === scenario);
  if (!cell) return;
  cell.done++;
  if (!ok) cell.failed++;
}

function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const m = Math.floor(s / 60);
  return m > 0 ? `${m}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

/** The cell in progress: the first one not yet complete (a held step, until its slot ends). */
export function currentCell(state: ProgressState): { index: number; cell: CellProgress } | null {
  const index = state.cells.findIndex((c) =>
    (c.planned === null ? state.elapsedSeconds < c.endsAtSeconds : c.done < c.planned));
  return index < 0 ? null : { index, cell: state.cells[index]! };
}

/**
 * One status line, most important first so a narrow terminal cuts only the cell name:
 * "[capacity 2/2] cell 3/12 | 12/40 requests | elapsed 1m12s | ETA <= 2m30s | capacity_general_chatbot_n8 4/8".
 */
export function renderProgressLine(state: ProgressState): string {
  if (state.driven) return renderDrivenLine(state, state.driven);
  const done = state.cells.reduce((n, c) => n + c.done, 0);
  const planned = plannedRequests(state);
  const failed = state.cells.reduce((n, c) => n + c.failed, 0);
  const current = currentCell(state);
  const where = current ? `cell ${current.index + 1}/${state.cells.length}` : `all ${state.cells.length} cells done`;
  const eta = state.totalSeconds - state.elapsedSeconds;
  const parts = [
    `[${state.part} ${state.partIndex + 1}/${state.partCount}] ${where}`,
    `${done}${planned === null ? '' : `/${planned}`} requests${failed ? `, ${failed} failed` : ''}`,
    `elapsed ${duration(state.elapsedSeconds)}`,
  ];
  const of = (c: CellProgress): string => (c.planned === null ? '' : `/${c.planned}`);
  if (current) parts.push(`ETA <= ${duration(eta)}`, `${current.cell.id} ${current.cell.done}${of(current.cell)}`);
  return parts.join(' | ');
}

/**
 * The status line of a bench-driven part, e.g. "[capacity 2/2] general_chatbot 3/5 | 8 users | step: 12
 * requests, 6 measured | capacity in [4, 16) | elapsed 1m12s | ETA ~2m30s".
 */
export function renderDrivenLine(state: ProgressState, d: DrivenProgress): string {
  const done = d.ended;
  const failed = d.failed;
  const head = `[${state.part} ${state.partIndex + 1}/${state.partCount}]`;
  const parts: string[] = [];
  if (d.search) parts.push(`${head} ${d.search.useCase} ${d.search.index + 1}/${d.search.count}`);
  else parts.push(`${head} ${d.step ? `cell ${d.step.index + 1}/${state.cells.length}` : 'finishing'}`);
  if (d.step) {
    parts.push(`${d.step.users} user${d.step.users === 1 ? '' : 's'}`);
    const warming = d.step.warmingUsers > 0 ? `, ${d.step.warmingUsers} warming up` : '';
    parts.push(
      d.search
        ? `step: ${d.step.ended} requests, ${d.step.measured} measured${warming}`
        : `${d.step.id} ${d.step.ended}/${state.cells[d.step.index]?.planned ?? '?'}`,
    );
  }
  if (d.search) {
    const lo = d.search.lastPass;
    if (d.search.firstFail !== null) parts.push(`capacity in [${lo ?? 0}, ${d.search.firstFail})`);
    else if (lo !== null) parts.push(`capacity >= ${lo}`);
  }
  parts.push(`${done} requests${failed ? `, ${failed} failed` : ''}`, `elapsed ${duration(state.elapsedSeconds)}`);
  if (d.etaSeconds !== null) parts.push(`ETA ~${duration(d.etaSeconds)}`);
  return parts.join(' | ');
}
