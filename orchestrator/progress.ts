// Run progress from the growing k6 CSV (works the same for k6 and the local runner): per-cell request counts, and renderers that return strings. Runs in Node.

import { closeSync, openSync, readSync, statSync } from 'node:fs';
import Papa from 'papaparse';
import { REQUEST_METRICS } from '../lib/metrics';
import { parseErrorMessage } from '../report/read-samples';
import type { Plan } from '../lib/plan';

export interface CellProgress {
  readonly id: string;
  readonly planned: number;
  done: number;
  failed: number;
}

export interface ProgressState {
  readonly part: string;
  readonly partIndex: number;
  readonly partCount: number;
  readonly cells: CellProgress[];
  /** Seconds since the part's engine started. */
  elapsedSeconds: number;
  readonly totalSeconds: number;
}

/** Requests per outcome over a part's cells: cut = planned requests of cells that started but never ended (slot end, Ctrl-C). */
export function requestCounts(state: ProgressState): { planned: number; succeeded: number; failed: number; cut: number } {
  let planned = 0, ended = 0, failed = 0, cut = 0;
  for (const c of state.cells) {
    planned += c.planned;
    ended += c.done;
    failed += c.failed;
    if (c.done > 0) cut += Math.max(0, c.planned - c.done);
  }
  return { planned, succeeded: ended - failed, failed, cut };
}

export function initialProgress(plan: Plan, partIndex: number, partCount: number): ProgressState {
  return {
    part: plan.script,
    partIndex,
    partCount,
    cells: plan.cells.map((c) => ({ id: c.id, planned: c.concurrency * c.rounds, done: 0, failed: 0 })),
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
        if (!line.startsWith(REQUEST_METRICS.requestOk.name + ',')) continue;
        const fields = line.split(',');
        const scenario = fields[this.scenarioColumn];
        if (scenario) onRequest(scenario, Number(fields[2]) !== 0);
      }
    } finally {
      closeSync(fd);
    }
  }

  private noteError(line: string): void {
    // Messages may hold commas and quotes: this line goes through a CSV parser (failures are rare).
    const fields = Papa.parse<string[]>(line).data[0] ?? [];
    const at = (name: string) => fields[this.header.indexOf(name)] ?? '';
    const cell = at('scenario');
    const kind = /(?:^|&)error_kind=([^&]*)/.exec(at('extra_tags'))?.[1] ?? 'unknown';
    const message = parseErrorMessage(at('metadata')) ?? '';
    const key = `${cell}\u0000${kind}\u0000${message}`;
    const known = this.errorMessages.get(key);
    if (known) known.count++;
    else if (this.errorMessages.size < 100) this.errorMessages.set(key, { cell, kind, message, count: 1 });
  }
}

/** The most frequent messages per cell and kind (at most `top` each), as lines for the end of a part; '' without failures. */
export function renderErrorMessages(counts: Iterable<ErrorMessageCount>, top = 3): string {
  const groups = new Map<string, ErrorMessageCount[]>();
  for (const c of counts) {
    const key = `${c.cell} ${c.kind}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  if (groups.size === 0) return '';
  const lines = ['failures, most frequent messages per cell and kind:'];
  for (const [key, list] of groups) {
    for (const c of list.sort((a, b) => b.count - a.count).slice(0, top)) lines.push(`  ${key} x${c.count}: ${c.message || '(no message)'}`);
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

/** The cell in progress: the first one not yet complete. */
export function currentCell(state: ProgressState): { index: number; cell: CellProgress } | null {
  const index = state.cells.findIndex((c) => c.done < c.planned);
  return index < 0 ? null : { index, cell: state.cells[index]! };
}

/**
 * One status line, most important first so a narrow terminal cuts only the cell name:
 * "[capacity 2/2] cell 3/12 | 12/40 requests | elapsed 1m12s | ETA <= 2m30s | capacity_general_chatbot_n8 4/8".
 */
export function renderProgressLine(state: ProgressState): string {
  const done = state.cells.reduce((n, c) => n + c.done, 0);
  const planned = state.cells.reduce((n, c) => n + c.planned, 0);
  const failed = state.cells.reduce((n, c) => n + c.failed, 0);
  const current = currentCell(state);
  const where = current ? `cell ${current.index + 1}/${state.cells.length}` : `all ${state.cells.length} cells done`;
  const eta = state.totalSeconds - state.elapsedSeconds;
  const parts = [
    `[${state.part} ${state.partIndex + 1}/${state.partCount}] ${where}`,
    `${done}/${planned} requests${failed ? `, ${failed} failed` : ''}`,
    `elapsed ${duration(state.elapsedSeconds)}`,
  ];
  if (current) parts.push(`ETA <= ${duration(eta)}`, `${current.cell.id} ${current.cell.done}/${current.cell.planned}`);
  return parts.join(' | ');
}
