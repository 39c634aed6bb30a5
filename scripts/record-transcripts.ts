// `npm run record-transcripts`: records the simulator's streams as golden transcripts for the Go tests. Runs in Node.
// It covers the vLLM and SGLang flavours and every injected fault.
//
// Each response is written byte for byte to agent/testdata/transcripts/sim-<flavour>-<case>.http in
// the transcript format (agent/transcript_test.go): comment lines, status, content type, how the
// response ended (eof, or reset when the connection was cut), a blank line, the body. Then
// `cd agent && go test -run TestTranscripts -update` writes their expected records, to be read
// before they are committed. Request ids and `created` differ per recording; nothing else does.

import { request } from 'node:http';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FAULT_HEADER } from '../sim/faults';
import { startSim } from '../sim/server';
import { runMain } from './cli';

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'agent', 'testdata', 'transcripts');
const MODEL = 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8';

/** The cases: a name and the faults the request asks for ('' for none). */
const CASES: readonly { name: string; fault: string; body?: object }[] = [
  { name: 'ok', fault: '' },
  { name: 'completions', fault: '', body: { prompt: 'Say hi.', messages: undefined } },
  { name: 'error-status-503', fault: 'error-status;status=503' },
  { name: 'error-status-429', fault: 'error-status;status=429' },
  { name: 'json-error', fault: 'json-error' },
  { name: 'reset-mid-stream', fault: 'reset-mid-stream;after=3' },
  { name: 'malformed-chunk', fault: 'malformed-chunk;after=2' },
  { name: 'no-done', fault: 'no-done' },
  { name: 'no-usage', fault: 'no-usage' },
  { name: 'error-in-stream', fault: 'error-in-stream;after=2' },
  { name: 'error-event', fault: 'error-event;after=2' },
  { name: 'bad-request', fault: '', body: { max_tokens: 0 } },
];

interface Recorded {
  status: number;
  contentType: string;
  reset: boolean;
  body: Buffer;
}

function send(base: string, endpoint: string, body: object, fault: string): Promise<Recorded> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${base}${endpoint}`);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (fault) headers[FAULT_HEADER] = fault;
    const req = request(url, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      let reset = false;
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('aborted', () => (reset = true));
      res.on('error', () => (reset = true));
      res.on('close', () =>
        resolve({
          status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''),
          reset: reset || !res.complete, body: Buffer.concat(chunks),
        }),
      );
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

runMain('record-transcripts', async () => {
  for (const flavour of ['vllm', 'sglang'] as const) {
    const sim = await startSim({ port: 0, flavour, fixed: { ttftMs: 5, itlMs: 2 } });
    try {
      for (const c of CASES) {
        const completions = c.name === 'completions';
        const body = {
          model: MODEL, stream: true, stream_options: { include_usage: true }, max_tokens: 8, ignore_eos: true,
          messages: [{ role: 'user', content: 'Say hi.' }], ...c.body,
        };
        const r = await send(sim.url, completions ? '/completions' : '/chat/completions', body, c.fault);
        const header = [
          `# Recorded from the simulator (${flavour} flavour, fixed timing, 8 tokens) by npm run record-transcripts:`,
          `# ${c.fault ? `x-sim-fault: ${c.fault}` : 'no fault'}, ${completions ? '/v1/completions' : '/v1/chat/completions'}.`,
          `status: ${r.status}`,
          `content-type: ${r.contentType.split(';')[0]}`,
          `end: ${r.reset ? 'reset' : 'eof'}`,
          '',
        ].join('\n');
        writeFileSync(path.join(DIR, `sim-${flavour}-${c.name}.http`), Buffer.concat([Buffer.from(header + '\n'), r.body]));
        process.stderr.write(`sim-${flavour}-${c.name}: ${r.status}${r.reset ? ', reset' : ''}, ${r.body.length} bytes\n`);
      }
    } finally {
      await sim.close();
    }
  }
});
