// Test helpers for the simulator suites: a small streaming client that timestamps every SSE event.
// Runs in Node (vitest).

import { request as httpRequest } from 'node:http';

export const MODEL_A = 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8';

export interface SseEvent {
  readonly atMs: number;
  readonly data: string;
  /** The `event:` line's name (Responses, Messages, an error event); '' when the event has none. */
  readonly event: string;
}

export interface StreamResult {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly startMs: number;
  readonly events: SseEvent[];
  readonly endMs: number;
  /** Set when the response broke (reset) before its end. */
  readonly error: string | null;
  readonly text: string;
}

/**
 * POSTs JSON with node:http and reads the body as SSE events, each `data:` payload with its arrival
 * time. node:http rather than fetch: fetch's body stream drops chunks already received when the
 * connection is reset, and the reset tests need them.
 */
export function postStream(url: string, body: unknown, headers: Record<string, string> = {}): Promise<StreamResult> {
  const startMs = performance.now();
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const events: SseEvent[] = [];
    let text = '';
    let buf = '';
    let status = 0;
    let resHeaders: Record<string, string | string[] | undefined> = {};
    let settled = false;
    const finish = (error: string | null): void => {
      if (settled) return;
      settled = true;
      resolve({ status, headers: resHeaders, startMs, events, endMs: performance.now(), error, text });
    };
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers },
      },
      (res) => {
        status = res.statusCode ?? 0;
        resHeaders = res.headers;
        res.setEncoding('utf8');
        res.on('data', (s: string) => {
          const atMs = performance.now();
          text += s;
          buf += s;
          let i: number;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const raw = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const event = /^event: (.*)$/m.exec(raw)?.[1] ?? '';
            const data = /^data: (.*)$/m.exec(raw)?.[1];
            if (data !== undefined) events.push({ atMs, data, event });
          }
        });
        res.on('end', () => finish(null));
        res.on('aborted', () => finish('aborted'));
        res.on('error', (e) => finish(e.message));
        res.on('close', () => finish(res.complete ? null : 'closed before the end'));
      },
    );
    req.on('error', (e) => (status === 0 ? reject(e) : finish(e.message)));
    req.end(payload);
  });
}

/** JSON payloads of content chunks (those with a non-empty delta content or text). */
export function contentEvents(r: StreamResult): { atMs: number; text: string; finish: string | null }[] {
  const out: { atMs: number; text: string; finish: string | null }[] = [];
  for (const e of r.events) {
    if (e.data === '[DONE]') continue;
    let j: { choices?: { delta?: { content?: string }; text?: string; finish_reason?: string | null }[] };
    try {
      j = JSON.parse(e.data) as typeof j;
    } catch {
      continue;
    }
    const c = j.choices?.[0];
    const text = c?.delta?.content ?? c?.text ?? '';
    if (text !== '') out.push({ atMs: e.atMs, text, finish: c?.finish_reason ?? null });
  }
  return out;
}

export interface UsageJson {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
}

export function usageOf(r: StreamResult): UsageJson | null {
  for (const e of r.events) {
    if (e.data === '[DONE]') continue;
    try {
      const j = JSON.parse(e.data) as { usage?: UsageJson | null };
      if (j.usage) return j.usage;
    } catch {
      // malformed chunk
    }
  }
  return null;
}

export async function postJson(
  url: string, body: unknown, headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: unknown; text: string }> {
  const res = await fetch(url, {
    method: 'POST', headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: res.status, headers: res.headers, json, text };
}

/** Words that are one token each (" word"), for prompts of a known length. */
export function wordsPrompt(n: number, seed = 1): string {
  const words = ['the', 'of', 'and', 'time', 'people', 'water', 'system', 'number'];
  let s = '';
  for (let i = 0; i < n; i++) s += ' ' + words[(i * 7 + seed) % words.length];
  return s;
}
