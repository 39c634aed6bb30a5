// The Active Users section's charts: TTFT and cache hits by turn, and the requests in flight against active users.
// Runs in Node.

import type { ActiveUsersCapacity } from '../analysis/active-users';
import { lineChart, type ChartSpec } from './charts';
import type { Report } from './report-types';

/** Two charts per use case of the sessions part; none without one. */
export function sessionCharts(report: Report): ChartSpec[] {
  return report.activeUsers.flatMap((a) =>
    [turnsChart(a), usersChart(report, a)].filter((c): c is ChartSpec => c !== null));
}

/** At the capacity step: mean TTFT (s) and the prefix-cache hit rate (%) of each turn. */
function turnsChart(a: ActiveUsersCapacity): ChartSpec | null {
  const turns = a.atCapacity?.turns ?? [];
  if (turns.length === 0) return null;
  return lineChart({
    id: `sessions_turns_${a.useCase.id}`,
    title: `${a.useCase.title}: TTFT and Cache Hits by Turn`,
    caption: `Mean time to first token and prefix-cache hit rate of each turn at ${a.atCapacity!.users} active users.`,
    xName: 'Turn',
    categories: turns.map((t) => t.turn),
    yNames: ['seconds', '%'],
    series: [
      { name: 'TTFT (mean)', data: turns.map((t) => (t.ttftMeanMs === null ? null : t.ttftMeanMs / 1000)) },
      {
        name: 'Cache hit rate', data: turns.map((t) => (t.hitRate === null ? null : t.hitRate * 100)), yAxisIndex: 1,
        dashed: true,
      },
    ],
  });
}

/** Over the steps: the requests the active users kept in flight (mean, p95), with the capacity marked. */
function usersChart(report: Report, a: ActiveUsersCapacity): ChartSpec | null {
  const steps = report.cells
    .filter((c) => a.cellIds.includes(c.id) && c.sessions?.concurrentMean != null)
    .sort((x, y) => x.concurrency - y.concurrency);
  if (steps.length === 0) return null;
  const capacity = a.result.estimate;
  return lineChart({
    id: `sessions_users_${a.useCase.id}`,
    title: `${a.useCase.title}: Requests in Flight by Active Users`,
    caption: 'Concurrent requests the active users kept in flight at each step ' +
      '(time-weighted mean and 95th percentile).',
    xName: 'Active users',
    xType: 'value',
    categories: steps.map((c) => String(c.concurrency)),
    yNames: ['requests in flight'],
    series: [
      {
        name: 'mean', data: steps.map((c) => c.sessions!.concurrentMean),
        xMarks: capacity === null ? [] : [{ value: capacity, label: `capacity ${capacity}` }],
      },
      { name: 'p95', data: steps.map((c) => c.sessions!.concurrentP95), dashed: true },
    ],
  });
}
