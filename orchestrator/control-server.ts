// The bench's control endpoint for a driven run (lib/drive.ts): long-polled /next, /done and /status over loopback HTTP.
// Runs in Node.

import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONTROL_PATHS, parseDoneReport, type CapacityAnnouncement, type NextAnswer, type StatusAnswer } from '../lib/drive';
import type { Driver } from './driver';
import { readRequestBody } from '../node/request-body';

export interface ControlServer {
  readonly url: string;
  close(): Promise<void>;
}

const MAX_BODY = 4 * 1024 * 1024;

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}


/**
 * Serves a driver on 127.0.0.1 (a free port). A VU with nothing to do waits in its /next request until
 * the driver has work for it, so parked VUs cost nothing; every /done may free work for them. /status says
 * whether the run is over and what `capacities` has decided, which the script pushes to k6's outputs.
 */
export async function startControlServer(
  driver: Driver, capacities: () => readonly CapacityAnnouncement[] = () => [],
): Promise<ControlServer> {
  const waiting = new Map<number, ServerResponse>();

  /**
   * Answers a VU's /next when the driver has work for it or the run is over (true); else how long until the clock
   * alone may free work, null when only a /done can. `runner`: the VU's k6 process in a split run.
   */
  const answer = (vu: number, res: ServerResponse, runner?: number): true | number | null => {
    const d = driver.next(vu, runner);
    if (d.kind === 'wait') return d.forMs;
    const body: NextAnswer = d.kind === 'stop' ? { stop: true } : { stop: false, ticket: d.ticket };
    send(res, 200, body);
    return true;
  };
  // Work is freed by a /done, or by the clock when a step waits out its quiet gap: then a timer wakes the VUs.
  let quietTimer: NodeJS.Timeout | null = null;
  let quietEndsMs = Infinity;
  const wakeAfter = (ms: number | null): void => {
    if (ms === null || waiting.size === 0) return;
    const endsMs = performance.now() + ms;
    if (quietTimer !== null && quietEndsMs <= endsMs) return;
    if (quietTimer !== null) clearTimeout(quietTimer);
    quietEndsMs = endsMs;
    // A timer may fire a little before the driver's clock has the gap over: then the VUs get another, shorter wait.
    quietTimer = setTimeout(() => {
      quietTimer = null;
      quietEndsMs = Infinity;
      wake();
    }, Math.max(1, Math.ceil(ms)));
  };
  const wake = (): void => {
    let soonestMs: number | null = null;
    for (const [vu, res] of [...waiting]) {
      const a = answer(vu, res);
      if (a === true) waiting.delete(vu);
      else if (a !== null) soonestMs = Math.min(soonestMs ?? a, a);
    }
    wakeAfter(soonestMs);
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://control');
    if (req.method === 'GET' && url.pathname === CONTROL_PATHS.next) {
      const vu = Number(url.searchParams.get('vu'));
      if (!Number.isInteger(vu) || vu < 1) return send(res, 400, { error: 'vu must be a VU id' });
      const runner = Number(url.searchParams.get('runner') ?? '0');
      if (!Number.isInteger(runner) || runner < 0) return send(res, 400, { error: 'runner must be a runner index' });
      waiting.get(vu)?.destroy();
      const a = answer(vu, res, runner);
      if (a !== true) {
        waiting.set(vu, res);
        res.on('close', () => {
          if (waiting.get(vu) === res) waiting.delete(vu);
        });
        wakeAfter(a);
      }
      return;
    }
    if (req.method === 'POST' && url.pathname === CONTROL_PATHS.done) {
      readRequestBody(req, MAX_BODY, () => new Error('body too large')).then(
        (text) => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            return send(res, 400, { error: 'body is not JSON' });
          }
          const report = parseDoneReport(parsed);
          if (!report) return send(res, 400, { error: 'not a done report' });
          // An unknown ticket (a request from before a restart) is left out of every step.
          send(res, 200, { phase: driver.done(report) ?? 'transition' });
          wake();
        },
        () => send(res, 400, { error: 'unreadable body' }),
      );
      return;
    }
    if (req.method === 'GET' && url.pathname === CONTROL_PATHS.status) {
      const answer: StatusAnswer = { finished: driver.finished, capacities: capacities() };
      return send(res, 200, answer);
    }
    send(res, 404, { error: 'not found' });
  });
  // Long polls can wait for minutes; k6 keeps its connections alive between calls.
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 130_000;
  server.requestTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        if (quietTimer !== null) clearTimeout(quietTimer);
        for (const res of waiting.values()) res.destroy();
        waiting.clear();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
