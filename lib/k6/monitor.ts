// The monitor scenario: the server's /metrics (and a power exporter's) scraped through the run. Runs in k6 (bundled).

import http from 'k6/http';
import type { Plan } from '../plan';
import { parsePrometheusText, readServerSnapshot, type ServerSnapshot } from '../prometheus';
import { nowMs, pause } from './clock';
import { recordServerSnapshot } from './metrics';

/** The monitor's last scrape comes at least this long after the last request. */
const FINAL_SCRAPE_AFTER_MS = 1000;

/** The server's figures now, from its /metrics (and the power exporter's); null when the scrape failed. */
async function scrapeServer(target: Plan['target']): Promise<ServerSnapshot | null> {
  try {
    const res = await http.asyncRequest('GET', target.metricsUrl!, null, { tags: { name: 'metrics' }, timeout: '10s' });
    if (res.status !== 200 || typeof res.body !== 'string') return null;
    let text = res.body;
    if (target.powerMetricsUrl) {
      const power = await http.asyncRequest('GET', target.powerMetricsUrl, null, {
        tags: { name: 'power-metrics' }, timeout: '10s',
      });
      if (power.status === 200 && typeof power.body === 'string') text += '\n' + power.body;
    }
    return readServerSnapshot(parsePrometheusText(text));
  } catch {
    // A failing metrics endpoint must not end the monitor: the scrape is recorded as failed.
    return null;
  }
}

/** Scrapes every interval while `running` says so, then once more after the last request. */
export async function runMonitor(plan: Plan, running: () => Promise<boolean>): Promise<void> {
  if (!plan.target.metricsUrl) return;
  const intervalMs = plan.monitor.intervalSeconds * 1000;
  while (await running()) {
    const started = nowMs();
    recordServerSnapshot(await scrapeServer(plan.target));
    await pause(intervalMs - (nowMs() - started));
  }
  // A last scrape a while after the last request ended: the last cell's window then has a sample after its end,
  // as every other cell's has, late enough for a server that counts a request after its last byte (SGLang, up to
  // 0.5 s here), so its histograms can be read over exactly the cell's requests.
  await pause(Math.max(intervalMs, FINAL_SCRAPE_AFTER_MS));
  recordServerSnapshot(await scrapeServer(plan.target));
}
