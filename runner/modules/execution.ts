// k6/execution for one VU: live instance, scenario, vu and test fields. Runs in Node.
import { monoMs } from '../clock';
import { EXIT } from '../exit-codes';
import { esm, TestAbortError, type VU } from '../vu';

export function createExecutionModule(vu: VU) {
  const rc = vu.rc;
  const notInInit = (what: string): void => {
    if (vu.inInitContext) throw new Error(`getting ${what} information outside of the VU context is not supported`);
  };
  const instance = {
    get currentTestRunDuration(): number {
      return monoMs() - rc.startMono;
    },
    get iterationsCompleted(): number {
      return rc.iterationsCompleted;
    },
    get iterationsInterrupted(): number {
      return rc.iterationsInterrupted;
    },
    get vusActive(): number {
      return rc.vusActive;
    },
    get vusInitialized(): number {
      return rc.vusInitialized;
    },
  };
  const scenario = {
    get name(): string {
      notInInit('scenario');
      return vu.scenario?.name ?? '';
    },
    get executor(): string {
      notInInit('scenario');
      return vu.scenario?.config.executor ?? '';
    },
    get startTime(): number {
      notInInit('scenario');
      return vu.scenario ? Math.floor(vu.scenario.startEpochMs) : 0;
    },
    get progress(): number {
      notInInit('scenario');
      return vu.scenario?.progress ?? 0;
    },
    get iterationInInstance(): number {
      notInInit('scenario');
      return vu.scenarioIterationInTest;
    },
    get iterationInTest(): number {
      notInInit('scenario');
      return vu.scenarioIterationInTest;
    },
  };
  const metrics = {
    get tags(): Record<string, string> {
      notInInit('VU');
      return vu.metricTags;
    },
    set tags(_v: Record<string, string>) {
      throw new Error('exec.vu.metrics.tags cannot be replaced; set its keys instead');
    },
    get metadata(): Record<string, unknown> {
      notInInit('VU');
      return vu.metricMetadata;
    },
    set metadata(_v: Record<string, unknown>) {
      throw new Error('exec.vu.metrics.metadata cannot be replaced; set its keys instead');
    },
  };
  const vuInfo = {
    get idInInstance(): number {
      notInInit('VU');
      return vu.id;
    },
    get idInTest(): number {
      notInInit('VU');
      return vu.id;
    },
    get iterationInInstance(): number {
      notInInit('VU');
      return vu.iterationInInstance;
    },
    get iterationInScenario(): number {
      notInInit('VU');
      return vu.iterationInScenario;
    },
    get tags(): Record<string, string> {
      notInInit('VU');
      return vu.metricTags;
    },
    metrics,
  };
  const test = {
    abort(message?: string): never {
      const msg = message === undefined ? 'test aborted' : `test aborted: ${String(message)}`;
      rc.abort(EXIT.scriptAborted, msg);
      throw new TestAbortError(msg);
    },
    fail(message?: string): void {
      rc.markFailed(message === undefined ? 'test failed' : String(message));
    },
    get options(): unknown {
      notInInit('test options');
      return rc.options?.raw;
    },
  };
  return esm({ instance, scenario, vu: vuInfo, test });
}
