// The byte transport under k6/x/sse: a lean HTTP/1.1 client for plain http (one read callback, no stream objects) and Node's https for TLS. Runs in Node.
import https from 'node:https';
import net from 'node:net';
import { bufIndexOf, bufToString } from '../buffers';

export interface StreamCallbacks {
  /** Status line and headers read; rawHeaders alternates names and values as received. */
  response(status: number, rawHeaders: string[]): void;
  /** Body bytes (chunked framing removed). The buffer is reused after the call returns: copy what you keep. */
  body(chunk: Buffer): void;
  /** The body ended (last chunk, Content-Length reached, or the server closed the connection). */
  end(): void;
  /** A failure; `connected` tells whether the response head had arrived. */
  error(err: NodeJS.ErrnoException, connected: boolean): void;
}

export interface StreamHandle {
  destroy(): void;
  /** Bytes written and read on the connection so far (data_sent, data_received). */
  bytes(): { sent: number; received: number };
  /** Whether the request went over a kept-alive connection (plain http with a pool only). */
  reused?(): boolean;
}

/**
 * TLS verification for every stream of the run (k6/x/llm and k6/x/sse): k6's insecureSkipTLSVerify
 * option, set once from the resolved options (runner/options.ts). Trusted CAs beyond Node's own come
 * from NODE_EXTRA_CA_CERTS, which Node reads at start-up.
 */
const streamTls = { insecureSkipTLSVerify: false };

export function setStreamInsecureSkipTLSVerify(skip: boolean): void {
  streamTls.insecureSkipTLSVerify = skip;
}

// One read buffer for every connection: callbacks consume synchronously, so sharing it is safe and
// saves a buffer per stream (k6 scripts copy event strings out of it).
const READ_BUFFER = Buffer.allocUnsafe(256 * 1024);

const CR = 0x0d;
const LF = 0x0a;

type Framing = 'chunked' | 'length' | 'close';
type ChunkState = 'size' | 'data' | 'data-crlf' | 'trailer' | 'done';

/**
 * The size of a chunk-size line made only of hex digits (and the CR before `end`, the LF), read
 * without building a string; -1 for anything else (extensions, spaces, a line split across reads),
 * which goes through parseInt as before. One such line precedes every SSE event.
 */
export function plainHexSize(buf: Buffer, start: number, end: number): number {
  let e = end;
  if (e > start && buf[e - 1] === CR) e--;
  if (e === start || e - start > 12) return -1;
  let v = 0;
  for (let i = start; i < e; i++) {
    const c = buf[i]!;
    let d: number;
    if (c >= 0x30 && c <= 0x39) d = c - 0x30;
    else if (c >= 0x61 && c <= 0x66) d = c - 0x57;
    else if (c >= 0x41 && c <= 0x46) d = c - 0x37;
    else return -1;
    v = v * 16 + d;
  }
  return v;
}

/** Idle keep-alive connections of one VU, by host:port (k6 reuses a VU's connections between requests). */
export class ConnectionPool {
  private readonly idle = new Map<string, PlainConn[]>();
  /** Connections opened (not reused) through this pool: a test reads it to see reuse. */
  opened = 0;

  /** A live idle connection to `key`, or null. */
  take(key: string): PlainConn | null {
    const list = this.idle.get(key);
    while (list && list.length > 0) {
      const c = list.pop()!;
      if (!c.socket.destroyed && c.socket.readyState === 'open') {
        c.socket.ref();
        return c;
      }
    }
    return null;
  }

  put(c: PlainConn): void {
    let list = this.idle.get(c.key);
    if (!list) this.idle.set(c.key, (list = []));
    if (list.length >= MAX_IDLE_PER_HOST) {
      c.socket.destroy();
      return;
    }
    c.user = null;
    // An idle connection must not keep the process alive.
    c.socket.unref();
    list.push(c);
  }

  remove(c: PlainConn): void {
    const list = this.idle.get(c.key);
    const i = list ? list.indexOf(c) : -1;
    if (i >= 0) list!.splice(i, 1);
  }

