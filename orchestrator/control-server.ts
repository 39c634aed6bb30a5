// The bench's control endpoint for a driven run (lib/drive.ts): long-polled /next, /done and /status over loopback
// HTTP. Runs in Node.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CONTROL_PATHS, parseDoneReport, type CapacityAnnouncement, type NextAnswer, type StatusAnswer,
} from '../lib/drive';
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
 * The VUs waiting in their /next, one response each. Work is freed by a /done, or by the clock when a step waits out
 * its quiet gap: then a timer wakes the VUs.
 */
class ParkedVus {
  private readonly waiting = new Map<number, ServerResponse>();
  private quietTimer: NodeJS.Timeout | null = null;
  private quietEndsMs = Infinity;

  constructor(private readonly driver: Driver) {}

  /** A VU's /next: answered now if the driver has work for it or the run is over, else parked until then. */
  park(vu: number, res: ServerResponse, runner: number): void {
    this.waiting.get(vu)?.destroy();
    const a = this.answer(vu, res, runner);
    if (a === true) return;
    this.waiting.set(vu, res);
    res.on('close', () => {
      if (this.waiting.get(vu) === res) this.waiting.delete(vu);
    });
    this.wakeAfter(a);
  }

  /** Answers every parked VU the driver now has work for; the others wait on. */
  wake(): void {
    let soonestMs: number | null = null;
    for (const [vu, res] of [...this.waiting]) {
      const a = this.answer(vu, res);
      if (a === true) this.waiting.delete(vu);
      else if (a !== null) soonestMs = Math.min(soonestMs ?? a, a);
    }
    this.wakeAfter(soonestMs);
  }

  /** Stops the timer and drops every parked VU's connection. */
  close(): void {
    if (this.quietTimer !== null) clearTimeout(this.quietTimer);
    for (const res of this.waiting.values()) res.destroy();
    this.waiting.clear();
  }

  /**
   * Answers a VU's /next when the driver has work for it or the run is over (true); else how long until the clock
   * alone may free work, null when only a /done can. `runner`: the VU's k6 process in a split run.
   */
  private answer(vu: number, res: ServerResponse, runner?: number): true | number | null {
    const d = this.driver.next(vu, runner);
    if (d.kind === 'wait') return d.forMs;
    const body: NextAnswer = d.kind === 'stop' ? { stop: true } : { stop: false, ticket: d.ticket };
    send(res, 200, body);
    return true;
  }

  /** Wakes the VUs in `ms` (null: never, only a /done frees work), unless a timer already wakes them sooner. */
  private wakeAfter(ms: number | null): void {
    if (ms === null || this.waiting.size === 0) return;
    const endsMs = performance.now() + ms;
    if (this.quietTimer !== null && this.quietEndsMs <= endsMs) return;
    if (this.quietTimer !== null) clearTimeout(this.quietTimer);
    this.quietEndsMs = endsMs;
    // A timer may fire a little before the driver's clock has the gap over: then the VUs get another, shorter wait.
    this.quietTimer = setTimeout(() => {
      this.quietTimer = null;
      this.quietEndsMs = Infinity;
      this.wake();
    }, Math.max(1, Math.ceil(ms)));
  }
}

/** GET /next?vu=N[&runner=R]: a VU asks for its next request. */
function handleNext(url: URL, res: ServerResponse, parked: ParkedVus): void {
  const vu = Number(url.searchParams.get('vu'));
  if (!Number.isInteger(vu) || vu < 1) return send(res, 400, { error: 'vu must be a VU id' });
  const runner = Number(url.searchParams.get('runner') ?? '0');
  if (!Number.isInteger(runner) || runner < 0) return send(res, 400, { error: 'runner must be a runner index' });
  parked.park(vu, res, runner);
}

/** POST /done: a VU reports a finished request, which may free work for the parked VUs. */
function handleDone(req: IncomingMessage, res: ServerResponse, driver: Driver, parked: ParkedVus): void {
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
      parked.wake();
    },
    () => send(res, 400, { error: 'unreadable body' }),
  );
}

/** Listens on a free port of 127.0.0.1; the port. */
async function listenOnLoopback(server: Server): Promise<number> {
  // Long polls can wait for minutes; k6 keeps its connections alive between calls.
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 130_000;
  server.requestTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/**
 * Serves a driver on 127.0.0.1 (a free port). A VU with nothing to do waits in its /next request until
 * the driver has work for it, so parked VUs cost nothing; every /done may free work for them. /status says
 * whether the run is over and what `capacities` has decided, which the script pushes to k6's outputs.
 */
export async function startControlServer(
  driver: Driver, capacities: () => readonly CapacityAnnouncement[] = () => [],
): Promise<ControlServer> {
  const parked = new ParkedVus(driver);
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://control');
    if (req.method === 'GET' && url.pathname === CONTROL_PATHS.next) return handleNext(url, res, parked);
    if (req.method === 'POST' && url.pathname === CONTROL_PATHS.done) return handleDone(req, res, driver, parked);
    if (req.method === 'GET' && url.pathname === CONTROL_PATHS.status) {
      const answer: StatusAnswer = { finished: driver.finished, capacities: capacities() };
      return send(res, 200, answer);
    }
    send(res, 404, { error: 'not found' });
  });
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        parked.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
