// Runs one iteration of a scenario's exec function on a VU with k6's accounting (completed, interrupted, samples). Runs in Node.
import { epochMs, monoMs } from '../clock';
import type { RunContext } from '../context';
import { logLine } from '../log';
import type { ScenarioRuntime } from '../scenario-runtime';
import { Iteration, TestAbortError, type VU } from '../vu';

export type IterationOutcome = 'completed' | 'failed' | 'interrupted';

/** Binds a VU to a scenario: its tags, __ENV and per-scenario counters (k6 activates VUs per scenario). */
export function bindVU(rc: RunContext, vu: VU, sc: ScenarioRuntime): void {
  vu.scenario = sc;
  vu.metricTags = { ...rc.globalTags, ...sc.config.tags, scenario: sc.name };
  vu.iterationInScenario = 0;
  vu.phase = 'iteration';
  vu.setGlobal('__ENV', { ...rc.env, ...sc.config.env });
}

/** Counts a VU as active (exec.instance.vusActive, the vus metric) for the whole scenario it is bound to. */
export function setActive(rc: RunContext, sc: ScenarioRuntime, delta: 1 | -1): void {
  rc.vusActive += delta;
  sc.activeVUs += delta;
}

function describe(e: unknown): string {
  if (e instanceof Error || (e && typeof e === 'object' && 'stack' in e)) {
    const err = e as Error;
    return err.stack && err.stack.includes(err.message) ? err.stack : `${err.name}: ${err.message}`;
  }
  return String(e);
}

export async function runIteration(rc: RunContext, sc: ScenarioRuntime, vu: VU): Promise<IterationOutcome> {
  const exportName = sc.config.exec;
  const fn = vu.exports[exportName];
  const start = monoMs();
  const iter = new Iteration(vu, sc, start);
  vu.iter = iter;
  vu.scenarioIterationInTest = sc.iterationsStarted++;
  vu.setGlobal('__ITER', vu.iterationInScenario);
  sc.inFlight.add(iter);
  let result: 'ok' | 'cut' | { error: unknown };
  try {
    if (typeof fn !== 'function') throw new Error(`function '${exportName}' not found in exports`);
    const ret: unknown = (fn as (d: unknown) => unknown).call(undefined, vu.setupData());
    if (ret !== null && typeof ret === 'object' && typeof (ret as Promise<unknown>).then === 'function') {
      result = await Promise.race([
        (ret as Promise<unknown>).then(
          () => 'ok' as const,
          (error: unknown) => ({ error }),
        ),
        iter.whenCut,
      ]);
    } else result = 'ok';
  } catch (error) {
    result = { error };
  }
  sc.inFlight.delete(iter);
  vu.iterationInScenario++;
  vu.iterationInInstance++;
  let outcome: IterationOutcome;
  const isAbort = typeof result === 'object' && result.error instanceof TestAbortError;
  if (result === 'cut' || iter.done || isAbort) {
    iter.done = true;
    outcome = 'interrupted';
    rc.iterationsInterrupted++;
    sc.interrupted++;
  } else {
    if (typeof result === 'object') {
      logLine('error', describe(result.error), { executor: sc.config.executor, scenario: sc.name, source: 'stacktrace' });
      outcome = 'failed';
    } else outcome = 'completed';
    const end = epochMs();
    const tags = { ...vu.metricTags, group: '' };
    const b = rc.builtin;
    rc.engine.push(b.dataSent, end, iter.bytesSent, tags);
    rc.engine.push(b.dataReceived, end, iter.bytesReceived, tags);
    rc.engine.push(b.iterationDuration, end, monoMs() - start, tags);
    rc.engine.push(b.iterations, end, 1, tags);
    rc.iterationsCompleted++;
    sc.completed++;
  }
  if (vu.iter === iter) vu.iter = null;
  rc.events.emit('iterationEnd', { scenario: sc.name, vu: vu.id, outcome, durationMs: monoMs() - start });
  return outcome;
}
