// A virtual user: its own vm context with k6's globals, its own evaluation of the bundle, its module instances. Runs in Node.
import { readFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { isAbsolute, resolve } from 'node:path';
import vm from 'node:vm';
import { epochMs } from './clock';
import type { RunContext } from './context';
import type { LoadedBundle } from './load-bundle';
import { logLine } from './log';
import type { Metric, Tags } from './metrics-engine';
import type { ScenarioRuntime } from './scenario-runtime';
import { createK6Module } from './modules/k6';
import { createMetricsModule } from './modules/metrics';
import { createExecutionModule } from './modules/execution';
import { createHttpModule } from './modules/http';
import { createSseModule } from './modules/sse';
import { createLlmModule } from './modules/llm';
import { ConnectionPool } from './modules/sse-transport';
import { createDataModule } from './modules/data';
import { createTimersModule, type VuTimers } from './modules/timers';

/** One run of an exported function; cut() is gracefulStop expiry or a stopped test. */
export class Iteration {
  done = false;
  bytesSent = 0;
  bytesReceived = 0;
  readonly startMono: number;
  /** Things to stop when the iteration is cut: open streams, pending sleeps and timers. */
  readonly cleanups = new Set<() => void>();
  private resolveCut!: () => void;
  readonly whenCut = new Promise<'cut'>((r) => {
    this.resolveCut = () => r('cut');
  });

  constructor(
    readonly vu: VU,
    readonly scenario: ScenarioRuntime | null,
    startMono: number,
  ) {
    this.startMono = startMono;
  }

  cut(): void {
    if (this.done) return;
    this.done = true;
    for (const c of this.cleanups) {
      try {
        c();
      } catch {
        // A failing cleanup must not keep others from running.
      }
    }
    this.cleanups.clear();
    this.resolveCut();
  }
}

export type VuPhase = 'init' | 'setup' | 'iteration' | 'teardown' | 'summary';

/** Error thrown by exec.test.abort(): ends the iteration and the test (exit 108). */
export class TestAbortError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TestAbortError';
  }
}

export class VU {
  phase: VuPhase = 'init';
  iter: Iteration | null = null;
  scenario: ScenarioRuntime | null = null;
  /** exec.vu.metrics.tags: the VU's tags (global, scenario tags, scenario name); writable by the script. */
  metricTags: Tags = {};
  /** exec.vu.metrics.metadata: carried by every sample the VU pushes while set (k6's sample metadata), never indexed. */
  readonly metricMetadata: Record<string, unknown> = {};
  iterationInInstance = 0;
  iterationInScenario = 0;
  /** exec.scenario.iterationInTest of the running iteration (unique within the scenario). */
  scenarioIterationInTest = 0;
  readonly context: vm.Context;
  exports: Record<string, unknown> = {};
  readonly timers: VuTimers;
  /** Keep-alive connections per VU, as k6 reuses a VU's connections between iterations. */
  readonly agent = new Agent({ keepAlive: true });
  /** Keep-alive connections of the lean plain-http stream transport (k6/x/sse, k6/x/llm). */
  readonly streamPool = new ConnectionPool();
  private readonly modules = new Map<string, unknown>();
  private setupDataCache: { json: string | undefined; value: unknown } | null = null;
  private readonly jsonParse: (text: string) => unknown;

  constructor(
    readonly id: number,
    readonly rc: RunContext,
    readonly bundle: LoadedBundle,
  ) {
    this.timers = createTimersModule(this);
    const sandbox: Record<string, unknown> = {
      __ENV: { ...rc.env },
      __VU: id,
      __ITER: 0,
      console: makeConsole(),
      setTimeout: this.timers.setTimeout,
      clearTimeout: this.timers.clearTimeout,
      setInterval: this.timers.setInterval,
      clearInterval: this.timers.clearInterval,
    };
    this.context = vm.createContext(sandbox, { name: `VU ${id}` });
    vm.runInContext('globalThis.global = globalThis;', this.context);
    this.jsonParse = vm.runInContext('(t) => JSON.parse(t)', this.context) as (text: string) => unknown;
  }

  /** Evaluates the bundle in this VU (k6 runs init code once per VU). Throws what the script throws. */
  init(): void {
    const fn = this.bundle.script.runInContext(this.context) as (e: unknown, r: (n: string) => unknown, m: unknown, o: unknown) => void;
    const module = { exports: {} as Record<string, unknown> };
    fn.call(undefined, module.exports, (name: string) => this.require(name), module, (path: string, mode?: string) => this.open(path, mode));
    this.exports = module.exports;
    this.phase = 'setup';
  }

