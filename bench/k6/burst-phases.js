// The TTFT-burst benchmark's k6 side (bench/ttft-burst.ts): USERS users that each place their run clock on the wall
// clock, then all send one request at the same run time (BURST_AT_MS), as a sweep cell's first round does, through
// the suite's stream module (dist/llm.js) on a stock k6. Each user logs one JSON line with the request's times, so the
// benchmark can set them beside the simulator's record of the same request (x-request-id). Runs in k6.
import exec from 'k6/execution';
import { sleep } from 'k6';
import llm from '../../dist/llm.js';

const users = Number(__ENV.USERS);
const tokens = Number(__ENV.TOKENS);
const burstAtMs = Number(__ENV.BURST_AT_MS);

export const options = {
  scenarios: { burst: { executor: 'per-vu-iterations', vus: users, iterations: 1, maxDuration: '10m' } },
};

const body = JSON.stringify({
  model: __ENV.MODEL, stream: true, stream_options: { include_usage: true }, max_tokens: tokens, ignore_eos: true,
  messages: [{ role: 'user', content: 'Explain continuous batching in two paragraphs.' }],
});

export default async function () {
  llm.calibrateCallClock();
  const waitMs = burstAtMs - exec.instance.currentTestRunDuration;
  if (waitMs > 0) sleep(waitMs / 1000);
  const calledAtMs = exec.instance.currentTestRunDuration;
  const a = await llm.stream({
    url: `${__ENV.BASE_URL}/chat/completions`, headers: { 'Content-Type': 'application/json' }, body,
    timeout: '600s', requestedOutputTokens: tokens, tags: { cell: 'burst' },
  });
  const r = a.record;
  console.log(JSON.stringify({
    id: a.headers['x-request-id'] ?? null, burstAtMs, calledAtMs, zeroEpochMs: llm.epochAt(0),
    startMs: a.startTime, sentMs: a.sentTime, headersMs: a.headersTime, handoffMs: a.health.handoffMs,
    firstTokenMs: r.outcome === 'completed' ? r.startMs + r.ttftMs : null,
    endMs: r.outcome === 'completed' ? r.endMs : null, outcome: r.outcome,
  }));
}
