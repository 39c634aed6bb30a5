// The "Active Users" section: how many people each use case serves when they pause between turns. Runs in Node.
// Per use case: active users at capacity, the requests they kept in flight, users per slot, TTFT and cache hits by
// turn.

import type { ActiveUsersCapacity } from '../../analysis/active-users';
import { DocBuilder, type Block } from '../document';
import { fmtInt, fmtMs, fmtPct, fmtTokens, plural } from '../format';
import type { Report } from '../report-types';
import { lastTurnTokens } from '../../lib/plan-sessions';
import { thinkMeanSeconds } from '../../lib/sessions';
import type { ThinkTime } from '../../thresholds/sessions';
import { sentences, statName } from '../phrases';
import { ladderDisplay, ladderDisplayShort } from '../capacity-words';

const fixed = (v: number | null, digits = 1): string => (v === null || !isFinite(v) ? 'n/a' : v.toFixed(digits));

/** "exponential, mean 30 s": a think-time distribution in words. */
export function thinkPhrase(t: ThinkTime): string {
  const mean = `${fixed(thinkMeanSeconds(t), thinkMeanSeconds(t) < 10 ? 1 : 0)} s`;
  switch (t.distribution) {
    case 'constant':
      return `${mean} each`;
    case 'uniform':
      return `uniform ${t.minSeconds}-${t.maxSeconds} s`;
    case 'exponential':
      return `exponential, mean ${mean}`;
    case 'lognormal':
      return `lognormal, median ${t.medianSeconds} s (mean ${mean})`;
  }
}

/** Every use case of the sessions part in one table, then each one's turns. */
export function activeUsersSection(report: Report, charts: ReadonlySet<string>): Block[] {
  if (report.activeUsers.length === 0) return [];
  const doc = new DocBuilder();
  doc.h(2, 'Active Users');
  doc.p(sentences(
    'How many people can use each workload at once, when they pause between turns as people do?',
    'Each active user runs conversations back to back: every turn sends the whole history (the answers as the server ' +
      'returned them) and a new message, then the user thinks before the next turn.',
    `A step of N users passes when its measured turns meet the use case's limits (the ${statName(report.limitStat)} ` +
      'of each step, warm-up excluded).',
    'CONCURRENT REQUESTS are those the users kept in flight over the step (time-weighted mean and 95th percentile); ' +
      'USERS PER SLOT is active users over that mean: the "users per request slot" that capacity reports assert ' +
      '(4-5 for applications with natural pauses) rather than measure.',
  ));
  const head = [
    'USE CASE', 'CONVERSATION', 'THINK TIME', 'ACTIVE USERS', 'CONCURRENT REQUESTS (MEAN / P95)', 'USERS PER SLOT',
    'CONCURRENT CAPACITY', 'ACTIVE / CONCURRENT', 'CACHE HIT RATE',
  ];
  doc.table(head, report.activeUsers.map(row));
  doc.p(littleLawNote(report.activeUsers));
  return [...doc.blocks, ...report.activeUsers.flatMap((a) => byTurnSection(a, charts))];
}

function row(a: ActiveUsersCapacity): string[] {
  const s = a.session;
  const at = a.atCapacity;
  return [
    a.useCase.title,
    `${plural(s.turns, 'turn')}, ${fmtTokens(s.firstTurnTokens)} → ${fmtTokens(lastTurnTokens(s))}, ` +
      `${fmtInt(s.outputTokens)} out`,
    thinkPhrase(s.thinkTime),
    ladderDisplayShort(a.result),
    at ? `${fixed(at.concurrentMean)} / ${fmtInt(at.concurrentP95)}` : 'n/a',
    fixed(at?.usersPerSlot ?? null),
    a.concurrentCapacity === null ? 'not measured' : fmtInt(a.concurrentCapacity),
    a.ratioToConcurrent === null ? 'n/a' : `${fixed(a.ratioToConcurrent)}× (Little: ${fixed(littleFactor(a))}×)`,
    at ? `${fmtPct(at.hitRate)} (server ${fmtPct(at.serverHitRate)})` : 'n/a',
  ];
}

/** k + 1: the users per concurrent slot Little's law expects. */
function littleFactor(a: ActiveUsersCapacity): number | null {
  return a.thinkToRequest === null ? null : a.thinkToRequest + 1;
}

