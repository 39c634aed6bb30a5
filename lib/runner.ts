// One k6 process of a split run: who it is (runner.json) and its share of a plan's cells. Runs in k6 and Node.
//
// A split run is k6's own mechanism (lib/segments.ts): n processes, each with an execution segment,
// each running its share of every cell's users. The script records its segment in runner.json beside
// its samples, so the report can put the runners' folders back together and name the ones missing.

import * as v from 'valibot';
import type { Cell } from './plan';
import { cellVus } from './plan-schedule';
import { int, parseOrThrow, text } from './schema';
import { segmentPosition, type SegmentPosition } from './segments';

/** runner.json: one k6 process of a split run (docs/reference/contracts.md, "Split runs"). */
export interface RunnerInfo {
  readonly schemaVersion: 1;
  /** 1-based, in sequence order: runner 1 holds segment 0:1/n. */
  readonly runner: number;
  readonly runners: number;
  /** k6's spelling: "1/4:1/2" in "0,1/4,1/2,3/4,1". */
  readonly segment: string;
  readonly sequence: string;
  /** The --tag instance_id the k6-operator gives each runner (null when there is none). */
  readonly instanceId: string | null;
}

export const RUNNER_FILE = 'runner.json';

/** The parts of k6's consolidated options (exec.test.options) that place a process in a split run. */
export interface SegmentOptions {
  readonly executionSegment?: string | null;
  readonly executionSegmentSequence?: string | null;
  readonly tags?: Readonly<Record<string, string>> | null;
}

/** Where this process stands; null in a run that is not split (no segment, or the whole 0:1). */
export function runnerOf(options: SegmentOptions): { info: RunnerInfo; position: SegmentPosition } | null {
  const position = segmentPosition(options.executionSegment ?? null, options.executionSegmentSequence ?? null);
  if (position.count === 1) return null;
  const info: RunnerInfo = {
    schemaVersion: 1,
    runner: position.index + 1,
    runners: position.count,
    segment: position.segment,
    sequence: position.sequence,
    instanceId: options.tags?.instance_id ?? null,
  };
  return { info, position };
}

/** "runner 2 of 4 (segment 1/4:1/2)": how the suite names a runner everywhere. */
export function runnerLabel(info: Pick<RunnerInfo, 'runner' | 'runners' | 'segment'>): string {
  return `runner ${info.runner} of ${info.runners} (segment ${info.segment})`;
}

/**
 * VUs of a cell that runner `index` (0-based) runs (users, or a rate cell's senders): k6 splits a per-vu-iterations
 * scenario's VUs, not its iterations.
 */
export function cellShare(
  position: Pick<SegmentPosition, 'index' | 'striped'>, cell: Pick<Cell, 'concurrency' | 'arrivals'>,
): number {
  return position.striped.share(position.index, cellVus(cell));
}

/** The cells of a plan that have fewer users than runners and none on this runner, by id. */
export function cellsWithoutShare(
  position: Pick<SegmentPosition, 'index' | 'striped'>, cells: readonly Cell[],
): string[] {
  return cells.filter((cell) => cellShare(position, cell) === 0).map((cell) => cell.id);
}

const RunnerInfoSchema = v.object({
  schemaVersion: v.literal(1, 'must be 1'),
  runner: int(1),
  runners: int(1),
  segment: text,
  sequence: text,
  instanceId: v.nullable(v.string('must be a string or null')),
});

/** Reads runner.json; throws an Error whose message names the file and the field. */
export function readRunnerInfo(raw: unknown, source: string): RunnerInfo {
  const info = parseOrThrow(RunnerInfoSchema, raw, (field, message) => new Error(`${source}: ${field} ${message}`));
  const position = segmentPosition(info.segment, info.sequence);
  if (position.index + 1 !== info.runner || position.count !== info.runners) {
    throw new Error(
      `${source}: runner ${info.runner} of ${info.runners} does not hold segment ${info.segment} of ${info.sequence}`,
    );
  }
  return info;
}
