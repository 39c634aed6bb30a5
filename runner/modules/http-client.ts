// One HTTP/1.1 request with k6's timing phases (blocked, connecting, sending, waiting, receiving). Runs in Node.
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';

export interface RawRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | Uint8Array | null;
  timeoutMs: number;
  /** 'text' (default), 'binary' or 'none', as params.responseType. */
  responseType: 'text' | 'binary' | 'none';
  /** k6's insecureSkipTLSVerify option: accept any server certificate. */
  insecureSkipTLSVerify?: boolean;
}

export interface RawTimings {
  blocked: number;
  connecting: number;
  tls_handshaking: number;
  sending: number;
  waiting: number;
  receiving: number;
  duration: number;
}

export interface RawResponse {
  status: number;
  statusText: string;
  proto: string;
  /** Header values joined with ", ", names in Go's canonical form (Content-Type). */
  headers: Record<string, string>;
  body: string | Uint8Array | null;
  timings: RawTimings;
  error: string;
  errorCode: number;
  remoteIp: string;
  remotePort: number;
  bytesSent: number;
  bytesReceived: number;
  /** Monotonic ms when the request started (sample times are derived from it). */
  startMono: number;
}

/** Go's textproto.CanonicalMIMEHeaderKey: content-type -> Content-Type. */
export function canonicalHeader(name: string): string {
  return name.toLowerCase().replace(/(^|-)([a-z])/g, (_m, sep: string, c: string) => sep + c.toUpperCase());
}

/** Joins repeated headers as Go's http.Header values joined with ", ". */
export function canonicalHeaders(raw: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const k = canonicalHeader(raw[i]!);
    out[k] = out[k] === undefined ? raw[i + 1]! : `${out[k]}, ${raw[i + 1]!}`;
  }
  return out;
}

/** k6 error codes (lib/netext/httpext/error_codes.go) for the failures a local run meets. */
export function networkErrorCode(err: NodeJS.ErrnoException): number {
  switch (err.code) {
    case 'ECONNREFUSED':
      return 1212;
    case 'ECONNRESET':
      return 1220;
    case 'ETIMEDOUT':
      return 1211;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 1101;
    default:
      return 1000;
  }
}