/** Why active users differ from (k + 1) x the concurrent capacity, with this run's figures. */
function littleLawNote(all: readonly ActiveUsersCapacity[]): string {
  const compared = all.filter((a) => a.littleLawUsers !== null && a.result.estimate !== null);
  const share = (a: ActiveUsersCapacity): number => a.result.estimate! / a.littleLawUsers!;
  const figures = compared.map((a) =>
    `${a.useCase.title}: k = ${fixed(a.thinkToRequest, 2)}, (k + 1) x ${fmtInt(a.concurrentCapacity)} = ` +
    `${fixed(a.littleLawUsers)} users expected, ${ladderDisplayShort(a.result)} measured (${fmtPct(share(a), 0)})`);
  return sentences(
    'A user in a request for R seconds of every R + Z (Z the mean think time) holds a request slot R / (R + Z) of ' +
      "the time, so by Little's law N users keep N x R / (R + Z) requests in flight, and a server with C concurrent " +
      'request slots would serve (k + 1) x C users, k = Z / R (R measured at the active-user capacity).',
    figures.length > 0 ? `${figures.join('; ')}.` : null,
    compared.some((a) => share(a) < 0.9)
      ? 'Fewer than that: users arriving at random keep a varying number of requests in flight (the P95 column), the ' +
        'limits are met on average over turns that found more requests running than the mean, and a server slows ' +
        'faster than linearly as requests pile up; the fewer the slots, the larger the swings.'
      : null,
    compared.some((a) => share(a) > 1.1)
      ? "More than that: the prefix cache serves a conversation's history, so a later turn prefills only its new " +
        'message and costs the server less than a request of the same length in the capacity part.'
      : null,
    "Users per slot is (R + Z) / R, lowered by those swings: it grows with the pause and shrinks with long requests " +
      "(long outputs, long contexts, a loaded server), so each use case has its own, not the reports' 4-5.",
  );
}

function byTurnSection(a: ActiveUsersCapacity, charts: ReadonlySet<string>): Block[] {
  const doc = new DocBuilder();
  const atUsers = a.atCapacity ? plural(a.atCapacity.users, 'Active User') : 'No Passing Step';
  doc.h(3, `${a.useCase.title}: Turns at ${atUsers}`);
  const at = a.atCapacity;
  if (!at) {
    // A client-bound step is no measurement of the server: it neither passed nor broke a limit.
    doc.p(a.result.kind === 'undetermined'
      ? `The capacity is ${ladderDisplay(a.result)} active users: ` +
        'the client, not the server, set the pace of the step ' +
        'that would decide it, so no step is described by turn.'
      : `Even the first step (${ladderDisplay(a.result)} active users) broke a limit: no step to describe by turn.`);
    return doc.blocks;
  }
  doc.p(sentences(
    `At ${plural(at.users, 'active user')} the users kept ${fixed(at.concurrentMean)} requests in flight on average ` +
      `(95th percentile ${fmtInt(at.concurrentP95)}), ${fixed(at.usersPerSlot)} users per request slot; a turn took ` +
      `${fixed(at.requestSeconds)} s on average (TTFT ${fmtMs(at.ttftMeanMs)}).`,
    at.hitRate === null
      ? 'No response reported cached prompt tokens: none were cached, or the server does not say (vLLM writes them ' +
        'with --enable-prompt-tokens-details).'
      : `The prefix cache served ${fmtPct(at.hitRate)} of the prompt tokens of these turns ` +
        (at.serverHitRate === null
          // analysis/server-metrics.ts: no server figure over other requests than these turns.
          ? "(the server's own counters cannot be read over these turns alone)"
          : `(the server's own counters: ${fmtPct(at.serverHitRate)})`) +
        '; later turns find the history cached unless it was evicted.',
  ));
  doc.chart(`sessions_turns_${a.useCase.id}`, charts);
  doc.table(
    ['TURN', 'REQUESTS', 'TTFT MEAN', 'TTFT P95', 'CACHE HIT RATE'],
    at.turns.map((t) => [t.turn, fmtInt(t.requests), fmtMs(t.ttftMeanMs), fmtMs(t.ttftP95Ms), fmtPct(t.hitRate)]),
  );
  doc.chart(`sessions_users_${a.useCase.id}`, charts);
  return doc.blocks;
}
