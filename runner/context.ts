// Shared state of one test run: metrics, counters, abort status, caches for open() and SharedArray. Runs in Node.
import { monoMs } from './clock';
import { RunnerEmitter } from './events';
import { MetricsEngine, type Metric, type Tags } from './metrics-engine';
import type { ExitCode } from './exit-codes';
import type { RunOptions } from './options';
import type { HealthRecorder } from './health';

export interface BuiltinRefs {
  readonly vus: Metric;
  readonly vusMax: Metric;
  readonly iterations: Metric;
  readonly iterationDuration: Metric;
  readonly dataSent: Metric;
  readonly dataReceived: Metric;
  readonly httpReqs: Metric;
  readonly httpReqFailed: Metric;
  readonly httpReqDuration: Metric;
  readonly httpReqBlocked: Metric;
  readonly httpReqConnecting: Metric;
  readonly httpReqTlsHandshaking: Metric;
  readonly httpReqSending: Metric;
  readonly httpReqWaiting: Metric;
  readonly httpReqReceiving: Metric;
}

export interface AbortState {
  readonly exitCode: ExitCode;
  readonly message: string;
}

export class RunContext {
  readonly engine = new MetricsEngine();
  readonly events = new RunnerEmitter();
  readonly builtin: BuiltinRefs;
  /** Monotonic ms at test start; currentTestRunDuration counts from here. */
  startMono = monoMs();
  iterationsCompleted = 0;
  iterationsInterrupted = 0;
  vusActive = 0;
  vusInitialized = 0;
  aborted: AbortState | null = null;
  /** Called once when the run must stop early (exec.test.abort, abortOnFail, a signal). */
  onAbort: (() => void) | null = null;
  options: RunOptions | null = null;
  setupDataJson: string | undefined;
  /** open() reads each file once, however many VUs ask. */
  readonly fileCache = new Map<string, Buffer>();
  readonly sharedArrays = new Map<string, readonly unknown[]>();
  /** Tags on every sample (--tag and options.tags). */
  globalTags: Tags = {};
  health: HealthRecorder | null = null;

  constructor(readonly env: Readonly<Record<string, string>>) {
    const m = (name: string): Metric => this.engine.get(name)!;
    this.builtin = {
      vus: m('vus'),
      vusMax: m('vus_max'),
      iterations: m('iterations'),
      iterationDuration: m('iteration_duration'),
      dataSent: m('data_sent'),
      dataReceived: m('data_received'),
      httpReqs: m('http_reqs'),
      httpReqFailed: m('http_req_failed'),
      httpReqDuration: m('http_req_duration'),
      httpReqBlocked: m('http_req_blocked'),
      httpReqConnecting: m('http_req_connecting'),
      httpReqTlsHandshaking: m('http_req_tls_handshaking'),
      httpReqSending: m('http_req_sending'),
      httpReqWaiting: m('http_req_waiting'),
      httpReqReceiving: m('http_req_receiving'),
    };
  }

  markStarted(): void {
    this.startMono = monoMs();
  }

  elapsedMs(): number {
    return monoMs() - this.startMono;
  }

  /** exec.test.fail(): the run continues but exits 110 (unless another code came first). */
  failedMessage: string | null = null;
  markFailed(message: string): void {
    if (this.failedMessage === null) this.failedMessage = message;
  }

  /** The first abort wins, as k6's errext.WithExitCodeIfNone. */
  abort(exitCode: ExitCode, message: string): void {
    if (this.aborted) return;
    this.aborted = { exitCode, message };
    this.onAbort?.();
  }
}