  destroy(): void {
    for (const list of this.idle.values()) for (const c of list) c.socket.destroy();
    this.idle.clear();
  }
}

const MAX_IDLE_PER_HOST = 16;

/** What a connection reports to the request using it (null while idle in the pool). */
interface ConnUser {
  connect(): void;
  read(n: number, buf: Buffer): void;
  end(): void;
  error(e: NodeJS.ErrnoException): void;
}

/** One TCP connection; its socket's single onread callback forwards to the current request. */
export class PlainConn {
  user: ConnUser | null = null;
  readonly socket: net.Socket;

  constructor(
    readonly key: string,
    host: string,
    port: number,
    private readonly pool: ConnectionPool | null,
  ) {
    this.socket = net.connect({
      // URL keeps IPv6 literals in brackets; net wants them bare.
      host: host.replace(/^\[(.*)\]$/, '$1'),
      port,
      noDelay: true,
      onread: {
        buffer: READ_BUFFER,
        callback: (n: number, buf: Buffer): boolean => {
          if (this.user === null) {
            // Bytes on an idle connection: the server broke the protocol; drop the connection.
            this.drop();
            return false;
          }
          this.user.read(n, buf);
          return true;
        },
      },
    });
    this.socket.on('connect', () => this.user?.connect());
    this.socket.on('end', () => (this.user ? this.user.end() : this.drop()));
    this.socket.on('error', (e: NodeJS.ErrnoException) => (this.user ? this.user.error(e) : this.drop()));
    this.socket.on('close', () => {
      if (this.user === null) this.pool?.remove(this);
    });
  }

  private drop(): void {
    this.pool?.remove(this);
    this.socket.destroy();
  }
}

/** Extra, optional callbacks of a request (k6/x/llm's phases and timeouts). */
export interface PhaseCallbacks {
  /** A connection is ready: `reused` when it came from the pool (called synchronously in that case). */
  connect?(reused: boolean): void;
  /** The request was handed to the socket. */
  written?(): void;
}

/**
 * Plain-http stream over net.Socket's `onread` mode: every socket read lands in one callback that
 * parses the response head once, strips chunked framing and hands body bytes on, without the
 * Readable-stream and IncomingMessage layers of node:http (the per-chunk cost that matters at
 * hundreds of concurrent token streams).
 *
 * With a `pool`, a response that ended cleanly (chunked or Content-Length framing, HTTP/1.1, no
 * `Connection: close`) leaves its connection in the pool, and the next request to the same host
 * takes it and writes at once, inside this call: no TCP handshake and no event-loop turn before the
 * request reaches the server (a new connection can only be written to from its 'connect' callback,
 * after whatever other VUs' work is queued). A reused connection that fails before any response
 * byte (the server closed it while idle) is replaced by a new one once, as Go's transport does.
 */
