// k6/http for one VU: asyncRequest only (the bundles use nothing else), with k6's http_* metrics and tags. Runs in Node.
import { monoToEpochMs } from '../clock';
import { parseDurationMs } from '../durations';
import type { Tags } from '../metrics-engine';
import { esm, notProvided, type Iteration, type VU } from '../vu';
import { performRequest, type RawRequest, type RawResponse } from './http-client';

interface Params {
  headers?: Record<string, unknown>;
  tags?: Record<string, unknown>;
  timeout?: string | number;
  responseType?: 'text' | 'binary' | 'none';
  responseCallback?: ExpectedStatuses | null;
}

/** k6's response callback (what http.expectedStatuses returns): statuses and ranges counted as expected. */
interface ExpectedStatuses {
  readonly __expected: readonly (number | { min: number; max: number })[];
}

function isExpected(status: number, cb: ExpectedStatuses | null): boolean | null {
  if (cb === null) return null;
  return cb.__expected.some((e) => (typeof e === 'number' ? e === status : status >= e.min && status <= e.max));
}

/** k6's default when params.responseCallback is not given: 200-399 are expected. */
const DEFAULT_EXPECTED: ExpectedStatuses = { __expected: [{ min: 200, max: 399 }] };

/**
 * k6/http members the runner does not provide: the suite's bundles use only asyncRequest, with the
 * default response callback (and a blocking call would stall every VU of this one thread).
 */
const NOT_PROVIDED = ['request', 'get', 'head', 'post', 'put', 'patch', 'del', 'options', 'batch', 'expectedStatuses', 'setResponseCallback'];

export function createHttpModule(vu: VU) {
  const rc = vu.rc;

  function toRaw(method: string, url: unknown, body: unknown, params: Params | undefined): RawRequest {
    const headers: Record<string, string> = {};
    if (params?.headers) for (const [k, v] of Object.entries(params.headers)) headers[k] = String(v);
    let payload: string | Uint8Array | null = null;
    if (body !== undefined && body !== null) {
      if (typeof body === 'string') payload = body;
      else if (body instanceof ArrayBuffer) payload = new Uint8Array(body);
      else if (ArrayBuffer.isView(body)) payload = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
      else if (typeof body === 'object') {
        // k6 form-encodes an object body.
        payload = new URLSearchParams(Object.entries(body as Record<string, unknown>).map(([k, v]): [string, string] => [k, String(v)])).toString();
        if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/x-www-form-urlencoded';
      } else payload = String(body);
    }
    const timeoutMs = params?.timeout === undefined ? 60_000 : parseDurationMs(params.timeout, 'http params.timeout');
    return {
      method: method.toUpperCase(),
      url: String(url),
      headers,
      body: payload,
      timeoutMs,
      responseType: params?.responseType ?? 'text',
      insecureSkipTLSVerify: rc.options?.insecureSkipTLSVerify === true,
    };
  }

  function finish(raw: RawResponse, req: RawRequest, params: Params | undefined, iter: Iteration | null): unknown {
    const cb = params?.responseCallback === undefined ? DEFAULT_EXPECTED : params.responseCallback;
    const expected = raw.status === 0 ? (cb === null ? null : false) : isExpected(raw.status, cb);
    const extra: Tags = {};
    if (params?.tags) for (const [k, v] of Object.entries(params.tags)) extra[k] = String(v);
    const tags: Tags = {
      ...vu.metricTags,
      group: '',
      method: req.method,
      url: req.url,
      name: extra.name ?? req.url,
      status: String(raw.status),
      ...extra,
    };
    if (raw.proto) tags.proto = raw.proto;
    if (expected !== null) tags.expected_response = String(expected);
    if (raw.errorCode !== 0) tags.error_code = String(raw.errorCode);
    if (raw.error) tags.error = raw.error;
    const b = rc.builtin;
    const t = raw.timings;
    // k6 stamps every sample of a request with the time its response ended.
    const time = monoToEpochMs(raw.startMono + t.blocked + t.connecting + t.tls_handshaking + t.duration);
    vu.push(b.httpReqs, 1, tags, iter, time);
    vu.push(b.httpReqDuration, t.duration, tags, iter, time);
    vu.push(b.httpReqBlocked, t.blocked, tags, iter, time);
    vu.push(b.httpReqConnecting, t.connecting, tags, iter, time);
    vu.push(b.httpReqTlsHandshaking, t.tls_handshaking, tags, iter, time);
    vu.push(b.httpReqSending, t.sending, tags, iter, time);
    vu.push(b.httpReqWaiting, t.waiting, tags, iter, time);
    vu.push(b.httpReqReceiving, t.receiving, tags, iter, time);
    if (expected !== null) vu.push(b.httpReqFailed, expected ? 0 : 1, tags, iter, time);
    if (iter) {
      iter.bytesSent += raw.bytesSent;
      iter.bytesReceived += raw.bytesReceived;
    }
    let body: unknown = raw.body;
    if (raw.body instanceof Uint8Array) body = raw.body.buffer.slice(raw.body.byteOffset, raw.body.byteOffset + raw.body.byteLength);
    const parse = (text: unknown): unknown => vu.parseJson(String(text));
    return {
      status: raw.status,
      status_text: raw.statusText,
      proto: raw.proto,
      url: req.url,
      body,
      headers: raw.headers,
      cookies: {},
      timings: { ...t },
      error: raw.error,
      error_code: raw.errorCode,
      remote_ip: raw.remoteIp,
      remote_port: raw.remotePort,
      tls_version: '',
      tls_cipher_suite: '',
      ocsp: {},
      request: { method: req.method, url: req.url, headers: req.headers, body: typeof req.body === 'string' ? req.body : '', cookies: {} },
      json(selector?: string): unknown {
        const v = parse(body);
        if (!selector) return v;
        return selector.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), v);
      },
      html(): never {
        throw new Error('Response.html() is not supported by the local runner');
      },
    };
  }

  /** Non-blocking request: the promise resolves with the response; a cut iteration's request is abandoned. */
  function asyncRequest(method: string, url: unknown, body?: unknown, params?: Params): Promise<unknown> {
    if (vu.inInitContext) throw new Error('making http requests (asyncRequest) in the init context is not supported');
    const iter = vu.iter;
    const req = toRaw(method, url, body, params);
    // A cut iteration aborts its requests; their promises never settle, as k6 interrupts the VU.
    const abort = new AbortController();
    const cancel = (): void => abort.abort();
    iter?.cleanups.add(cancel);
    return new Promise((resolve, reject) => {
      performRequest(req, vu.agent, abort.signal).then(
        (raw) => {
          iter?.cleanups.delete(cancel);
          if (iter?.done) return;
          try {
            resolve(finish(raw, req, params, iter));
          } catch (e) {
            reject(e);
          }
        },
        (e: unknown) => reject(e),
      );
    });
  }

  return esm({
    asyncRequest,
    ...notProvided(NOT_PROVIDED, (name) => `http.${name} is not supported by the local runner: it supports only http.asyncRequest`),
  });
}
