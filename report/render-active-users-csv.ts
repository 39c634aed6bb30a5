// Renders active-users.csv: one row per use case of the sessions part, and one per turn at its capacity. Runs in Node.

import Papa from 'papaparse';
import { thinkMeanSeconds } from '../lib/sessions';
import type { Report } from './report-types';
import { ladderDisplay } from './capacity-words';

const r = (v: number | null | undefined, digits = 3): number | null =>
  v === null || v === undefined || !isFinite(v) ? null : Math.round(v * 10 ** digits) / 10 ** digits;

/** The Active Users table and its by-turn tables as one CSV (kind use_case or turn); null without a sessions part. */
export function renderActiveUsersCsv(report: Report): string | null {
  if (report.activeUsers.length === 0) return null;
  const rows = report.activeUsers.flatMap((a) => {
    const at = a.atCapacity;
    const base = { id: a.useCase.id, title: a.useCase.title };
    const useCase = {
      kind: 'use_case', ...base, turn: null, turns: a.session.turns, first_turn_tokens: a.session.firstTurnTokens,
      growth_tokens: a.session.growthTokens, output_tokens: a.session.outputTokens,
      think_mean_s: r(thinkMeanSeconds(a.session.thinkTime)), active_users: ladderDisplay(a.result),
      estimate: a.result.estimate, concurrent_mean: r(at?.concurrentMean), concurrent_p95: at?.concurrentP95 ?? null,
      users_per_slot: r(at?.usersPerSlot), request_s: r(at?.requestSeconds), concurrent_capacity: a.concurrentCapacity,
      ratio_to_concurrent: r(a.ratioToConcurrent),
      little_law_users: r(a.littleLawUsers), requests: null, ttft_mean_ms: r(at?.ttftMeanMs), ttft_p95_ms: null,
      hit_rate: r(at?.hitRate, 4), server_hit_rate: r(at?.serverHitRate, 4),
    };
    const turns = (at?.turns ?? []).map((t) => ({
      ...Object.fromEntries(Object.keys(useCase).map((k) => [k, null])), kind: 'turn', ...base, turn: t.turn,
      requests: t.requests, ttft_mean_ms: r(t.ttftMeanMs), ttft_p95_ms: r(t.ttftP95Ms), hit_rate: r(t.hitRate, 4),
    }));
    return [useCase, ...turns];
  });
  return `${Papa.unparse(rows)}\n`;
}
