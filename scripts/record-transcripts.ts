// `npm run record-transcripts`: records streams as golden transcripts for the Go tests. Runs in Node.
// By default the simulator's (its vLLM and SGLang flavours and every injected fault); with --target vllm or
// --target sglang, the real server's (started as --target starts it for the bench): a chat stream with usage,
// one without, /v1/completions, a repeated prompt with cached tokens, a prompt beyond the window (400), a
// Responses and a Messages stream, and for SGLang a stream that carried several tokens in one chunk under load;
// with --target llama, llama.cpp's Responses and Messages streams.
//
// Each response is written byte for byte to agent/testdata/transcripts/<source>-<case>.http in
// the transcript format (agent/transcript_test.go): comment lines, status, content type, how the
// response ended (eof, or reset when the connection was cut), a blank line, the body. Then
// `cd agent && go test -run TestTranscripts -update` writes their expected records, to be read
// before they are committed. Request ids and `created` differ per recording; nothing else does.

import { startSim } from '../sim/server';
import { Command, Option } from 'commander';
import { EXIT } from '../lib/exit-codes';
import { parseCommandLine, runMain } from './cli';
import { recordRealServer } from './record-real-transcripts';
import { send, writeTranscript } from './transcript-file';

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

async function recordSim(): Promise<void> {
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
        const faultNote = c.fault ? `x-sim-fault: ${c.fault}` : 'no fault';
        const endpoint = completions ? '/v1/completions' : '/v1/chat/completions';
        writeTranscript(`sim-${flavour}-${c.name}`, [
          `Recorded from the simulator (${flavour} flavour, fixed timing, 8 tokens) by npm run record-transcripts:`,
          `${faultNote}, ${endpoint}.`,
        ], r);
      }
    } finally {
      await sim.close();
    }
  }
}

runMain('record-transcripts', async () => {
  const program = new Command('record-transcripts')
    .description('Record streams as golden transcripts of agent/testdata/transcripts (the simulator by default).')
    .addOption(new Option('--target <server>', 'a real server to record instead').choices(['vllm', 'sglang', 'llama']))
    .exitOverride()
    .configureOutput({ writeErr: () => undefined });
  if (!parseCommandLine(program)) return EXIT.ok;
  const { target } = program.opts<{ target?: 'vllm' | 'sglang' | 'llama' }>();
  if (target) await recordRealServer(target);
  else await recordSim();
  return EXIT.ok;
});
