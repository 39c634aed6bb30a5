// The synthetic agent-trace samples of examples/traces/: Mooncake rows with AIPerf's session_id and delay, and an
// OpenTelemetry (OTLP JSON) span export of the GenAI conventions. Runs in Node (scripts/make-trace-samples.ts).
//
// Each row or export line says it is synthetic (a `synthetic` field, a resource attribute). A session's calls resend
// its history: each prompt is the previous one, its answer and a tool's result, so its full blocks repeat.

import { mulberry32 } from '../lib/random';
import { between, idCounter } from './synthetic-trace';

interface SampleCall {
  readonly input: number;
  readonly output: number;
  readonly hashIds: readonly number[];
  /** ms after the previous call's answer (tool and think time); 0 for the first. */
  readonly gapMs: number;
  /** How long the recorded call took, ms (for the span export). */
  readonly durationMs: number;
}

/** `sessions` agent sessions of 3-5 calls, all starting with one 1,024-token system prompt (two 512-token blocks). */
function sampleSessions(seed: number, sessions: number): SampleCall[][] {
  const random = mulberry32(seed);
  const fresh = idCounter(100);
  const system = [1, 2];
  return Array.from({ length: sessions }, () => {
    const calls: SampleCall[] = [];
    let input = 1024 + between(random, 40, 300);
    let hashIds = [...system, ...fresh(Math.ceil(input / 512) - system.length)];
    for (let k = 0, n = between(random, 3, 5); k < n; k++) {
      const output = between(random, 8, 48);
      calls.push({ input, output, hashIds, gapMs: k === 0 ? 0 : between(random, 200, 1500),
        durationMs: between(random, 300, 2000) });
      const kept = hashIds.slice(0, Math.floor(input / 512));
      input += output + between(random, 60, 400);
      hashIds = [...kept, ...fresh(Math.ceil(input / 512) - kept.length)];
    }
    return calls;
  });
}

/** 6 sessions as AIPerf's Mooncake agent rows: the first with its timestamp, the rest with their delay. */
export function agentMooncake(): string {
  const lines: string[] = [];
  sampleSessions(7, 6).forEach((calls, s) => calls.forEach((c, k) => {
    const when = k === 0 ? { timestamp: s * 1500 } : { delay: c.gapMs };
    lines.push(JSON.stringify({
      session_id: `agent-${s + 1}`, ...when, input_length: c.input, output_length: c.output, hash_ids: c.hashIds,
      synthetic: true,
    }));
  }));
  return lines.join('\n') + '\n';
}

const BASE_SECONDS = 1_764_921_600; // 2025-12-05 08:00 UTC

/** A time as OTLP JSON writes int64 ns: a decimal string. */
function nanos(ms: number): string {
  const whole = Math.floor(ms);
  return `${BASE_SECONDS + Math.floor(whole / 1000)}${String((whole % 1000) * 1e6).padStart(9, '0')}`;
}

type Attribute = { key: string; value: Record<string, unknown> };
const str = (key: string, v: string): Attribute => ({ key, value: { stringValue: v } });
const int = (key: string, v: number): Attribute => ({ key, value: { intValue: String(v) } });

function span(trace: string, id: number, parent: number | null, name: string, fromMs: number, toMs: number,
  attributes: Attribute[]): Record<string, unknown> {
  const hex = (n: number) => n.toString(16).padStart(16, '0');
  return {
    traceId: trace, spanId: hex(id), ...(parent === null ? {} : { parentSpanId: hex(parent) }), name,
    kind: parent === null ? 1 : 3, startTimeUnixNano: nanos(fromMs), endTimeUnixNano: nanos(toMs), attributes,
  };
}

/** One agent run's spans: invoke_agent around chat spans, with an execute_tool span in each gap. */
function runSpans(calls: readonly SampleCall[], s: number, startMs: number): Record<string, unknown>[] {
  const trace = (0xa9e7 + s).toString(16).padStart(32, '0');
  const spans: Record<string, unknown>[] = [];
  let t = startMs;
  let id = 2;
  calls.forEach((c, k) => {
    if (k > 0) {
      // The tool runs in the gap; what is left of it is the agent's own time.
      spans.push(span(trace, id++, 1, 'execute_tool read_file', t, t + c.gapMs * 0.8, [
        str('gen_ai.operation.name', 'execute_tool'), str('gen_ai.tool.name', 'read_file')]));
      t += c.gapMs;
    }
    spans.push(span(trace, id++, 1, 'chat synthetic-model', t, t + c.durationMs, [
      str('gen_ai.operation.name', 'chat'), str('gen_ai.request.model', 'synthetic-model'),
      int('gen_ai.usage.input_tokens', c.input), int('gen_ai.usage.output_tokens', c.output)]));
    t += c.durationMs;
  });
  spans.unshift(span(trace, 1, null, 'invoke_agent synthetic-agent', startMs, t, [
    str('gen_ai.operation.name', 'invoke_agent'), str('gen_ai.agent.name', 'synthetic-agent')]));
  return spans;
}

/** 4 agent runs as an OTLP JSON export, one ExportTraceServiceRequest per line (the Collector file exporter's). */
export function agentOtel(): string {
  const synthetic = { key: 'synthetic', value: { boolValue: true } };
  const resource = { attributes: [str('service.name', 'synthetic-agent'), synthetic] };
  const lines = sampleSessions(11, 4).map((calls, s) => JSON.stringify({
    resourceSpans: [{ resource, scopeSpans: [{ scope: { name: 'synthetic' }, spans: runSpans(calls, s, s * 2000) }] }],
  }));
  return lines.join('\n') + '\n';
}
