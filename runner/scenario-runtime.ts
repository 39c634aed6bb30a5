// The live state of one running scenario, shared by its executor, its VUs and k6/execution. Runs in Node.
import type { ScenarioConfig } from './options';
import type { Iteration } from './vu';

export class ScenarioRuntime {
  /** Epoch ms when the scenario started (exec.scenario.startTime). */
  startEpochMs = 0;
  started = false;
  finished = false;
  /** Iterations started so far in this scenario (exec.scenario.iterationInTest is the next one). */
  iterationsStarted = 0;
  completed = 0;
  interrupted = 0;
  activeVUs = 0;
  /** 0..1, as exec.scenario.progress. */
  progress = 0;
  /** No new iterations once true (maxDuration reached, or the test is stopping). */
  stopping = false;
  readonly inFlight = new Set<Iteration>();

  constructor(readonly config: ScenarioConfig) {}

  get name(): string {
    return this.config.name;
  }

  /** Cuts every in-flight iteration: gracefulStop has expired or the test stops. */
  cutAll(): void {
    for (const it of [...this.inFlight]) it.cut();
  }
}
