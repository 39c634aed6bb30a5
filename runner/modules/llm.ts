// k6/x/llm for one VU (docs/k6-x-llm.md): stream(params, onEvents) with events stamped at arrival and delivered in batches. Runs in Node.
import { monoMs, monoToEpochMs } from '../clock';
import { parseDurationMs } from '../durations';
import { LlmSseParser, type LlmEvent } from '../llm-sse-parser';
import type { Tags } from '../metrics-engine';
import { esm, type VU } from '../vu';
import { networkErrorMessage } from './http-client';
import { openPlainStream, openTlsStream, type PhaseCallbacks, type StreamCallbacks, type StreamHandle } from './sse-transport';

// The contract's own types (docs/k6-x-llm.md), shared with the k6 side's declaration.
export type { LlmErrorCode, LlmStreamResult } from 'k6/x/llm';
import type { LlmErrorCode, LlmStreamResult } from 'k6/x/llm';

const MAX_BODY = 4096;
const USER_AGENT = 'k6/1.3.0 (https://k6.io/)';
/** An RFC 9110 token: what a method may be. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** A duration param: Go duration string or seconds; undefined/null/0 = none. Throws for anything else (a misuse). */
function durationParam(value: unknown, name: string): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) throw new Error(`llm.stream: params.${name} must be a non-negative number of seconds or a duration string such as "60s", got ${value}`);
    return value * 1000;
  }
  if (typeof value === 'string') {
    try {
      return parseDurationMs(value, `llm.stream: params.${name}`);
    } catch (e) {
      throw new Error((e as Error).message);
    }
  }
  throw new Error(`llm.stream: params.${name} must be a duration string such as "60s" or a number of seconds, got ${typeof value}`);
}

