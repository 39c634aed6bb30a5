// A predicted request's rows of k6's CSV output, as the k6 scripts push them for a measured one (lib/k6/llm.ts
// pushRecordSamples), so the one report reads a predicted part like a measured one. Pure. Runs in Node.
//
// Column layout: report/k6-csv.ts. Every row carries the cell's scenario tags (lib/options.ts cellTags), the request's
// phase and the run's testid; the scenario column is the driven scripts' "driven". The client's own health
// (llm_client_*) has no rows: a prediction has no load generator to watch.

import { metricName, SAMPLE_TAGS, type RequestMetricKey } from '../lib/metrics';
import { cellTags } from '../lib/options';
import type { StepRequest, StepResult } from '../orchestrator/driver';
import type { RequestExtras } from './virtual-drive';

export const K6_CSV_HEADER =
  'metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,scenario,' +
  'service,status,subproto,tls_version,url,extra_tags,metadata';

/** Empty columns between metric_value and scenario, and between scenario and extra_tags. */
const BEFORE_SCENARIO = ',,,,,,,,';
const AFTER_SCENARIO = ',,,,,';

/** The extra_tags column of a step's request samples: "k=v&k=v", as k6 writes it (values are ids and numbers). */
export function stepTags(
  step: StepResult, request: StepRequest, testid: string, more: Record<string, string> = {},
): string {
  const tags = { ...cellTags(step.spec.cell), [SAMPLE_TAGS.phase]: request.phase, testid, ...more };
  return Object.entries(tags).map(([k, v]) => `${k}=${v}`).join('&');
}

/**
 * The CSV lines of one completed request, stamped at its end (k6 pushes a request's samples when it ends); `originMs`
 * is the epoch time the virtual clock's 0 stands for.
 */
export function requestRows(
  step: StepResult, request: StepRequest, extras: RequestExtras, originMs: number, testid: string,
): string[] {
  const at = Math.round(originMs + request.endMs);
  const tags = stepTags(step, request, testid);
  const usageTags = stepTags(step, request, testid, { [SAMPLE_TAGS.tokenSource]: 'usage' });
  const row = (key: RequestMetricKey, value: number, t = tags): string =>
    `${metricName(key)},${at},${value.toFixed(6)}${BEFORE_SCENARIO},driven${AFTER_SCENARIO},${t},`;
  const out = [row('requestOk', 1)];
  if (request.goodput !== null) out.push(row('goodput', request.goodput ? 1 : 0));
  if (request.ttftMs !== null) out.push(row('ttft', request.ttftMs), row('ttfc', request.ttftMs));
  if (request.e2eMs !== null) out.push(row('e2e', request.e2eMs));
  for (const gap of request.itlMs) out.push(row('itl', gap));
  if (request.tpotMs !== null) out.push(row('tpot', request.tpotMs));
  if (request.decodeTokensPerSecond !== null) out.push(row('decodeSpeed', request.decodeTokensPerSecond));
  if (request.prefillTokensPerSecond !== null) out.push(row('prefillSpeed', request.prefillTokensPerSecond));
  out.push(row('inputTokens', extras.inputTokens, usageTags), row('outputTokens', request.outputTokens, usageTags));
  // The simulator reports cached prompt tokens in its usage, as vLLM with prompt-token details does.
  out.push(row('cachedTokens', extras.cachedTokens));
  const cacheTtft = extras.cachedTokens > 0 ? 'ttftCacheHit' : 'ttftCacheMiss';
  if (request.ttftMs !== null) out.push(row(cacheTtft, request.ttftMs));
  return out;
}
