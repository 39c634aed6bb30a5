// The executor the suite uses, per-vu-iterations: each VU runs its iterations back to back (k6 lib/executor). Runs in Node.
import type { RunContext } from '../context';
import type { ScenarioRuntime } from '../scenario-runtime';
import type { VUPool } from '../vu-pool';
import type { VU } from '../vu';
import { bindVU, runIteration, setActive } from './iteration';

/**
 * Runs a scenario from its start (after startTime) until every VU has run its iterations or
 * `sc.stopping` is set (maxDuration over, or the test stopping); the caller cuts in-flight
 * iterations when gracefulStop expires.
 */
export async function runExecutor(rc: RunContext, sc: ScenarioRuntime, pool: VUPool): Promise<void> {
  const cfg = sc.config;
  const vus: VU[] = [];
  for (let i = 0; i < cfg.vus; i++) {
    const vu = pool.acquire();
    if (!vu) throw new Error(`internal error: no free VU for scenario ${sc.name}`);
    bindVU(rc, vu, sc);
    setActive(rc, sc, 1);
    vus.push(vu);
  }
  const total = cfg.vus * cfg.iterations;
  await Promise.all(
    vus.map(async (vu) => {
      for (let i = 0; i < cfg.iterations && !sc.stopping; i++) {
        await runIteration(rc, sc, vu);
        sc.progress = (sc.completed + sc.interrupted) / total;
      }
    }),
  );
  for (const vu of vus) {
    setActive(rc, sc, -1);
    vu.scenario = null;
    pool.release(vu);
  }
}
