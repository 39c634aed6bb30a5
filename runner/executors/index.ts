// The executors the suite uses, each a loop that decides when iterations start (k6 lib/executor). Runs in Node.
import { epochMs, monoMs } from '../clock';
import type { RunContext } from '../context';
import { logLine } from '../log';
import type { ScenarioRuntime } from '../scenario-runtime';
import type { VUPool } from '../vu-pool';
import type { VU } from '../vu';
import { bindVU, runIteration, setActive } from './iteration';
import { arrivalOffsetsMs } from './arrival';

/** A promise that resolves when the scenario is cut or the test stops early. */
function aborted(sc: ScenarioRuntime): Promise<void> {
  return (sc.abortedPromise ??= new Promise<void>((r) => (sc.onAborting = r)));
}

/** Resolves after ms, or earlier when `stopped` resolves. */
function waitOrStop(ms: number, stopped: Promise<void>): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  let t: NodeJS.Timeout;
  return Promise.race([new Promise<void>((r) => (t = setTimeout(r, ms))), stopped]).finally(() => clearTimeout(t));
}

function takeVUs(pool: VUPool, n: number, rc: RunContext, sc: ScenarioRuntime, active: boolean): VU[] {
  const vus: VU[] = [];
  for (let i = 0; i < n; i++) {
    const vu = pool.acquire();
    if (!vu) throw new Error(`internal error: no free VU for scenario ${sc.name}`);
    bindVU(rc, vu, sc);
    if (active) setActive(rc, sc, 1);
    vus.push(vu);
  }
  return vus;
}

function giveBack(pool: VUPool, vus: readonly VU[], rc: RunContext, sc: ScenarioRuntime, active: boolean): void {
  for (const vu of vus) {
    if (active) setActive(rc, sc, -1);
    vu.scenario = null;
    pool.release(vu);
  }
}

/**
 * Runs a scenario's executor from its start (after startTime). `stopped` resolves when no new
 * iterations may start (duration or maxDuration over, or the test stopping); the caller cuts
 * in-flight iterations when gracefulStop expires.
 */
export async function runExecutor(rc: RunContext, sc: ScenarioRuntime, pool: VUPool, stopped: Promise<void>): Promise<void> {
  const cfg = sc.config;
  switch (cfg.executor) {
    case 'per-vu-iterations': {
      const vus = takeVUs(pool, cfg.vus, rc, sc, true);
      const total = cfg.vus * cfg.iterations;
      await Promise.all(
        vus.map(async (vu) => {
          for (let i = 0; i < cfg.iterations && !sc.stopping; i++) {
            await runIteration(rc, sc, vu);
            sc.progress = (sc.completed + sc.interrupted) / total;
          }
        }),
      );
      giveBack(pool, vus, rc, sc, true);
      return;
    }
    case 'shared-iterations': {
      const vus = takeVUs(pool, cfg.vus, rc, sc, true);
      let next = 0;
      await Promise.all(
        vus.map(async (vu) => {
          while (!sc.stopping && next < cfg.iterations) {
            next++;
            await runIteration(rc, sc, vu);
            sc.progress = (sc.completed + sc.interrupted) / cfg.iterations;
          }
        }),
      );
      giveBack(pool, vus, rc, sc, true);
      return;
    }
    case 'constant-vus': {
      const vus = takeVUs(pool, cfg.vus, rc, sc, true);
      await Promise.all(
        vus.map(async (vu) => {
          while (!sc.stopping) await runIteration(rc, sc, vu);
        }),
      );
      giveBack(pool, vus, rc, sc, true);
      return;
    }
    case 'constant-arrival-rate':
    case 'ramping-arrival-rate': {
      const free = takeVUs(pool, cfg.maxVUs, rc, sc, false).reverse();
      const all = [...free];
      const running = new Set<Promise<void>>();
      const t0 = monoMs();
      const durationMs = cfg.executor === 'constant-arrival-rate' ? cfg.durationMs : cfg.stages.reduce((a, s) => a + s.durationMs, 0);
      let warned = false;
      for (const offset of arrivalOffsetsMs(cfg)) {
        // The arrival at exactly `duration` still starts, as in k6 (7 iterations for 2/s over 3 s).
        if (sc.aborting || offset > durationMs) break;
        await waitOrStop(t0 + offset - monoMs(), sc.aborting ? Promise.resolve() : aborted(sc));
        if (sc.aborting) break;
        sc.progress = Math.min(1, (monoMs() - t0) / durationMs);
        const vu = free.pop();
        if (!vu) {
          sc.dropped++;
          rc.engine.push(rc.builtin.droppedIterations, epochMs(), 1, { ...rc.globalTags, ...cfg.tags, scenario: sc.name });
          if (!warned) {
            warned = true;
            logLine('warning', `Insufficient VUs, reached ${cfg.maxVUs} active VUs and cannot initialize more`, { executor: cfg.executor, scenario: sc.name });
          }
          continue;
        }
        setActive(rc, sc, 1);
        const p: Promise<void> = runIteration(rc, sc, vu).then(() => {
          setActive(rc, sc, -1);
          free.push(vu);
          running.delete(p);
        });
        running.add(p);
      }
      await waitOrStop(t0 + durationMs - monoMs(), stopped);
      sc.progress = 1;
      await Promise.all([...running]);
      giveBack(pool, all, rc, sc, false);
      return;
    }
  }
}
