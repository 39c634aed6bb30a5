// What k6 needs to send a run's metrics to Prometheus by remote write: the URL, the output flag, the environment.
// Runs in Node.

import { EXIT, UserError } from '../lib/exit-codes';
import { RW_TREND_STATS_ENV } from '../deploy/grafana/remote-write';

/**
 * The remote-write endpoint for a --prometheus-rw value: a Prometheus base URL gets /api/v1/write; a URL with a path
 * is kept.
 */
export function prometheusWriteUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UserError(`--prometheus-rw: "${value}" is not a URL (e.g. http://prometheus:9090/api/v1/write)`, EXIT.usage);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UserError(`--prometheus-rw: "${value}" is not an http(s) URL`, EXIT.usage);
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/api/v1/write';
  return url.toString();
}

/** `k6 run` arguments with the remote-write output added before the script path (the last argument). */
export function withPrometheusRw(args: readonly string[]): string[] {
  return [...args.slice(0, -1), '-o', 'experimental-prometheus-rw', ...args.slice(-1)];
}

/**
 * The environment k6 needs for the dashboard (deploy/README.md): the write URL and the trend stats the
 * dashboard reads, unless the caller set K6_PROMETHEUS_RW_TREND_STATS (or other K6_PROMETHEUS_RW_*) itself.
 */
export function prometheusRwEnv(writeUrl: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...env, K6_PROMETHEUS_RW_SERVER_URL: writeUrl,
    K6_PROMETHEUS_RW_TREND_STATS: env.K6_PROMETHEUS_RW_TREND_STATS ?? RW_TREND_STATS_ENV,
  };
}
