// k6/metrics for one VU: Trend, Counter, Rate, Gauge bound to the run's registry. Runs in Node.
import type { MetricKind } from '../../lib/metrics';
import { logLine } from '../log';
import type { Metric } from '../metrics-engine';
import { esm, type VU } from '../vu';

export function createMetricsModule(vu: VU) {
  function make(kind: MetricKind) {
    return class {
      readonly name: string;
      private readonly metric: Metric;
      constructor(name: string, isTime = false) {
        if (!vu.inInitContext) throw new Error('metrics must be declared in the init context');
        this.name = name;
        this.metric = vu.rc.engine.register(String(name), kind, kind !== 'counter' && kind !== 'rate' && isTime ? 'time' : 'default');
      }
      add(value: unknown, tags?: Record<string, unknown>): boolean {
        if (vu.inInitContext) throw new Error('cannot add samples to a metric in the init context');
        let v: number;
        if (typeof value === 'boolean') v = value ? 1 : 0;
        else v = Number(value);
        if (value === null || value === undefined || Number.isNaN(v)) {
          logLine('warning', `the value ${String(value)} for metric '${this.name}' is an invalid value and it will be ignored`);
          return false;
        }
        let extra: Record<string, string> | undefined;
        if (tags) {
          extra = {};
          for (const [k, tv] of Object.entries(tags)) extra[k] = String(tv);
        }
        // k6 tags every sample with its group's path; without group() that is the root's, "".
        vu.push(this.metric, v, { ...vu.metricTags, group: '', ...extra });
        return true;
      }
    };
  }
  return esm({ Trend: make('trend'), Counter: make('counter'), Rate: make('rate'), Gauge: make('gauge') });
}