export function createLlmModule(vu: VU) {
  const rc = vu.rc;
  const b = rc.builtin;

  function stream(params: unknown, onEvents: unknown): Promise<LlmStreamResult> {
    if (vu.inInitContext) throw new Error('using llm.stream in the init context is not supported');
    if (params === null || typeof params !== 'object' || Array.isArray(params)) throw new Error('llm.stream: params must be an object');
    const p = params as Record<string, unknown>;
    if (typeof p.url !== 'string' || p.url === '') throw new Error('llm.stream: params.url is required');
    if (typeof onEvents !== 'function') throw new Error('llm.stream: onEvents must be a function');
    const deliver = onEvents as (events: LlmEvent[]) => void;
    const url = p.url;
    const method = p.method === undefined || p.method === null ? 'POST' : String(p.method);
    const timeoutMs = durationParam(p.timeout, 'timeout');
    const connectTimeoutMs = durationParam(p.connectTimeout, 'connectTimeout');
    const headerTimeoutMs = durationParam(p.headerTimeout, 'headerTimeout');
    const idleTimeoutMs = durationParam(p.idleTimeout, 'idleTimeout');
    if (p.parseJson !== undefined && p.parseJson !== null && typeof p.parseJson !== 'boolean') throw new Error('llm.stream: params.parseJson must be true or false');
    const parseJson = p.parseJson === true;
    const extra: Tags = {};
    if (p.tags !== undefined && p.tags !== null) {
      if (typeof p.tags !== 'object') throw new Error('llm.stream: params.tags must be an object');
      for (const [k, v] of Object.entries(p.tags as Record<string, unknown>)) {
        if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') throw new Error(`llm.stream: invalid value for tag ${k}: must be a string, number or boolean`);
        extra[k] = String(v);
      }
    }
    const headers: Record<string, string> = {};
    let hasAccept = false;
    let hasAgent = false;
    if (p.headers !== undefined && p.headers !== null && typeof p.headers === 'object') {
      for (const [k, v] of Object.entries(p.headers as Record<string, unknown>)) {
        const lower = k.toLowerCase();
        if (lower === 'content-length' || lower === 'host') continue;
        if (lower === 'accept') hasAccept = true;
        else if (lower === 'user-agent') hasAgent = true;
        headers[k] = String(v);
      }
    }
    if (!hasAccept) headers.Accept = 'text/event-stream';
    if (!hasAgent) headers['User-Agent'] = USER_AGENT;
    const payload = p.body === undefined || p.body === null ? null : Buffer.from(String(p.body));
    if (payload) headers['Content-Length'] = String(payload.length);

    const iter = vu.iter;
    const health = rc.health?.forScenario(vu.scenario?.name ?? '');
    const startMono = rc.startMono;
    const tags: Tags = { ...vu.metricTags, group: '', method: method.toUpperCase(), url, name: extra.name ?? url };

    return new Promise<LlmStreamResult>((resolve, reject) => {
      const t0 = monoMs();
      let tConnectStart = t0;
      let connectingMs = 0;
      let tWritten = -1;
      let tHead = -1;
      let lastRead = t0;
      let status = 0;
      let resHeaders: Record<string, string> = {};
      let isEvents = false;
      const bodyParts: Buffer[] = [];
      let bodyBytes = 0;
      let events = 0;
      let done = false;
      let handle: StreamHandle | null = null;
      // Events read but not yet handed to onEvents, with the arrival times of the reads that made them.
      let pending: LlmEvent[] = [];
      let arrivals: number[] = [];
      let scheduled: NodeJS.Immediate | null = null;
      let wholeTimer: NodeJS.Timeout | null = null;
      let phaseTimer: NodeJS.Timeout | null = null;

      const parser = new LlmSseParser((ev) => pending.push(ev));

      const flush = (): boolean => {
        if (scheduled !== null) {
          clearImmediate(scheduled);
          scheduled = null;
        }
        if (pending.length === 0) return true;
        const batch = pending;
        const reads = arrivals;
        pending = [];
        arrivals = [];
        events += batch.length;
        if (parseJson) {
          // The contract's json field; in Node the decode is JSON.parse either way, done here for parity with k6.
          for (let i = 0; i < batch.length; i++) {
            const ev = batch[i]!;
            try {
              ev.json = JSON.parse(ev.data);
            } catch {
              // Not JSON ([DONE], a malformed chunk): no json field.
            }
          }
        }
        try {
          deliver(batch);
        } catch (e) {
          // The script's exception cancels the request and rejects the promise.
          end(null, '', e);
          return false;
        }
        if (health !== undefined) {
          const now = monoMs();
          for (let i = 0; i < reads.length; i++) health.delivery(now - reads[i]!);
        }
        return true;
      };
      const scheduledFlush = (): void => {
        scheduled = null;
        if (!done) flush();
      };

      const clearTimers = (): void => {
        if (wholeTimer) clearTimeout(wholeTimer);
        if (phaseTimer) clearTimeout(phaseTimer);
        wholeTimer = phaseTimer = null;
      };

      // gracefulStop expiry or a stopped test: drop the connection; the promise stays pending, as k6 interrupts the VU.
      const cancel = (): void => {
        if (done) return;
        done = true;
        clearTimers();
        if (scheduled !== null) clearImmediate(scheduled);
        handle?.destroy();
      };

      /** Ends the request: `code` null with `thrown` set means onEvents threw. */
      function end(code: LlmErrorCode | null, message: string, thrown?: unknown): void {
        if (done) return;
        if (code !== null && !flush()) return;
        done = true;
        clearTimers();
        iter?.cleanups.delete(cancel);
        handle?.destroy();
        parser.end();
        const tEnd = monoMs();
        const errorCode: LlmErrorCode = code ?? 'cancelled';
        pushMetrics(tEnd, errorCode);
        if (thrown !== undefined) {
          reject(thrown);
          return;
        }
        resolve({
          status,
          headers: resHeaders,
          error: message,
          errorCode,
          body: bodyParts.length === 0 ? '' : Buffer.concat(bodyParts).toString('utf8'),
          startTime: t0 - startMono,
          headersTime: tHead >= 0 ? tHead - startMono : 0,
          endTime: tEnd - startMono,
          events,
          invalidLines: parser.invalidLines,
          firstInvalidLine: parser.firstInvalidLine,
        });
      }

      function pushMetrics(tEnd: number, errorCode: LlmErrorCode): void {
        const t: Tags = { ...tags, status: String(status), expected_response: String(status >= 200 && status <= 399) };
        Object.assign(t, extra);
        const time = monoToEpochMs(tEnd);
        vu.push(b.httpReqs, 1, t, iter, time);
        vu.push(b.httpReqDuration, tEnd - t0, t, iter, time);
        vu.push(b.httpReqWaiting, tWritten >= 0 && tHead >= 0 ? Math.max(0, tHead - tWritten) : 0, t, iter, time);
        vu.push(b.httpReqConnecting, connectingMs, t, iter, time);
        vu.push(b.httpReqFailed, status === 0 || status >= 400 || errorCode !== '' ? 1 : 0, t, iter, time);
        if (iter && handle && !iter.done) {
          const bytes = handle.bytes();
          iter.bytesSent += bytes.sent;
          iter.bytesReceived += bytes.received;
        }
      }

      const armPhase = (ms: number, code: LlmErrorCode, message: string): void => {
        if (phaseTimer) clearTimeout(phaseTimer);
        phaseTimer = ms > 0 ? setTimeout(() => end(code, message), ms) : null;
      };
      const armIdle = (ms: number): void => {
        // One timer for the whole body: it re-arms itself for what is left since the last read instead of being reset per read.
        phaseTimer = setTimeout(() => {
          const quiet = monoMs() - lastRead;
          if (quiet >= idleTimeoutMs - 0.5) end('idle_timeout', `no data read for ${idleTimeoutMs} ms (idleTimeout)`);
          else armIdle(idleTimeoutMs - quiet);
        }, ms);
      };

      let target: URL;
      try {
        target = new URL(url);
        if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Error(`unsupported protocol scheme "${target.protocol.replace(':', '')}"`);
        if (!TOKEN.test(method)) throw new Error(`invalid method ${JSON.stringify(method)}`);
      } catch (e) {
        end('invalid_request', `${method} "${url}": ${(e as Error).message}`);
        return;
      }
      iter?.cleanups.add(cancel);

      const callbacks: StreamCallbacks & PhaseCallbacks = {
        connect(reused: boolean): void {
          if (done) return;
          connectingMs = reused ? 0 : monoMs() - tConnectStart;
          if (phaseTimer) clearTimeout(phaseTimer);
          phaseTimer = null;
        },
        written(): void {
          if (done) return;
          tWritten = monoMs();
          armPhase(headerTimeoutMs, 'header_timeout', `no response headers within ${headerTimeoutMs} ms of the request (headerTimeout)`);
        },
        response(code: number, raw: string[]): void {
          if (done) return;
          tHead = lastRead = monoMs();
          status = code;
          const h: Record<string, string> = {};
          for (let i = 0; i + 1 < raw.length; i += 2) {
            const k = raw[i]!.toLowerCase();
            h[k] = h[k] === undefined ? raw[i + 1]! : `${h[k]}, ${raw[i + 1]!}`;
          }
          resHeaders = h;
          const ct = (h['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
          isEvents = code >= 200 && code <= 299 && ct === 'text/event-stream';
          if (phaseTimer) clearTimeout(phaseTimer);
          phaseTimer = null;
          if (idleTimeoutMs > 0) armIdle(idleTimeoutMs);
        },
        body(chunk: Buffer): void {
          if (done) return;
          const arrived = monoMs();
          lastRead = arrived;
          if (!isEvents) {
            if (bodyBytes < MAX_BODY) {
              const n = Math.min(chunk.length, MAX_BODY - bodyBytes);
              // Copied: the transport reuses its read buffer. Decoded once at the end, so no character is split.
              bodyParts.push(Buffer.from(chunk.subarray(0, n)));
              bodyBytes += n;
            }
            return;
          }
          const before = pending.length;
          parser.push(chunk, arrived - startMono);
          if (parser.tooLong) {
            end('line_too_long', `an event-stream line is longer than ${1024 * 1024} bytes`);
            return;
          }
          if (pending.length > before) {
            if (health !== undefined) arrivals.push(arrived);
            if (scheduled === null) scheduled = setImmediate(scheduledFlush);
          }
        },
        end(): void {
          end('', '');
        },
        error(e: NodeJS.ErrnoException, connected: boolean): void {
          if (done) return;
          if (!connected) {
            end('connect', networkErrorMessage(method, url, e));
            return;
          }
          const reset = e.code === 'ECONNRESET' || e.code === 'EPIPE';
          end(reset ? 'reset' : 'read', e.message);
        },
      };
      if (timeoutMs > 0) wholeTimer = setTimeout(() => end('timeout', `request timeout after ${timeoutMs} ms (timeout)`), timeoutMs);
      if (connectTimeoutMs > 0) armPhase(connectTimeoutMs, 'connect_timeout', `no connection within ${connectTimeoutMs} ms (connectTimeout)`);
      tConnectStart = monoMs();
      handle =
        target.protocol === 'https:'
          ? openTlsStream(target, method.toUpperCase(), headers, payload, callbacks)
          : openPlainStream(target, method.toUpperCase(), headers, payload, callbacks, vu.streamPool);
    });
  }

  const mod = { stream };
  return esm(mod, mod);
}
