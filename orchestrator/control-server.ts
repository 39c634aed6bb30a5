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

  /** `runner`: the VU's k6 process in a split run, as it says in /next (the driver keeps it). */
  const answer = (vu: number, res: ServerResponse, runner?: number): boolean => {
    const d = driver.next(vu, runner);
    if (d.kind === 'wait') return false;
    const body: NextAnswer = d.kind === 'stop' ? { stop: true } : { stop: false, ticket: d.ticket };
    send(res, 200, body);
    return true;
  };
  // Work is freed by a /done, or by the clock when a step waits out its quiet gap: then a timer wakes the VUs.
  let quietTimer: NodeJS.Timeout | null = null;
  const wake = (): void => {
    for (const [vu, res] of [...waiting]) {
      if (answer(vu, res)) waiting.delete(vu);
    }
    wakeAfterQuiet();
  };
  const wakeAfterQuiet = (): void => {
    const ms = driver.quietForMs();
    if (ms === null || quietTimer !== null || waiting.size === 0) return;
    quietTimer = setTimeout(() => {
      quietTimer = null;
      wake();
    }, Math.ceil(ms));
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://control');
    if (req.method === 'GET' && url.pathname === CONTROL_PATHS.next) {
      const vu = Number(url.searchParams.get('vu'));
      if (!Number.isInteger(vu) || vu < 1) return send(res, 400, { error: 'vu must be a VU id' });
      const runner = Number(url.searchParams.get('runner') ?? '0');
      if (!Number.isInteger(runner) || runner < 0) return send(res, 400, { error: 'runner must be a runner index' });
      waiting.get(vu)?.destroy();
      if (!answer(vu, res, runner)) {
        waiting.set(vu, res);
        res.on('close', () => {
          if (waiting.get(vu) === res) waiting.delete(vu);
        });
        wakeAfterQuiet();
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