export function openPlainStream(url: URL, method: string, headers: Record<string, string>, body: Buffer | null, cb: StreamCallbacks & PhaseCallbacks, pool: ConnectionPool | null = null): StreamHandle {
  const port = Number(url.port || 80);
  const key = `${url.hostname}:${port}`;
  let text = `${method} ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n`;
  let clientClose = false;
  for (const k of Object.keys(headers)) {
    const v = headers[k]!;
    text += `${k}: ${v}\r\n`;
    if (k.toLowerCase() === 'connection' && /close/i.test(v)) clientClose = true;
  }
  text += '\r\n';
  const request = body ? Buffer.concat([Buffer.from(text, 'latin1'), body]) : Buffer.from(text, 'latin1');

  let head: Buffer | null = Buffer.alloc(0);
  let framing: Framing = 'close';
  let remaining = 0;
  let chunkState: ChunkState = 'size';
  let sizeLine = '';
  let trailerLine = 0;
  let finished = false;
  let connected = false;
  let reusable = false;
  let released = false;
  let gotBytes = false;
  let conn: PlainConn;
  let reused = false;
  let sent0 = 0;
  let recv0 = 0;
  let sentFinal = 0;
  let recvFinal = 0;

  const finish = (): void => {
    if (finished) return;
    finished = true;
    if (pool && reusable && !clientClose && framing !== 'close' && !conn.socket.destroyed) {
      released = true;
      sentFinal = conn.socket.bytesWritten - sent0;
      recvFinal = conn.socket.bytesRead - recv0;
      pool.put(conn);
    } else conn.socket.destroy();
    cb.end();
  };
  const fail = (e: NodeJS.ErrnoException, withHead: boolean): void => {
    if (finished) return;
    if (reused && !gotBytes && !released) {
      // The server closed the idle connection as we reused it: once more on a new connection.
      conn.user = null;
      conn.socket.destroy();
      attach(false);
      return;
    }
    finished = true;
    conn.socket.destroy();
    cb.error(e, withHead);
  };

  const onBody = (buf: Buffer, start: number, end: number): void => {
    if (finished || start >= end) return;
    if (framing === 'close') {
      cb.body(buf.subarray(start, end));
      return;
    }
    if (framing === 'length') {
      const n = Math.min(remaining, end - start);
      remaining -= n;
      if (n > 0) cb.body(buf.subarray(start, start + n));
      if (remaining === 0) finish();
      return;
    }
    let i = start;
    while (i < end && !finished) {
      switch (chunkState) {
        case 'size': {
          const nl = bufIndexOf.call(buf, LF, i);
          if (nl < 0 || nl >= end) {
            sizeLine += bufToString.call(buf, 'latin1', i, end);
            i = end;
            break;
          }
          let size = sizeLine === '' ? plainHexSize(buf, i, nl) : -1;
          if (size < 0) {
            sizeLine += bufToString.call(buf, 'latin1', i, nl);
            size = parseInt(sizeLine, 16);
          }
          i = nl + 1;
          sizeLine = '';
          if (!Number.isFinite(size) || size < 0) {
            finished = true;
            conn.socket.destroy();
            cb.error(Object.assign(new Error('malformed chunked encoding'), { code: 'EPROTO' }), true);
            return;
          }
          if (size === 0) chunkState = 'trailer';
          else {
            remaining = size;
            chunkState = 'data';
          }
          break;
        }
        case 'data': {
          const n = Math.min(remaining, end - i);
          remaining -= n;
          const from = i;
          i += n;
          if (remaining === 0) chunkState = 'data-crlf';
          cb.body(buf.subarray(from, from + n));
          break;
        }
        case 'data-crlf':
          // Skip the CRLF that closes a chunk's data.
          if (buf[i] === LF) chunkState = 'size';
          i++;
          break;
        case 'trailer':
          // Trailer lines until an empty one; we only need to see that empty line.
          if (buf[i] === LF) {
            if (trailerLine === 0) {
              chunkState = 'done';
              // Bytes after the last chunk would belong to no request: do not reuse the connection.
              if (i + 1 < end) reusable = false;
              finish();
              return;
            }
            trailerLine = 0;
          } else if (buf[i] !== CR) trailerLine++;
          i++;
          break;
        case 'done':
          return;
      }
    }
  };

  const onHead = (buf: Buffer, start: number, end: number): void => {
    const all = head!.length === 0 ? buf.subarray(start, end) : Buffer.concat([head!, buf.subarray(start, end)]);
    const at = all.indexOf('\r\n\r\n');
    if (at < 0) {
      head = Buffer.from(all);
      return;
    }
    head = null;
    const lines = all.toString('latin1', 0, at).split('\r\n');
    const statusLine = /^HTTP\/(\d\.\d) (\d{3})/.exec(lines[0] ?? '');
    const status = Number(statusLine?.[2] ?? 0);
    reusable = statusLine?.[1] === '1.1';
    const raw: string[] = [];
    let chunked = false;
    let length = -1;
    for (let k = 1; k < lines.length; k++) {
      const line = lines[k]!;
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon);
      const value = line.slice(colon + 1).trim();
      raw.push(name, value);
      const lower = name.toLowerCase();
      if (lower === 'transfer-encoding' && /chunked/i.test(value)) chunked = true;
      else if (lower === 'content-length') length = Number(value);
      else if (lower === 'connection' && /close/i.test(value)) reusable = false;
    }
    framing = chunked ? 'chunked' : length >= 0 ? 'length' : 'close';
    remaining = length;
    connected = true;
    cb.response(status, raw);
    if (finished) return;
    if (framing === 'length' && remaining === 0) {
      if (at + 4 < all.length) reusable = false;
      finish();
      return;
    }
    // Body bytes that came with the head: `all` may be a fresh buffer or a view of the read buffer.
    onBody(all, at + 4, all.length);
  };

  const begin = (fromPool: boolean): void => {
    if (finished) return;
    sent0 = conn.socket.bytesWritten;
    recv0 = conn.socket.bytesRead;
    cb.connect?.(fromPool);
    conn.socket.write(request);
    cb.written?.();
  };
  const user: ConnUser = {
    connect: () => begin(false),
    read(n: number, buf: Buffer): void {
      if (finished) return;
      gotBytes = true;
      if (head !== null) onHead(buf, 0, n);
      else onBody(buf, 0, n);
    },
    end(): void {
      if (finished) return;
      if (!connected) fail(Object.assign(new Error('EOF'), { code: 'ECONNRESET' }), false);
      else if (framing === 'close') finish();
      else fail(Object.assign(new Error('unexpected EOF'), { code: 'EPIPE' }), true);
    },
    error(e: NodeJS.ErrnoException): void {
      fail(e, connected);
    },
  };

  const attach = (fromPool: boolean): void => {
    const idle = fromPool && pool ? pool.take(key) : null;
    reused = idle !== null;
    if (idle) {
      conn = idle;
      conn.user = user;
      // Written now, in the caller's turn: the request is on the wire before any other queued work runs.
      begin(true);
      return;
    }
    if (pool) pool.opened++;
    conn = new PlainConn(key, url.hostname, port, pool);
    conn.user = user;
  };
  attach(true);
  return {
    destroy: () => {
      if (released || finished) {
        finished = true;
        return;
      }
      finished = true;
      conn.socket.destroy();
    },
    bytes: () => (released ? { sent: sentFinal, received: recvFinal } : { sent: conn.socket.bytesWritten - sent0, received: conn.socket.bytesRead - recv0 }),
    reused: () => reused,
  };
}