/** Node's codes for a certificate chain that ends at no trusted CA: Go's "certificate signed by unknown authority". */
const UNKNOWN_AUTHORITY = new Set(['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'UNABLE_TO_GET_ISSUER_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT']);

/** A Go-like message ("dial tcp 127.0.0.1:1: connect: connection refused") so scripts see k6's wording. */
export function networkErrorMessage(method: string, url: string, err: NodeJS.ErrnoException): string {
  const e = err as NodeJS.ErrnoException & { address?: string; port?: number; hostname?: string };
  if (e.code === 'ECONNREFUSED') return `${goMethod(method)} "${url}": dial tcp ${e.address ?? ''}:${e.port ?? ''}: connect: connection refused`;
  if (e.code === 'ENOTFOUND') return `${goMethod(method)} "${url}": dial tcp: lookup ${e.hostname ?? ''}: no such host`;
  if (e.code === 'ECONNRESET') return `${goMethod(method)} "${url}": read: connection reset by peer`;
  if (e.code !== undefined && UNKNOWN_AUTHORITY.has(e.code)) return `${goMethod(method)} "${url}": tls: failed to verify certificate: x509: certificate signed by unknown authority`;
  return `${goMethod(method)} "${url}": ${err.message}`;
}

function goMethod(method: string): string {
  const m = method.toUpperCase();
  return m.charAt(0) + m.slice(1).toLowerCase();
}

/** `signal` aborts the request (a cut iteration); the promise then resolves with a status-0 error. */
export function performRequest(req: RawRequest, agent: http.Agent, signal: AbortSignal): Promise<RawResponse> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    let tSocket = t0;
    let tConnect = -1;
    let tSecure = -1;
    let tFinish = -1;
    let tResponse = -1;
    let settled = false;
    let url: URL;
    const empty = (error: string, errorCode: number): RawResponse => ({
      status: 0,
      statusText: '',
      proto: '',
      headers: {},
      body: null,
      timings: { blocked: 0, connecting: 0, tls_handshaking: 0, sending: 0, waiting: 0, receiving: 0, duration: 0 },
      error,
      errorCode,
      remoteIp: '',
      remotePort: 0,
      bytesSent: 0,
      bytesReceived: 0,
      startMono: t0,
    });
    try {
      url = new URL(req.url);
    } catch {
      resolve(empty(`parse "${req.url}": invalid URL`, 1020));
      return;
    }
    const lib = url.protocol === 'https:' ? https : http;
    const body = req.body === null ? null : typeof req.body === 'string' ? Buffer.from(req.body) : Buffer.from(req.body);
    const headers: Record<string, string> = { 'User-Agent': 'k6/1.3.0 (https://k6.io/)', ...req.headers };
    if (body !== null) headers['Content-Length'] = String(body.length);
    let sock: import('node:net').Socket | null = null;
    let sent0 = 0;
    let recv0 = 0;
    const r = lib.request(url, { method: req.method.toUpperCase(), headers, agent: lib === http ? agent : undefined, signal, ...(lib === https ? { rejectUnauthorized: req.insecureSkipTLSVerify !== true } : {}) }, (res) => {
      tResponse = performance.now();
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => {
        if (req.responseType !== 'none') chunks.push(c);
      });
      res.on('end', () => {
        const tEnd = performance.now();
        settled = true;
        clearTimeout(timer);
        const buf = Buffer.concat(chunks);
        const sending = Math.max(0, tFinish - Math.max(tConnect >= 0 ? tConnect : tSocket, tSecure));
        const waiting = Math.max(0, tResponse - tFinish);
        const receiving = tEnd - tResponse;
        const status = res.statusCode ?? 0;
        resolve({
          status,
          statusText: `${status} ${res.statusMessage ?? ''}`,
          proto: `HTTP/${res.httpVersion}`,
          headers: canonicalHeaders(res.rawHeaders),
          body: req.responseType === 'none' ? null : req.responseType === 'binary' ? new Uint8Array(buf) : buf.toString('utf8'),
          timings: {
            blocked: tSocket - t0,
            connecting: tConnect >= 0 ? tConnect - tSocket : 0,
            tls_handshaking: tSecure >= 0 && tConnect >= 0 ? tSecure - tConnect : 0,
            sending,
            waiting,
            receiving,
            duration: sending + waiting + receiving,
          },
          // k6 leaves error empty for HTTP error statuses and sets only error_code (1000 + status).
          error: '',
          errorCode: status >= 400 ? 1000 + status : 0,
          remoteIp: sock?.remoteAddress ?? '',
          remotePort: sock?.remotePort ?? 0,
          bytesSent: (sock?.bytesWritten ?? 0) - sent0,
          bytesReceived: (sock?.bytesRead ?? 0) - recv0,
          startMono: t0,
        });
      });
    });
    r.on('socket', (s) => {
      sock = s;
      sent0 = s.bytesWritten;
      recv0 = s.bytesRead;
      tSocket = performance.now();
      if (s.readyState === 'open') return; // reused keep-alive connection: no connect phase
      s.once('connect', () => (tConnect = performance.now()));
      s.once('secureConnect', () => (tSecure = performance.now()));
    });
    r.on('finish', () => (tFinish = performance.now()));
    r.on('error', (err: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const out = empty(networkErrorMessage(req.method, req.url, err), networkErrorCode(err));
      out.timings.blocked = tSocket - t0;
      resolve(out);
    });
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      r.destroy();
      resolve(empty(`request timeout`, 1050));
    }, req.timeoutMs);
    if (body !== null) r.end(body);
    else r.end();
  });
}
