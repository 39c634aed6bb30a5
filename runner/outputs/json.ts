// --out json: k6's NDJSON (a Metric line at a metric's first sample, then one Point line per sample). Runs in Node.
import type { Metric, Sample, SampleOutput, Tags } from '../metrics-engine';
import { BufferedFile } from './buffered-file';
import { rfc3339Nano } from './time-format';

export class JsonOutput implements SampleOutput {
  private readonly file: BufferedFile;
  private readonly seen = new Set<Metric>();
  private readonly cache = new WeakMap<Tags, string>();

  /** thresholdsOf gives the threshold expressions set on a metric itself (not its sub-metrics). */
  constructor(
    fileName: string,
    private readonly thresholdsOf: (metric: string) => readonly string[],
  ) {
    this.file = new BufferedFile(fileName);
  }

  private tagsJson(tags: Tags): string {
    let s = this.cache.get(tags);
    if (s === undefined) {
      // Go marshals maps with sorted keys.
      const sorted: Tags = {};
      for (const k of Object.keys(tags).sort()) sorted[k] = tags[k]!;
      s = JSON.stringify(sorted);
      this.cache.set(tags, s);
    }
    return s;
  }

  write(sample: Sample): void {
    const m = sample.metric;
    const name = JSON.stringify(m.name);
    if (!this.seen.has(m)) {
      this.seen.add(m);
      const submetrics = m.submetrics.length === 0 ? null : m.submetrics.map((s) => ({ name: s.name, suffix: s.suffix, tags: s.tags }));
      this.file.write(`{"type":"Metric","data":${JSON.stringify({ name: m.name, type: m.type, contains: m.contains, thresholds: this.thresholdsOf(m.name), submetrics })},"metric":${name}}\n`);
    }
    const metadata = sample.metadata === undefined ? '' : `,"metadata":${JSON.stringify(sample.metadata)}`;
    this.file.write(`{"metric":${name},"type":"Point","data":{"time":"${rfc3339Nano(sample.time)}","value":${sample.value},"tags":${this.tagsJson(sample.tags)}${metadata}}}\n`);
  }

  async close(): Promise<void> {
    this.file.close();
  }
}
