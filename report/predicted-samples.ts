// A predicted part's samples (npm run bench -- --predict): one record per request of the virtual engine, given to the
// report's samples interface in memory, and stored as predicted-samples.jsonl so the folder can be reported again
// (npm run report, --baseline). The format is the prediction's own, never k6's: k6's CSV is the samples format of
// measured runs only. Layout: docs/reference/contracts.md, "Predicted samples". Runs in Node.

import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { createInterface } from 'node:readline';
import * as v from 'valibot';
import { SAMPLE_TAGS, type RequestMetricKey } from '../lib/metrics';
import { ReportInputError } from './inputs';
import { PREDICTED_SAMPLES_FILE } from './predicted';
import { SamplesCollector, type SamplesData } from './samples-collector';

/** The file's first line: what it is, so it is never taken for anything else. */
export const PREDICTED_SAMPLES_FORMAT = 'k6-llm-capacity predicted samples';
export const PREDICTED_SAMPLES_VERSION = 1;

/** One predicted request, as the virtual engine served it and the Driver phased it (whatif/virtual-samples.ts). */
export interface PredictedRequest {
  /** The cell's scenario tags (lib/options.ts cellTags: cell, script, context, output, concurrency, use_case, ...). */
  readonly tags: Readonly<Record<string, string>>;
  readonly phase: 'measured' | 'warmup' | 'transition';
  /** When it ended, epoch ms, in whole milliseconds as a measured run's samples are stamped. */
  readonly endMs: number;
  readonly ttftMs: number | null;
  readonly ttfcMs: number | null;
  readonly e2eMs: number | null;
  readonly tpotMs: number | null;
  readonly decodeTokensPerSecond: number | null;
  readonly prefillTokensPerSecond: number | null;
  readonly itlMs: readonly number[];
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Prompt tokens the prefix cache served (the simulator states them in its usage, as vLLM does). */
  readonly cachedTokens: number;
  /** Whether it met every limit of its cell's use case; null: the cell has none. */
  readonly goodput: boolean | null;
}

const nullableNumber = v.nullable(v.number());
const numbers = v.custom<number[]>(
  (x) => Array.isArray(x) && x.every((n) => typeof n === 'number'), 'itlMs must be a list of numbers',
);

const RecordSchema = v.object({
  tags: v.pipe(v.record(v.string(), v.string()), v.check((t) => (t.cell ?? '') !== '', 'tags must name the cell')),
  phase: v.picklist(['measured', 'warmup', 'transition']),
  endMs: v.number(),
  ttftMs: nullableNumber, ttfcMs: nullableNumber, e2eMs: nullableNumber, tpotMs: nullableNumber,
  decodeTokensPerSecond: nullableNumber, prefillTokensPerSecond: nullableNumber,
  itlMs: numbers,
  inputTokens: v.number(), outputTokens: v.number(), cachedTokens: v.number(),
  goodput: v.nullable(v.boolean()),
});

const HeaderSchema = v.object({ format: v.literal(PREDICTED_SAMPLES_FORMAT), version: v.number() });

/** The file's first line. */
export function predictedSamplesHeader(): string {
  return JSON.stringify({ format: PREDICTED_SAMPLES_FORMAT, version: PREDICTED_SAMPLES_VERSION });
}

/**
 * A request's samples to the collector, the ones a measured request's k6 script pushes (lib/k6/llm.ts
 * pushRecordSamples), tagged alike; returns how many. The client's own health (llm_client_*) has none: a prediction
 * has no load generator to watch.
 */
export function addPredictedRequest(samples: SamplesCollector, r: PredictedRequest): number {
  const tags: Record<string, string> = { ...r.tags, [SAMPLE_TAGS.phase]: r.phase };
  const usage: Record<string, string> = { ...tags, [SAMPLE_TAGS.tokenSource]: 'usage' };
  const cell = tags.cell ?? '';
  let count = 0;
  const add = (key: RequestMetricKey, value: number, t: Record<string, string> = tags): void => {
    samples.addCellSample(key, cell, t, r.endMs, value);
    count++;
  };
  add('requestOk', 1);
  if (r.goodput !== null) add('goodput', r.goodput ? 1 : 0);
  if (r.ttftMs !== null) add('ttft', r.ttftMs);
  if (r.ttfcMs !== null) add('ttfc', r.ttfcMs);
  if (r.e2eMs !== null) add('e2e', r.e2eMs);
  for (const gap of r.itlMs) add('itl', gap);
  if (r.tpotMs !== null) add('tpot', r.tpotMs);
  if (r.decodeTokensPerSecond !== null) add('decodeSpeed', r.decodeTokensPerSecond);
  if (r.prefillTokensPerSecond !== null) add('prefillSpeed', r.prefillTokensPerSecond);
  add('inputTokens', r.inputTokens, usage);
  add('outputTokens', r.outputTokens, usage);
  add('cachedTokens', r.cachedTokens);
  if (r.ttftMs !== null) add(r.cachedTokens > 0 ? 'ttftCacheHit' : 'ttftCacheMiss', r.ttftMs);
  return count;
}

/** A part's predicted requests gathered, as the report reads a measured part's CSV. */
export function predictedSamples(requests: Iterable<PredictedRequest>): SamplesData {
  const samples = new SamplesCollector();
  let rows = 0;
  for (const r of requests) rows += addPredictedRequest(samples, r);
  return samples.finish({ rows, skippedRows: 0, partialTailBytes: 0, malformedRows: 0 });
}

/** Whether a part's samples file is a prediction's (by its name: a measured part's is samples.csv). */
export function isPredictedSamplesFile(path: string): boolean {
  return basename(path) === PREDICTED_SAMPLES_FILE;
}

/** Reads a stored predicted-samples.jsonl back through the samples interface; a damaged file is one-line bad input. */
export async function readPredictedSamples(path: string): Promise<SamplesData> {
  const samples = new SamplesCollector();
  let rows = 0;
  let line = 0;
  const bad = (what: string) => new ReportInputError(
    `${path}:${line}: ${what}: not a predicted-samples file of this suite (predict the run again)`,
  );
  try {
    for await (const text of createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity })) {
      line++;
      if (text === '') continue;
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch {
        throw bad('not JSON');
      }
      if (line === 1) {
        const header = v.safeParse(HeaderSchema, raw);
        if (!header.success) throw bad(`no "${PREDICTED_SAMPLES_FORMAT}" header`);
        if (header.output.version > PREDICTED_SAMPLES_VERSION) {
          throw bad(`version ${header.output.version}, newer than this report's ${PREDICTED_SAMPLES_VERSION}`);
        }
        continue;
      }
      const record = v.safeParse(RecordSchema, raw);
      if (!record.success) throw bad(record.issues[0].message);
      rows += addPredictedRequest(samples, record.output);
    }
  } catch (e) {
    if (e instanceof ReportInputError) throw e;
    throw new ReportInputError(`cannot read ${path}: ${(e as Error).message}`);
  }
  if (line === 0) throw new ReportInputError(`${path} is empty: predict the run again`);
  return samples.finish({ rows, skippedRows: 0, partialTailBytes: 0, malformedRows: 0 });
}
