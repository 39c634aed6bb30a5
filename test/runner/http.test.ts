// k6/http through the CLI: http.asyncRequest works; the request functions the runner does not provide throw one clear message. Runs in Node.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleMessages, FIXTURES, listen, runCli, type TestServer } from './helpers';

describe('k6/http', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await listen((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.end(`${req.method} ${req.url} ${body}`);
      });
    });
  });
  afterAll(() => server.close());

  it('answers asyncRequest; request, get, post, ..., batch, expectedStatuses and setResponseCallback throw "supports only http.asyncRequest"', async () => {
    const r = await runCli(['run', '-q', '-e', `BASE_URL=${server.url}`, join(FIXTURES, 'http.js')]);
    expect(r.code, r.stderr).toBe(0);
    const seen = JSON.parse(consoleMessages(r.stderr)[0]!) as { status: number; body: string; removed: Record<string, string>; named: string };
    expect(seen.status).toBe(200);
    expect(seen.body).toBe('POST /echo hello');
    for (const [name, message] of Object.entries(seen.removed)) expect(message).toBe(`http.${name} is not supported by the local runner: it supports only http.asyncRequest`);
    expect(Object.keys(seen.removed)).toHaveLength(11);
    expect(seen.named).toBe('http.get is not supported by the local runner: it supports only http.asyncRequest');
  });
});
