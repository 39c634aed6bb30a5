// k6/x/llm in the runner (docs/k6-x-llm.md) against real loopback servers, plus its WHATWG parser and the transport's keep-alive. Runs in Node.
import http from 'node:http';
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RunContext } from '../../runner/context';
import { HealthRecorder } from '../../runner/health';
import { LlmSseParser, type LlmEvent } from '../../runner/llm-sse-parser';
import type { Metric, Tags } from '../../runner/metrics-engine';
import { createLlmModule, type LlmStreamResult } from '../../runner/modules/llm';
import { ConnectionPool, openPlainStream } from '../../runner/modules/sse-transport';
import { Iteration, type VU } from '../../runner/vu';
import { join } from 'node:path';
import { consoleMessages, FIXTURES, listen, runCli, tempDir, type TestServer } from './helpers';

function parse(pieces: readonly (string | Buffer)[]): { events: LlmEvent[]; parser: LlmSseParser } {
  const events: LlmEvent[] = [];
  const parser = new LlmSseParser((e) => events.push(e));
  pieces.forEach((p, i) => parser.push(typeof p === 'string' ? Buffer.from(p) : p, i));
  parser.end();
  return { events, parser };
}

describe('LlmSseParser (WHATWG rules)', () => {
  const ev = (data: string, name = '', time = 0): LlmEvent => ({ time, name, data });

  it('ends lines with LF, CRLF or CR, and joins data lines with \\n', () => {
    expect(parse(['data: a\ndata: b\n\ndata: c\r\ndata: d\r\n\r\ndata: e\rdata: f\r\r']).events).toEqual([ev('a\nb'), ev('c\nd'), ev('e\nf')]);
  });

  it('treats a CR at the end of one read and an LF at the start of the next as one line end', () => {
    expect(parse(['data: a\r', '\ndata: b\r', '\n\r', '\n']).events).toEqual([ev('a\nb', '', 2)]);
    // A CR then a CR in the next read: two line ends (the second is the blank line).
    expect(parse(['data: a\r', '\r']).events).toEqual([ev('a', '', 1)]);
  });

  it('reassembles lines split anywhere, and stamps an event with the read that completed it', () => {
    const text = 'event: delta\ndata: {"x":1}\n\n';
    for (let cut = 1; cut < text.length; cut++) {
      expect(parse([text.slice(0, cut), text.slice(cut)]).events).toEqual([ev('{"x":1}', 'delta', 1)]);
    }
    expect(parse(['da', 'ta: é'.slice(0, 4), Buffer.from('é\n\n').subarray(0, 1), Buffer.from('é\n\n').subarray(1)]).events.map((e) => e.data)).toEqual(['é']);
  });

  it('skips a leading BOM (also split), drops one space after the colon, ignores comments, id and retry', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    expect(parse([bom.subarray(0, 2), Buffer.concat([bom.subarray(2), Buffer.from(':c\nid: 7\nretry: 5\ndata:  two\ndata\n\n')])]).events).toEqual([ev(' two\n', '', 1)]);
    expect(parse(['data: x\n\n\ufeffdata: y\n\n']).parser.invalidLines).toBe(1);
  });

  it('dispatches only blocks with a data line; an event open at EOF is dropped; the name resets', () => {
    expect(parse([': keep-alive\n\nid: 1\n\nevent: x\n\ndata: a\n\ndata: open']).events).toEqual([ev('a')]);
  });

  it('counts unknown field lines and keeps the first (512 characters at most)', () => {
    const long = 'y'.repeat(600);
    const { events, parser } = parse(['{"error":"boom"}\nData: x\n' + long + '\ndata: ok\n\n']);
    expect(events).toEqual([ev('ok')]);
    expect(parser.invalidLines).toBe(3);
    expect(parser.firstInvalidLine).toBe('{"error":"boom"}');
    expect(parse([long + '\n']).parser.firstInvalidLine).toBe('y'.repeat(512));
  });

  it('flags a line longer than 1 MiB', () => {
    const big = Buffer.alloc(300 * 1024, 0x61);
    const { parser } = parse([Buffer.from('data: '), big, big, big, big]);
    expect(parser.tooLong).toBe(true);
  });
});

