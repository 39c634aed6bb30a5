// k6/x/sse over a real local SSE server: the edge cases a real xk6-sse build showed (docs/k6-observed.md, "k6/x/sse"). Runs in Node.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleMessages, FIXTURES, listen, runCli, tempDir, type TestServer } from './helpers';

interface Capture {
  path: string;
  opened: boolean;
  res: { url: string; status: number; headers: Record<string, string>; error: string };
  events: { id: string; name: string; data: string; comment: string }[];
  errors: string[];
}

let server: TestServer;
let captures: Map<string, Capture>;
let tail: { threw: string; handlerThrow: string; closed: number };
let code: number | null;

beforeAll(async () => {
  server = await listen((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const sse = (status = 200): void => {
        res.writeHead(status, { 'Content-Type': 'text/event-stream', 'X-Multi': ['a', 'b'] });
      };
      switch (req.url) {
        case '/comments':
          sse();
          res.end(': keep-alive\n\ndata: x\n\n');
          return;
        case '/crlf':
          sse();
          res.end('id: 1\r\nevent: delta\r\n: c\r\ndata: one\r\ndata: two\r\n\r\n');
          return;
        case '/unknown':
          sse();
          res.end('{"error":{"message":"bad"}}\ndata: after\n\n');
          return;
        case '/unterminated':
          sse();
          res.end('data: complete\n\ndata: partial');
          return;
        case '/status404':
          sse(404);
          res.end('data: nope\n\n');
          return;
        case '/echo':
          sse();
          res.end(`data: ${JSON.stringify({ method: req.method, body, ct: req.headers['content-type'], accept: req.headers.accept })}\n\n`);
          return;
        case '/slow':
        case '/forever': {
          sse();
          res.write('data: first\n\n');
          const t = setInterval(() => res.write('data: more\n\n'), 50);
          req.on('close', () => clearInterval(t));
          return;
        }
        default:
          res.writeHead(500);
          res.end();
      }
    });
  });
  const r = await runCli(['run', '-q', '-e', `BASE_URL=${server.url}`, join(FIXTURES, 'sse-edges.js')], { cwd: tempDir() });
  code = r.code;
  const msgs = consoleMessages(r.stderr).map((m) => JSON.parse(m) as Capture & typeof tail);
  captures = new Map(msgs.filter((m) => m.path).map((m) => [m.path, m]));
  tail = msgs.find((m) => !m.path)!;
});

afterAll(() => server.close());

describe('k6/x/sse', () => {
  it('runs the fixture', () => {
    expect(code).toBe(0);
  });

  it('delivers a comment-only block as an event with empty data; fires open after setup', () => {
    const c = captures.get('/comments')!;
    expect(c.opened).toBe(true);
    expect(c.events).toEqual([
      { id: '', name: '', data: '', comment: 'keep-alive' },
      { id: '', name: '', data: 'x', comment: '' },
    ]);
    expect(c.res).toMatchObject({ url: `${server.url}/comments`, status: 200, error: '' });
    expect(c.res.headers['Content-Type']).toBe('text/event-stream');
    expect(c.res.headers['X-Multi']).toBe('a, b');
  });

  it('keeps a trailing \\r on id, name and comment with CRLF', () => {
    expect(captures.get('/crlf')!.events).toEqual([{ id: '1\r', name: 'delta\r', comment: 'c\r', data: 'one\r\ntwo' }]);
  });

  it('fires error "unknown event: ..." for a line with an unknown field', () => {
    const c = captures.get('/unknown')!;
    expect(c.errors).toEqual(['unknown event: {"error":{"message":"bad"}}\n']);
    expect(c.events.map((e) => e.data)).toEqual(['after']);
  });

  it('drops an unterminated last line', () => {
    expect(captures.get('/unterminated')!.events.map((e) => e.data)).toEqual(['complete']);
  });

  it('treats a non-2xx status like any other', () => {
    const c = captures.get('/status404')!;
    expect(c.res.status).toBe(404);
    expect(c.events.map((e) => e.data)).toEqual(['nope']);
  });

  it('sends method, trimmed body and headers, with Accept: text/event-stream', () => {
    expect(JSON.parse(captures.get('/echo')!.events[0]!.data)).toEqual({ method: 'POST', body: '{"x":1}', ct: 'application/json', accept: 'text/event-stream' });
  });

  it('applies params.timeout to the whole stream', () => {
    const c = captures.get('/slow')!;
    expect(c.events.length).toBeGreaterThan(0);
    expect(c.errors.length).toBe(1);
    expect(c.errors[0]).toContain('deadline exceeded');
  });

  it('returns status 0 and an error on connection failure without calling the error handler', () => {
    const c = captures.get('http://127.0.0.1:1/refused')!;
    expect(c.res).toEqual({ url: '', status: 0, headers: {}, error: expect.stringContaining('connection refused') as unknown });
    expect(c.errors).toEqual([]);
    expect(c.opened).toBe(false);
  });

  it('rejects a numeric timeout, propagates handler exceptions, and close() ends the stream', () => {
    expect(tail.threw).toContain('duration string');
    expect(tail.handlerThrow).toBe('from handler');
    expect(tail.closed).toBe(1);
  });
});
