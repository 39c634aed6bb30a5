// k6/x/sse for one VU: open() with xk6-sse's params, events, response, metrics and edge cases; returns a promise. Runs in Node.
import { epochMs, monoMs, monoToEpochMs } from '../clock';
import { parseDurationMs } from '../durations';
import type { Tags } from '../metrics-engine';
import { SseParser, type SseEvent } from '../sse-parser';
import { esm, type VU } from '../vu';
import { canonicalHeaders, networkErrorMessage } from './http-client';
import { openPlainStream, openTlsStream, type StreamCallbacks, type StreamHandle } from './sse-transport';

function goMethod(method: string): string {
  const m = method.toUpperCase();
  return m.charAt(0) + m.slice(1).toLowerCase();
}

export interface SseResponse {
  url: string;
  status: number;
  headers: Record<string, string>;
  error: string;
}

type Handler = (arg?: unknown) => void;

/** The argument of an 'error' handler: xk6-sse passes a Go error, read with error(). */
function goError(message: string): { error(): string; toString(): string } {
  return { error: () => message, toString: () => message };
}

export function createSseModule(vu: VU) {
  const rc = vu.rc;
  const sseEvent = rc.engine.register('sse_event', 'counter', 'default');
  const b = rc.builtin;

  function open(url: string, ...args: unknown[]): Promise<SseResponse> {
    if (vu.inInitContext) throw new Error('using sse in the init context is not supported');
    let params: Record<string, unknown> | undefined;
    let setup: unknown;
    if (args.length === 2) {
      params = (args[0] ?? undefined) as Record<string, unknown> | undefined;
      setup = args[1];
    } else if (args.length === 1) setup = args[0];
    else throw new Error('invalid number of arguments to sse.open');
    if (typeof setup !== 'function') throw new Error('last argument to sse.open must be a function');

    const headerMap = new Map<string, [string, string]>([
      ['user-agent', ['User-Agent', 'k6/1.3.0 (https://k6.io/)']],
      ['accept', ['Accept', 'text/event-stream']],
    ]);
    let method = 'GET';
    let body = '';
    let timeoutMs = 0;
    const tags: Tags = { ...vu.metricTags, group: '' };
    if (params) {
      for (const key of Object.keys(params)) {
        const v = params[key];
        switch (key) {
          case 'headers':
            if (v && typeof v === 'object') for (const [hk, hv] of Object.entries(v)) headerMap.set(hk.toLowerCase(), [hk, String(hv)]);
            break;
          case 'tags':
            if (v && typeof v === 'object') {
              for (const [tk, tv] of Object.entries(v)) {
                if (typeof tv !== 'string' && typeof tv !== 'number' && typeof tv !== 'boolean') throw new Error(`invalid sse.open() metric tags: invalid value for tag ${tk}`);
                tags[tk] = String(tv);
              }
            }
            break;
          case 'method':
            method = String(v).trim() || 'GET';
            break;
          case 'body':
            body = String(v).trim();
            break;
          case 'timeout':
            if (v === undefined || v === null) break;
            if (typeof v !== 'string') throw new Error(`sse.open() timeout must be a duration string such as "600s", got ${typeof v}`);
            timeoutMs = parseDurationMs(v, 'sse.open() timeout');
            break;
          default:
            break;
        }
      }
    }
    tags.url = url;
    const headers: Record<string, string> = {};
    for (const [name, value] of headerMap.values()) headers[name] = value;
    const payload = body === '' ? null : Buffer.from(body);
    if (payload) headers['Content-Length'] = String(payload.length);

    const iter = vu.iter;
    const health = rc.health?.forScenario(vu.scenario?.name ?? '');
    const handlers: Record<string, Handler[]> = { open: [], event: [], error: [] };

    return new Promise<SseResponse>((resolve, reject) => {
      const t0 = monoMs();
      const epoch0 = monoToEpochMs(t0);
      let connMs = 0;
      let state: 'connecting' | 'streaming' | 'done' = 'connecting';
      let status = 0;
      let rawHeaders: string[] = [];
      let timer: NodeJS.Timeout | null = null;
      let timedOut = false;
      let stream: StreamHandle | null = null;

      const pushEnd = (): void => {
        const end = epochMs();
        vu.push(b.httpReqs, 1, tags, iter, end);
        vu.push(b.httpReqSending, connMs, tags, iter, end);
        vu.push(b.httpReqDuration, end - epoch0, tags, iter, end);
        if (iter && stream) {
          const bytes = stream.bytes();
          iter.bytesSent += bytes.sent;
          iter.bytesReceived += bytes.received;
        }
      };
      const cleanup = (): void => {
        if (timer) clearTimeout(timer);
        iter?.cleanups.delete(cancel);
      };
      // gracefulStop expiry or a stopped test: drop the connection; the script's promise stays pending, as k6 interrupts the VU.
      const cancel = (): void => {
        state = 'done';
        if (timer) clearTimeout(timer);
        stream?.destroy();
      };
      /** Ends the stream once, however it ends: stop parsing, drop the connection, push the request's metrics. */
      const end = (): boolean => {
        if (state === 'done') return false;
        state = 'done';
        parser.stop();
        cleanup();
        stream?.destroy();
        pushEnd();
        return true;
      };
      const finish = (): void => {
        if (end()) resolve({ url, status, headers: canonicalHeaders(rawHeaders), error: '' });
      };
      const fail = (e: unknown): void => {
        if (end()) reject(e);
      };
      const emit = (kind: 'open' | 'event' | 'error', arg?: unknown): boolean => {
        const list = handlers[kind]!;
        try {
          for (let i = 0; i < list.length; i++) list[i]!(arg);
          return true;
        } catch (e) {
          // An exception in a handler propagates out of sse.open, as in xk6-sse.
          fail(e);
          return false;
        }
      };
      const client = {
        on(event: string, fn: unknown): void {
          if (typeof fn !== 'function') return;
          (handlers[event] ??= []).push(fn as Handler);
        },
        close(): void {
          finish();
        },
      };
      const parser = new SseParser({
        event(ev: SseEvent): void {
          if (state !== 'streaming' || (iter !== null && iter.done)) return;
          vu.push(sseEvent, 1, tags, iter);
          emit('event', ev);
        },
        error(message: string): void {
          if (state !== 'streaming') return;
          emit('error', goError(message));
        },
      });
      const connectFailed = (message: string): void => {
        // Connection failure: the error handlers are not registered yet, so they are not called.
        state = 'done';
        cleanup();
        connMs = monoMs() - t0;
        vu.push(b.httpReqSending, connMs, tags, iter, epoch0);
        pushEnd();
        resolve({ url: '', status: 0, headers: {}, error: message });
      };

      let target: URL;
      try {
        target = new URL(url);
        if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Error(`unsupported protocol scheme "${target.protocol.replace(':', '')}"`);
      } catch (e) {
        connectFailed(`${goMethod(method)} "${url}": ${(e as Error).message}`);
        return;
      }
      iter?.cleanups.add(cancel);
      const callbacks: StreamCallbacks = {
        response(code: number, raw: string[]): void {
          if (state !== 'connecting') return;
          status = code;
          rawHeaders = raw;
          connMs = monoMs() - t0;
          tags.status = String(code);
          // xk6-sse pushes http_req_sending (request start -> headers) here and again when the stream ends.
          vu.push(b.httpReqSending, connMs, tags, iter, epoch0);
          state = 'streaming';
          try {
            (setup as (c: unknown) => void)(client);
          } catch (e) {
            fail(e);
            return;
          }
          emit('open');
        },
        body(chunk: Buffer): void {
          if (state !== 'streaming') return;
          if (health === undefined) {
            parser.push(chunk);
            return;
          }
          const arrived = monoMs();
          parser.push(chunk);
          health.delivery(monoMs() - arrived);
        },
        end(): void {
          parser.end();
          finish();
        },
        error(e: NodeJS.ErrnoException, connected: boolean): void {
          if (state === 'connecting' && !connected) {
            connectFailed(timedOut ? `${goMethod(method)} "${url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)` : networkErrorMessage(method, url, e));
            return;
          }
          if (state !== 'streaming') return;
          const msg = timedOut ? 'context deadline exceeded (Client.Timeout or context cancellation while reading body)' : e.message;
          if (emit('error', goError(msg))) finish();
        },
      };
      const open = target.protocol === 'https:' ? openTlsStream : openPlainStream;
      stream = open(target, method.toUpperCase(), headers, payload, callbacks);
      if (timeoutMs > 0) {
        timer = setTimeout(() => {
          timedOut = true;
          const err = Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' });
          const connected = state === 'streaming';
          stream?.destroy();
          callbacks.error(err, connected);
        }, timeoutMs);
      }
    });
  }

  const mod = { open };
  return esm(mod, mod);
}