// A VU with only what k6/x/llm uses; samples are collected instead of going to the engine.
interface Pushed {
  metric: string;
  value: number;
  tags: Tags;
}
function makeVu(): { vu: VU; samples: Pushed[]; rc: RunContext } {
  const rc = new RunContext({});
  rc.health = new HealthRecorder();
  rc.health.start('s');
  const samples: Pushed[] = [];
  const vu = {
    rc,
    inInitContext: false,
    iter: null as Iteration | null,
    metricTags: { scenario: 's' },
    scenario: { name: 's' },
    streamPool: new ConnectionPool(),
    push(metric: Metric, value: number, tags: Tags, iter?: Iteration | null): void {
      const it = iter === undefined ? vu.iter : iter;
      if (it !== null && it.done) return;
      samples.push({ metric: metric.name, value, tags });
    },
  };
  return { vu: vu as unknown as VU, samples, rc };
}

const wait = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

let server: TestServer;
let lastBody = '';
let lastHeaders: http.IncomingHttpHeaders = {};

beforeAll(async () => {
  server = await listen((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', async () => {
      lastBody = body;
      lastHeaders = req.headers;
      const sse = (): void => {
        res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'X-Multi': ['a', 'b'] });
        res.flushHeaders();
      };
      const sock = res.socket!;
      switch (req.url) {
        case '/batch':
          sse();
          // Three events in one write (one read), then one more after a pause.
          res.write('data: 1\n\ndata: 2\n\nevent: e\ndata: 3\n\n');
          // Long against event-loop delays on a loaded machine (a late first read shortens the gap seen).
          await wait(150);
          res.end('data: 4\n\n');
          return;
        case '/split':
          sse();
          for (const piece of ['da', 'ta: a\r', '\ndata: b\r', '\n\r', '\n']) {
            res.write(piece);
            await wait(10);
          }
          res.end();
          return;
        case '/reset':
          sse();
          res.write('data: one\n\n');
          await wait(20);
          sock.resetAndDestroy();
          return;
        case '/status500':
          res.writeHead(500, { 'Content-Type': 'application/json' });
          res.end('{"error":"CUDA out of memory"}' + 'x'.repeat(10_000));
          return;
        case '/notsse':
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end('{"ok":true}');
          return;
        case '/invalid':
          sse();
          res.end('{"error":"bad"}\ndata: x\n\n');
          return;
        case '/noheaders':
          await wait(500);
          if (!res.destroyed) res.end();
          return;
        case '/idle':
          sse();
          res.write('data: a\n\n');
          await wait(40);
          res.write(': keep-alive\n\n');
          await wait(40);
          res.write('data: b\n\n');
          await wait(400);
          if (!res.destroyed) res.end();
          return;
        case '/forever': {
          sse();
          const t = setInterval(() => res.write('data: more\n\n'), 20);
          res.on('close', () => clearInterval(t));
          return;
        }
        case '/toolong':
          sse();
          res.write('data: ');
          for (let i = 0; i < 5 && !res.destroyed; i++) {
            res.write('z'.repeat(300 * 1024));
            await wait(5);
          }
          if (!res.destroyed) res.end('\n\n');
          return;
        default:
          sse();
          res.end(`data: ${JSON.stringify({ method: req.method, url: req.url })}\n\n`);
      }
    });
  });
});
afterAll(() => server.close());

async function run(path: string, params: Record<string, unknown> = {}, vuSetup?: (vu: VU) => void): Promise<{ res: LlmStreamResult; calls: LlmEvent[][]; samples: Pushed[] }> {
  const { vu, samples } = makeVu();
  vuSetup?.(vu);
  const llm = createLlmModule(vu);
  const calls: LlmEvent[][] = [];
  const res = await llm.stream({ url: server.url + path, body: '{"x":1}', ...params }, (evs: LlmEvent[]) => calls.push(evs.map((e) => ({ ...e }))));
  return { res, calls, samples };
}