  setGlobal(name: string, value: unknown): void {
    (this.context as Record<string, unknown>)[name] = value;
  }

  /** JSON.parse in the VU's realm, so objects the script gets have its own prototypes. */
  parseJson(text: string): unknown {
    return this.jsonParse(text);
  }

  /** setup()'s data, one copy per VU (k6 JSON-serialises it and each VU parses its own). */
  setupData(): unknown {
    const json = this.rc.setupDataJson;
    if (!this.setupDataCache || this.setupDataCache.json !== json) {
      this.setupDataCache = { json, value: json === undefined ? undefined : this.parseJson(json) };
    }
    return this.setupDataCache.value;
  }

  get inInitContext(): boolean {
    return this.phase === 'init';
  }

  /**
   * Pushes a sample unless the iteration it belongs to was cut (k6's PushIfNotDone). Setup and
   * teardown samples have no iteration and always count.
   */
  push(metric: Metric, value: number, tags: Tags, iter: Iteration | null = this.iter, time = epochMs()): void {
    if (iter !== null && iter.done) return;
    let metadata: Tags | undefined;
    for (const k in this.metricMetadata) (metadata ??= {})[k] = String(this.metricMetadata[k]);
    this.rc.engine.push(metric, time, value, tags, metadata);
  }

  require(name: string): unknown {
    let mod = this.modules.get(name);
    if (mod !== undefined) return mod;
    switch (name) {
      case 'k6':
        mod = createK6Module(this);
        break;
      case 'k6/metrics':
        mod = createMetricsModule(this);
        break;
      case 'k6/execution':
        mod = createExecutionModule(this);
        break;
      case 'k6/http':
        mod = createHttpModule(this);
        break;
      case 'k6/x/sse':
        mod = createSseModule(this);
        break;
      case 'k6/x/llm':
        mod = createLlmModule(this);
        break;
      case 'k6/data':
        mod = createDataModule(this);
        break;
      case 'k6/timers':
        mod = esm({ setTimeout: this.timers.setTimeout, clearTimeout: this.timers.clearTimeout, setInterval: this.timers.setInterval, clearInterval: this.timers.clearInterval });
        break;
      default:
        throw new Error(`unknown module: ${name} (the local runner provides k6, k6/metrics, k6/execution, k6/http, k6/x/sse, k6/x/llm, k6/data, k6/timers)`);
    }
    this.modules.set(name, mod);
    return mod;
  }

  /** k6's open(): init context only, paths relative to the script. */
  open(path: string, mode?: string): string | ArrayBuffer {
    if (!this.inInitContext) throw new Error('open() can be used only in the init context');
    const full = isAbsolute(path) ? path : resolve(this.bundle.dir, path);
    let buf = this.rc.fileCache.get(full);
    if (!buf) {
      buf = readFileSync(full);
      this.rc.fileCache.set(full, buf);
    }
    if (mode === 'b') return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
    return buf.toString('utf8');
  }

  close(): void {
    this.agent.destroy();
    this.streamPool.destroy();
    this.timers.clearAll();
  }
}

/** Wraps a module's exports so esbuild's __toESM sees an ES module with a default export. */
export function esm<T extends object>(named: T, defaultExport: unknown = named): T & { __esModule: true; default: unknown } {
  // A plain object literal keeps V8's fast properties (a null-prototype object would be a slow
  // dictionary, and esbuild's __toESM copies the prototype): module members are read per event.
  return { ...named, __esModule: true as const, default: defaultExport };
}

/** Members of a k6 module the runner lacks: calling one throws `message(name)` rather than "is not a function". */
export function notProvided(names: readonly string[], message: (name: string) => string): Record<string, () => never> {
  const out: Record<string, () => never> = {};
  for (const name of names) {
    out[name] = () => {
      throw new Error(message(name));
    };
  }
  return out;
}

function stringify(args: unknown[]): string {
  return args
    .map((a) => {
      if (typeof a === 'string') return a;
      if (a instanceof Error) return a.stack ?? a.message;
      try {
        return typeof a === 'object' && a !== null ? JSON.stringify(a) : String(a);
      } catch {
        return String(a);
      }
    })
    .join(' ');
}

/** k6 prints console output as log lines on stderr with source=console. */
function makeConsole(): Record<string, (...args: unknown[]) => void> {
  const info = (...args: unknown[]): void => logLine('info', stringify(args), { source: 'console' });
  return {
    log: info,
    info,
    debug: () => undefined,
    warn: (...args: unknown[]) => logLine('warning', stringify(args), { source: 'console' }),
    error: (...args: unknown[]) => logLine('error', stringify(args), { source: 'console' }),
  };
}