/** TLS streams go through node:https (HTTP/1.1, as xk6-sse forces). */
export function openTlsStream(url: URL, method: string, headers: Record<string, string>, body: Buffer | null, cb: StreamCallbacks & PhaseCallbacks): StreamHandle {
  let connected = false;
  let done = false;
  const req = https.request(url, { method, headers, agent: false, rejectUnauthorized: !streamTls.insecureSkipTLSVerify });
  if (cb.connect || cb.written) {
    req.on('socket', (s) => s.once('secureConnect', () => cb.connect?.(false)));
    req.on('finish', () => cb.written?.());
  }
  req.on('response', (res) => {
    connected = true;
    cb.response(res.statusCode ?? 0, res.rawHeaders);
    res.on('data', (c: Buffer) => cb.body(c));
    res.on('end', () => {
      if (!done) {
        done = true;
        cb.end();
      }
    });
    res.on('aborted', () => {
      if (!done) {
        done = true;
        cb.error(Object.assign(new Error('unexpected EOF'), { code: 'EPIPE' }), true);
      }
    });
  });
  req.on('error', (e: NodeJS.ErrnoException) => {
    if (!done) {
      done = true;
      cb.error(e, connected);
    }
  });
  if (body) req.end(body);
  else req.end();
  return {
    destroy: () => {
      done = true;
      req.destroy();
    },
    bytes: () => ({ sent: req.socket?.bytesWritten ?? 0, received: req.socket?.bytesRead ?? 0 }),
  };
}
