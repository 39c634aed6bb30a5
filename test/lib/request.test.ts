// Tests for lib/request.ts: streaming request bodies and headers, and redaction of the API key. Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import { resolvePlan, type TargetConfig } from '../../lib/plan';
import {
  buildHeaders,
  buildRequestBody,
  buildStreamingRequest,
  endpointPath,
  errorMessageForResults,
  redactSecret,
} from '../../lib/request';

const target: TargetConfig = resolvePlan({ target: { baseUrl: 'http://gpu:8000/v1', model: 'qwen' } }, 'sweep').target;

describe('buildRequestBody', () => {
  it('chat: messages, streaming with usage, max_tokens, ignore_eos and the seed by default', () => {
    expect(buildRequestBody(target, { prompt: 'Hello', maxTokens: 128 })).toEqual({
      model: 'qwen',
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 128,
      temperature: 0,
      messages: [{ role: 'user', content: 'Hello' }],
      ignore_eos: true,
      seed: 42,
    });
  });

  it('completions: prompt instead of messages', () => {
    const body = buildRequestBody({ ...target, api: 'completions' }, { prompt: 'Once', maxTokens: 8 });
    expect(body.prompt).toBe('Once');
    expect(body).not.toHaveProperty('messages');
    expect(body).toMatchObject({ stream: true, stream_options: { include_usage: true }, max_tokens: 8 });
  });

  it('switches: min_tokens = max_tokens when enabled; no ignore_eos or seed when off', () => {
    expect(buildRequestBody({ ...target, minTokens: true }, { prompt: 'x', maxTokens: 256 })).toMatchObject({
      min_tokens: 256, max_tokens: 256, ignore_eos: true,
    });
    const plain = buildRequestBody(
      { ...target, ignoreEos: false, seed: null, temperature: 0.7 }, { prompt: 'x', maxTokens: 4 },
    );
    expect(plain).not.toHaveProperty('ignore_eos');
    expect(plain).not.toHaveProperty('seed');
    expect(plain).not.toHaveProperty('min_tokens');
    expect(plain.temperature).toBe(0.7);
  });
});

describe('headers and the API key', () => {
  it('sends JSON and accepts SSE; Authorization only with a key', () => {
    expect(buildHeaders(null)).toEqual({ 'Content-Type': 'application/json', Accept: 'text/event-stream' });
    expect(buildHeaders('')).toEqual({ 'Content-Type': 'application/json', Accept: 'text/event-stream' });
    expect(buildHeaders('sk-secret')).toEqual({
      'Content-Type': 'application/json', Accept: 'text/event-stream', Authorization: 'Bearer sk-secret',
    });
  });

  it('puts the key in the Authorization header and nowhere else', () => {
    const spec = buildStreamingRequest(target, { prompt: 'p', maxTokens: 1 }, 'sk-secret-123');
    expect(spec.url).toBe('http://gpu:8000/v1/chat/completions');
    expect(spec.headers.Authorization).toBe('Bearer sk-secret-123');
    expect(spec.url).not.toContain('sk-secret-123');
    expect(spec.body).not.toContain('sk-secret-123');
    expect(
      Object.entries(spec.headers)
        .filter(([, v]) => v.includes('sk-secret-123'))
        .map(([k]) => k),
    ).toEqual(['Authorization']);
    expect(JSON.parse(spec.body)).toEqual(buildRequestBody(target, { prompt: 'p', maxTokens: 1 }));
  });

  it('endpointPath per API style', () => {
    expect([endpointPath('chat'), endpointPath('completions')]).toEqual(['/chat/completions', '/completions']);
    expect(buildStreamingRequest({ ...target, api: 'completions' }, { prompt: 'p', maxTokens: 1 }, null).url).toBe(
      'http://gpu:8000/v1/completions',
    );
  });
});

describe('redactSecret', () => {
  it('replaces every occurrence of the key', () => {
    expect(redactSecret('401: key sk-1 rejected (sk-1)', 'sk-1')).toBe('401: key [redacted] rejected ([redacted])');
  });

  it('leaves the message alone without a key', () => {
    expect(redactSecret('no key here', null)).toBe('no key here');
    expect(redactSecret('no key here', '')).toBe('no key here');
  });
});

describe('errorMessageForResults', () => {
  it('redacts the key, folds line breaks and cuts to the limit', () => {
    expect(errorMessageForResults('bad key sk-1\n  at line 2\r\n', 'sk-1', 200)).toBe('bad key [redacted] at line 2');
    expect(errorMessageForResults('x'.repeat(300), null, 200)).toHaveLength(200);
    // Redaction happens before the cut, so a key straddling the limit never leaks in part.
    expect(errorMessageForResults(`${'a'.repeat(195)}sk-123456789`, 'sk-123456789', 200)).toBe(
      `${'a'.repeat(195)}[reda`,
    );
  });
});
