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

/**
 * Plain-http stream over net.Socket's `onread` mode: every socket read lands in one callback that
 * parses the response head once, strips chunked framing and hands body bytes on, without the
 * Readable-stream and IncomingMessage layers of node:http (the per-chunk cost that matters at
 * hundreds of concurrent token streams).
 */
export function openPlainStream(url: URL, method: string, headers: Record<string, string>, body: Buffer | null, cb: StreamCallbacks): StreamHandle {
  const port = Number(url.port || 80);
  let head: Buffer | null = Buffer.alloc(0);
  let framing: Framing = 'close';
  let remaining = 0;
  let chunkState: ChunkState = 'size';
  let sizeLine = '';
  let trailerLine = 0;
  let finished = false;
  let connected = false;

  const finish = (): void => {
    if (finished) return;
    finished = true;
    socket.destroy();
    cb.end();
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
            cb.error(Object.assign(new Error('malformed chunked encoding'), { code: 'EPROTO' }), true);
            finished = true;
            socket.destroy();
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
    const status = Number(/^HTTP\/\d\.\d (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
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
    }
    framing = chunked ? 'chunked' : length >= 0 ? 'length' : 'close';
    remaining = length;
    connected = true;
    cb.response(status, raw);
    if (finished) return;
    if (framing === 'length' && remaining === 0) {
      finish();
      return;
    }
    // Body bytes that came with the head: `all` may be a fresh buffer or a view of the read buffer.
    onBody(all, at + 4, all.length);
  };

  const socket = net.connect({
    // URL keeps IPv6 literals in brackets; net wants them bare.
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port,
    noDelay: true,
    onread: {
      buffer: READ_BUFFER,
      callback: (n: number, buf: Buffer): boolean => {
        if (finished) return false;
        if (head !== null) onHead(buf, 0, n);
        else onBody(buf, 0, n);
        return true;
      },
    },
  });
  socket.on('connect', () => {
    let text = `${method} ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n`;
    for (const [k, v] of Object.entries(headers)) text += `${k}: ${v}\r\n`;
    text += '\r\n';
    socket.write(body ? Buffer.concat([Buffer.from(text, 'latin1'), body]) : text);
  });
  socket.on('end', () => {
    if (finished) return;
    if (!connected) {
      finished = true;
      cb.error(Object.assign(new Error('EOF'), { code: 'ECONNRESET' }), false);
    } else if (framing === 'close') finish();
    else {
      finished = true;
      cb.error(Object.assign(new Error('unexpected EOF'), { code: 'EPIPE' }), true);
    }
  });
  socket.on('error', (e: NodeJS.ErrnoException) => {
    if (finished) return;
    finished = true;
    cb.error(e, connected);
  });
  return {
    destroy: () => {
      finished = true;
      socket.destroy();
    },
    bytes: () => ({ sent: socket.bytesWritten, received: socket.bytesRead }),
  };
}

/** TLS streams go through node:https (HTTP/1.1, as xk6-sse forces). */
export function openTlsStream(url: URL, method: string, headers: Record<string, string>, body: Buffer | null, cb: StreamCallbacks): StreamHandle {
  let connected = false;
  let done = false;
  const req = https.request(url, { method, headers, agent: false });
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
