// The plain-http SSE transport's chunked framing (fast chunk-size path and its fallback) and the pre-test GC hook. Runs in Node (vitest).
import net from 'node:net';
import vm from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { collectGarbage } from '../../runner/gc';
import { openPlainStream, plainHexSize } from '../../runner/modules/sse-transport';

describe('plainHexSize', () => {
  const size = (line: string): number => {
    const buf = Buffer.from(`xx${line}\nyy`, 'latin1');
    return plainHexSize(buf, 2, 2 + line.length);
  };

  it('reads hex-digit lines as parseInt(line, 16) does, with or without the CR', () => {
    for (const line of ['0', '0\r', 'f9', 'F9\r', '107\r', 'aBcDeF', '000010\r', 'ffffffffffff\r']) {
      expect(size(line)).toBe(parseInt(line, 16));
    }
  });

  it('returns -1 for everything else, which the transport hands to parseInt as before', () => {
    for (const line of ['', '\r', '1a;ext=1\r', ' 1a\r', '1a \r', '0x1a\r', '-5\r', 'g\r', '1fffffffffffff\r', '\r1']) {
      expect(size(line)).toBe(-1);
    }
  });
});

describe('openPlainStream chunked bodies', () => {
  let server: net.Server | null = null;
  afterEach(() => {
    server?.close();
    server = null;
  });

  /** Serves one response written in the given pieces, 5 ms apart, so each piece is its own socket read. */
  async function fetchBody(pieces: readonly string[]): Promise<{ body: string; ended: boolean; error: string | null }> {
    server = net.createServer((sock) => {
      sock.once('data', async () => {
        for (const p of pieces) {
          sock.write(p);
          await new Promise((r) => setTimeout(r, 5));
        }
        sock.end();
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const port = (server.address() as net.AddressInfo).port;
    return new Promise((resolve) => {
      const parts: string[] = [];
      openPlainStream(new URL(`http://127.0.0.1:${port}/`), 'GET', {}, null, {
        response: () => undefined,
        body: (chunk) => parts.push(chunk.toString('latin1')),
        end: () => resolve({ body: parts.join(''), ended: true, error: null }),
        error: (e) => resolve({ body: parts.join(''), ended: false, error: e.message }),
      });
    });
  }

  const HEAD = 'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n';

  it('decodes lower- and upper-case sizes, extensions and size lines split across reads', async () => {
    const r = await fetchBody([HEAD + '7\r\ndata: a\r\n', 'A\r\n', '\ndata: bc\n\r\n', '3;name=x\r\n\n\n\n\r\n1', '\r\nz\r\n0\r\n\r\n']);
    expect(r).toEqual({ body: 'data: a\ndata: bc\n\n\n\nz', ended: true, error: null });
  });

  it('fails a malformed size line as before', async () => {
    const r = await fetchBody([HEAD + 'zz\r\ndata: a\n\n\r\n0\r\n\r\n']);
    expect(r.error).toBe('malformed chunked encoding');
  });
});

describe('collectGarbage', () => {
  it('frees what is no longer referenced, and contexts created afterwards (VUs) have no gc global', () => {
    let junk: { i: number; s: string }[] | null = Array.from({ length: 300_000 }, (_, i) => ({ i, s: `item ${i}` }));
    expect(junk.length).toBe(300_000);
    const before = process.memoryUsage().heapUsed;
    junk = null;
    collectGarbage();
    // Nothing is allocated in between, so only a collection can have freed the ~20 MB.
    expect(before - process.memoryUsage().heapUsed).toBeGreaterThan(10_000_000);
    expect(vm.runInNewContext('typeof gc')).toBe('undefined');
  });
});