describe('k6/x/llm stream()', () => {
  it('delivers events of one read in one call, times increasing and taken at arrival; result fields', async () => {
    const { res, calls } = await run('/batch', { headers: { 'Content-Type': 'application/json' } });
    expect(calls.map((c) => c.map((e) => e.data))).toEqual([['1', '2', '3'], ['4']]);
    expect(calls[0]![2]!.name).toBe('e');
    const first = calls[0]!;
    // One read: one arrival time for its three events.
    expect(first[0]!.time).toBe(first[2]!.time);
    expect(calls[1]![0]!.time - first[0]!.time).toBeGreaterThan(100);
    expect(res).toMatchObject({ status: 200, error: '', errorCode: '', body: '', events: 4, invalidLines: 0, firstInvalidLine: '' });
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['x-multi']).toBe('a, b');
    expect(res.startTime).toBeLessThanOrEqual(res.headersTime);
    expect(res.headersTime).toBeLessThanOrEqual(first[0]!.time);
    expect(calls[1]![0]!.time).toBeLessThanOrEqual(res.endTime);
    expect(lastHeaders.accept).toBe('text/event-stream');
    expect(lastHeaders['user-agent']).toBe('k6/1.3.0 (https://k6.io/)');
    expect(lastBody).toBe('{"x":1}');
  });

  it('with parseJson, hands each event its data decoded as JSON (absent when not JSON), as k6/x/llm in k6 does', async () => {
    const parsed = await run('/split', { parseJson: true });
    expect(parsed.calls.flat().map((e) => 'json' in e)).toEqual([false]); // "a\nb" is not JSON
    const numbers = await run('/batch', { parseJson: true });
    expect(numbers.calls.flat().map((e) => e.json)).toEqual([1, 2, 3, 4]);
    const plain = await run('/batch');
    expect(plain.calls.flat().some((e) => 'json' in e)).toBe(false);
    const { vu } = makeVu();
    expect(() => createLlmModule(vu).stream({ url: server.url, parseJson: 'yes' }, () => undefined)).toThrow(/parseJson/);
  });

  it('parses chunks split mid-line and mid-CRLF', async () => {
    const { calls, res } = await run('/split');
    expect(calls.flat().map((e) => e.data)).toEqual(['a\nb']);
    expect(res.errorCode).toBe('');
  });

  it('ends the request with reset when the connection is reset mid-stream', async () => {
    const { res, calls } = await run('/reset');
    expect(calls.flat().map((e) => e.data)).toEqual(['one']);
    expect(res.status).toBe(200);
    expect(res.errorCode).toBe('reset');
    expect(res.error).not.toBe('');
  });

  it('keeps the first 4 KiB of a non-2xx body and delivers no events', async () => {
    const { res, calls } = await run('/status500');
    expect(res.status).toBe(500);
    expect(res.body.startsWith('{"error":"CUDA out of memory"}')).toBe(true);
    expect(res.body.length).toBe(4096);
    expect(res.errorCode).toBe('');
    expect(calls).toEqual([]);
  });

  it('does not parse a 200 that is not text/event-stream', async () => {
    const { res, calls } = await run('/notsse');
    expect(res.body).toBe('{"ok":true}');
    expect(calls).toEqual([]);
  });

  it('counts invalid lines and keeps the first', async () => {
    const { res } = await run('/invalid');
    expect(res).toMatchObject({ invalidLines: 1, firstInvalidLine: '{"error":"bad"}', events: 1 });
  });

  it('connection failure: status 0, errorCode connect', async () => {
    const { vu } = makeVu();
    const res = await createLlmModule(vu).stream({ url: 'http://127.0.0.1:1/x' }, () => undefined);
    expect(res).toMatchObject({ status: 0, errorCode: 'connect', headersTime: 0 });
    expect(res.error).toContain('connection refused');
  });

  it('applies timeout, headerTimeout, idleTimeout (keep-alive comments count as bytes) and connectTimeout', async () => {
    expect((await run('/forever', { timeout: '100ms' })).res.errorCode).toBe('timeout');
    expect((await run('/noheaders', { headerTimeout: 0.1 })).res).toMatchObject({ errorCode: 'header_timeout', status: 0 });
    const idle = await run('/idle', { idleTimeout: '60ms' });
    expect(idle.res.errorCode).toBe('idle_timeout');
    expect(idle.calls.flat().map((e) => e.data)).toEqual(['a', 'b']);
    // A listener whose backlog is full does not complete the handshake: the connect phase hangs.
    const { vu } = makeVu();
    const res = await createLlmModule(vu).stream({ url: 'http://127.0.0.1:9/', connectTimeout: '1ns', timeout: '1s' }, () => undefined);
    expect(['connect_timeout', 'connect']).toContain(res.errorCode);
  });

  it('ends with line_too_long past 1 MiB', async () => {
    expect((await run('/toolong')).res.errorCode).toBe('line_too_long');
  });

  it('resolves invalid_request for a bad URL or method', async () => {
    const { vu } = makeVu();
    const llm = createLlmModule(vu);
    expect((await llm.stream({ url: 'ftp://x/' }, () => undefined)).errorCode).toBe('invalid_request');
    expect((await llm.stream({ url: server.url, method: 'BAD METHOD' }, () => undefined)).errorCode).toBe('invalid_request');
  });

  it('throws synchronously for misuse, and in the init context', () => {
    const { vu } = makeVu();
    const llm = createLlmModule(vu);
    const f = (): void => undefined;
    expect(() => llm.stream(null, f)).toThrow(/params/);
    expect(() => llm.stream({}, f)).toThrow(/url/);
    expect(() => llm.stream({ url: server.url }, 'x')).toThrow(/onEvents/);
    expect(() => llm.stream({ url: server.url, timeout: true }, f)).toThrow(/timeout/);
    expect(() => llm.stream({ url: server.url, idleTimeout: 'soon' }, f)).toThrow(/idleTimeout/);
    expect(() => llm.stream({ url: server.url, timeout: -1 }, f)).toThrow(/timeout/);
    expect(() => llm.stream({ url: server.url, tags: { a: {} } }, f)).toThrow(/tag a/);
    (vu as { inInitContext: boolean }).inInitContext = true;
    expect(() => llm.stream({ url: server.url }, f)).toThrow('using llm.stream in the init context is not supported');
  });

  it('rejects with the exception of onEvents and ends the request', async () => {
    const { vu } = makeVu();
    const p = createLlmModule(vu).stream({ url: server.url + '/forever' }, () => {
      throw new Error('from handler');
    });
    await expect(p).rejects.toThrow('from handler');
  });

  it('a cut iteration destroys the connection and leaves the promise pending', async () => {
    const { vu, samples } = makeVu();
    const iter = new Iteration(vu, null, 0);
    (vu as { iter: Iteration | null }).iter = iter;
    let closed = false;
    const probe = await listen((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('data: x\n\n');
      res.on('close', () => (closed = true));
    });
    let settled = false;
    const calls: number[] = [];
    void createLlmModule(vu)
      .stream({ url: probe.url }, (evs: LlmEvent[]) => calls.push(evs.length))
      .finally(() => (settled = true));
    await wait(50);
    iter.cut();
    await wait(50);
    expect(closed).toBe(true);
    expect(settled).toBe(false);
    expect(calls).toEqual([1]);
    expect(samples).toEqual([]);
    await probe.close();
  });

  it('pushes http_* samples with k6 tags at the end, and counts bytes on the iteration', async () => {
    let iter: Iteration | null = null;
    const { samples } = await run('/batch', { tags: { name: 'chat', extra: 1 } }, (vu) => {
      iter = new Iteration(vu, null, 0);
      (vu as { iter: Iteration | null }).iter = iter;
    });
    expect(samples.map((s) => s.metric).sort()).toEqual(['http_req_connecting', 'http_req_duration', 'http_req_failed', 'http_reqs', 'http_req_waiting'].sort());
    for (const s of samples) {
      expect(s.tags).toEqual({ scenario: 's', group: '', method: 'POST', url: server.url + '/batch', name: 'chat', status: '200', expected_response: 'true', extra: '1' });
    }
    const by = (m: string): number => samples.find((s) => s.metric === m)!.value;
    expect(by('http_reqs')).toBe(1);
    expect(by('http_req_failed')).toBe(0);
    expect(by('http_req_duration')).toBeGreaterThan(25);
    expect(by('http_req_waiting')).toBeGreaterThanOrEqual(0);
    expect(iter!.bytesSent).toBeGreaterThan(100);
    expect(iter!.bytesReceived).toBeGreaterThan(100);
    const failed = await run('/status500');
    expect(failed.samples.find((s) => s.metric === 'http_req_failed')).toMatchObject({ value: 1, tags: { status: '500', expected_response: 'false', name: server.url + '/status500' } });
  });

  it('reuses a VU connection: connecting 0 on the second request, one TCP connection for several requests', async () => {
    const { vu, samples } = makeVu();
    const llm = createLlmModule(vu);
    for (let i = 0; i < 4; i++) await llm.stream({ url: server.url + '/x' }, () => undefined);
    expect(vu.streamPool.opened).toBe(1);
    const connecting = samples.filter((s) => s.metric === 'http_req_connecting').map((s) => s.value);
    expect(connecting.slice(1)).toEqual([0, 0, 0]);
  });
});

