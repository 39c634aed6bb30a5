// The k6 side of a bench-driven run's control endpoint (lib/drive.ts): tickets in, reports out. Runs in k6 (bundled).

import exec from 'k6/execution';
import http from 'k6/http';
import {
  CONTROL_PATHS, parseDoneAnswer, parseNextAnswer, parseStatusAnswer, type DoneReport, type StatusAnswer, type Ticket,
} from '../drive';
import type { RequestRecord } from '../record';
import type { AgentHealth } from './llm';
import { nowMs, pause } from './clock';

/** What a VU tells the bench of a request it was handed: the record's figures, none of a failed request's. */
export function doneReport(t: Ticket, r: RequestRecord, health: AgentHealth): DoneReport {
  const ok = r.outcome === 'completed';
  return {
    ticket: t.ticket,
    ok,
    startMs: r.startMs,
    endMs: r.endMs,
    ttftMs: ok ? r.ttftMs : null,
    ttfcMs: ok ? r.ttfcMs : null,
    e2eMs: ok ? r.e2eMs : null,
    tpotMs: ok ? r.tpotMs : null,
    decodeTokensPerSecond: ok ? r.decodeTokensPerSecond : null,
    prefillTokensPerSecond: ok ? r.prefillTokensPerSecond : null,
    outputTokens: ok ? r.outputTokens : 0,
    itlMs: ok ? r.itlMs : [],
    goodput: r.goodput,
    readLagMs: health.readLagMs,
    stallMs: health.stallMs ?? null,
    cpuPerCore: health.cpuPerCore,
    tokensReadTogether: ok ? (health.tokensReadTogether ?? null) : null,
  };
}

export interface ControlClient {
  /** `runner`: this process's 0-based index in a split run (0 otherwise). */
  next(vu: number, runner: number): Promise<ReturnType<typeof parseNextAnswer>>;
  done(report: DoneReport): Promise<ReturnType<typeof parseDoneAnswer>['phase']>;
  status(): Promise<StatusAnswer>;
  /** One /status call, no retries, null on any failure: for teardown, where k6 has no run clock. */
  finalStatus(): Promise<StatusAnswer | null>;
}

/** Control calls are tagged name=bench-control so they stay apart from the measured requests in http_* metrics. */
const CONTROL_PARAMS = {
  tags: { name: 'bench-control' }, timeout: '1h', headers: { 'content-type': 'application/json' },
};
/** A VU that cannot reach the bench for this long ends the run: the bench is gone. */
const CONTROL_GIVE_UP_MS = 30_000;

export function controlClient(base: string): ControlClient {
  const call = async (method: 'GET' | 'POST', path: string, body: string | null): Promise<string> => {
    let since = nowMs();
    for (;;) {
      const attempt = nowMs();
      const res = await http.asyncRequest(method, base + path, body, CONTROL_PARAMS);
      if (res.status === 200 && typeof res.body === 'string') return res.body;
      // A long poll that ran into its own timeout met a live bench: only quick failures count.
      if (nowMs() - attempt > CONTROL_GIVE_UP_MS) since = nowMs();
      else if (nowMs() - since > CONTROL_GIVE_UP_MS)
        exec.test.abort(
          `the bench's control endpoint ${base} stopped answering ` +
          `(${res.status === 0 ? res.error : `HTTP ${res.status}`})`,
        );
      await pause(500);
    }
  };
  return {
    async next(vu, runner) {
      return parseNextAnswer(await call('GET', `${CONTROL_PATHS.next}?vu=${vu}&runner=${runner}`, null));
    },
    async done(report) {
      return parseDoneAnswer(await call('POST', CONTROL_PATHS.done, JSON.stringify(report))).phase;
    },
    async status() {
      return parseStatusAnswer(await call('GET', CONTROL_PATHS.status, null));
    },
    async finalStatus() {
      try {
        const params = { ...CONTROL_PARAMS, timeout: '10s' };
        const res = await http.asyncRequest('GET', base + CONTROL_PATHS.status, null, params);
        return res.status === 200 && typeof res.body === 'string' ? parseStatusAnswer(res.body) : null;
      } catch {
        return null;
      }
    },
  };
}