describe('k6/x/llm in a bundle', () => {
  it('resolves the import, stamps events on the currentTestRunDuration scale, pushes http_reqs', async () => {
    const dir = tempDir();
    const r = await runCli(['run', '-q', '--summary-export', 'summary.json', '-e', `BASE_URL=${server.url}`, join(FIXTURES, 'llm.js')], { cwd: dir });
    expect(r.code).toBe(0);
    const runs = consoleMessages(r.stderr).map((m) => JSON.parse(m) as { before: number; after: number; times: number[]; status: number; events: number; errorCode: string });
    expect(runs).toHaveLength(2);
    for (const x of runs) {
      expect(x).toMatchObject({ status: 200, events: 4, errorCode: '' });
      expect(x.times[0]!).toBeGreaterThan(x.before);
      expect(x.times[3]!).toBeLessThanOrEqual(x.after);
    }
    const summary = JSON.parse((await import('node:fs')).readFileSync(join(dir, 'summary.json'), 'utf8')) as { metrics: Record<string, { count?: number; value?: number }> };
    expect(summary.metrics.http_reqs!.count).toBe(2);
    expect(summary.metrics.http_req_failed!.value).toBe(0);
  });
});

describe('plain-http transport keep-alive (the TTFT delay of a new connection per request)', () => {
  let srv: net.Server | null = null;
  afterEach(() => {
    srv?.close();
    srv = null;
  });

  it('writes a request on a pooled connection inside the call: one connection for N requests', async () => {
    let accepted = 0;
    const h = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.end('data: x\n\n');
    });
    h.on('connection', () => accepted++);
    srv = h;
    await new Promise<void>((r) => h.listen(0, '127.0.0.1', r));
    const url = new URL(`http://127.0.0.1:${(h.address() as net.AddressInfo).port}/`);
    const pool = new ConnectionPool();
    const N = 5;
    const sentAtReturn: number[] = [];
    for (let i = 0; i < N; i++) {
      await new Promise<void>((resolve, reject) => {
        const handle = openPlainStream(url, 'POST', { 'Content-Length': '2' }, Buffer.from('{}'), { response: () => undefined, body: () => undefined, end: resolve, error: reject }, pool);
        // Bytes already handed to the kernel when the call returns: no event-loop turn before the write.
        sentAtReturn.push(handle.bytes().sent);
      });
    }
    expect(accepted / N).toBe(1 / N);
    expect(pool.opened).toBe(1);
    expect(sentAtReturn[0]).toBe(0);
    expect(sentAtReturn.slice(1).every((n) => n > 0)).toBe(true);
    pool.destroy();
    h.closeAllConnections();
  });

  it('retries once on a new connection when the server closed the reused one before answering', async () => {
    let accepted = 0;
    const RESPONSE = 'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: 9\r\n\r\ndata: x\n\n';
    srv = net.createServer((sock) => {
      accepted++;
      let requests = 0;
      sock.on('data', () => {
        // The first connection answers once, then drops the connection when the next request comes.
        if (accepted === 1 && ++requests === 2) sock.destroy();
        else sock.write(RESPONSE);
      });
    });
    await new Promise<void>((r) => srv!.listen(0, '127.0.0.1', r));
    const url = new URL(`http://127.0.0.1:${(srv.address() as net.AddressInfo).port}/`);
    const pool = new ConnectionPool();
    const once = (): Promise<string> =>
      new Promise((resolve) => {
        const parts: string[] = [];
        openPlainStream(url, 'GET', {}, null, { response: () => undefined, body: (c) => parts.push(c.toString()), end: () => resolve(parts.join('')), error: (e) => resolve(`error ${e.message}`) }, pool);
      });
    expect(await once()).toBe('data: x\n\n');
    expect(await once()).toBe('data: x\n\n');
    expect(accepted).toBe(2);
    pool.destroy();
  });
});
