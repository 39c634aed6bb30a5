// The report's warnings: one per kind, ranked by how much they change the answer. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import type { LadderResult } from '../../analysis/capacity';
import { slug } from '../../report/document';
import {
  WARNING_RANK, WARNING_TITLES, capacityBoundWarnings, clientBoundWarning, failedRequestsWarning, incompleteWarning,
  noSamplesWarning, rankWarnings, type ReportWarning, type WarningKind,
} from '../../report/warnings';
import { cell } from './helpers';

const stub = (kind: WarningKind): ReportWarning => ({ kind, summary: kind, details: [kind] });

const ladder = (kind: LadderResult['kind'], estimate: number | null, firstFail: number | null): LadderResult => ({
  steps: [], kind, lastPass: estimate, firstFail, estimate, interpolated: false, brokenBy: null,
});

describe('rankWarnings', () => {
  it('lists what changes the answer before what only qualifies it, whatever order they were found in', () => {
    const found = ['damaged-rows', 'failed-requests', 'client-bound', 'incomplete', 'lower-bound'] as const;
    expect(rankWarnings(found.map(stub)).map((w) => w.kind))
      .toEqual(['incomplete', 'lower-bound', 'client-bound', 'failed-requests', 'damaged-rows']);
  });

  it('ranks no answer, then a partial one, then a bounded capacity, then a pace the client set', () => {
    const at = (kind: WarningKind): number => WARNING_RANK.indexOf(kind);
    expect(at('no-samples')).toBe(0);
    expect(at('incomplete')).toBeLessThan(at('lower-bound'));
    expect(at('lower-bound')).toBeLessThan(at('client-bound'));
    expect(at('client-bound')).toBeLessThan(at('failed-requests'));
    expect(at('failed-requests')).toBeLessThan(at('damaged-rows'));
    expect([...WARNING_RANK].sort()).toEqual(Object.keys(WARNING_TITLES).sort());
  });

  it('drops the kinds that found nothing and keeps the order within a kind', () => {
    const a = { ...stub('client-bound'), summary: 'a' };
    const b = { ...stub('client-bound'), summary: 'b' };
    expect(rankWarnings([null, a, null, b]).map((w) => w.summary)).toEqual(['a', 'b']);
  });

  it('gives every kind a heading of its own to link to', () => {
    const anchors = Object.values(WARNING_TITLES).map(slug);
    expect(new Set(anchors).size).toBe(anchors.length);
  });
});

describe('the warnings of each kind', () => {
  it('says nothing when nothing is wrong', () => {
    const totals = { requests: 10, failed: 0, errorsByKind: {} };
    expect(noSamplesWarning(totals)).toBeNull();
    expect(failedRequestsWarning(totals, [])).toBeNull();
    expect(clientBoundWarning([cell({ id: 'a' })], new Set())).toBeNull();
    expect(incompleteWarning([], [], [])).toBeNull();
    expect(capacityBoundWarnings([{ name: 'Chat', result: ladder('within', 4, 5) }])).toEqual([null, null]);
  });

  it('puts one line per kind up top and every cell in the details', () => {
    const bound = {
      agentCpuShare: null, reading: { kind: 'readLate' as const, readLagP99Ms: 12, itlMedianMs: 10 }, stall: null,
    };
    const cells = [cell({ id: 'a', clientBound: bound }), cell({ id: 'b', clientBound: bound }), cell({ id: 'c' })];
    const w = clientBoundWarning(cells, new Set(['b']))!;
    expect(w.summary).toBe('2 cells were client-bound (1 of them a step of a capacity search or ladder): ' +
      "their figures are the client's, and no capacity stands on them.");
    expect(w.details).toHaveLength(2);
    expect(w.details[1]).toMatch(/^Cell b was client-bound \(the measuring agent read its streams up to 12\.0 ms late/);
    const undetermined = { ...ladder('within', 4, 6), kind: 'undetermined' as const,
      clientBound: [{ users: 6, cause: bound }] };
    const named = clientBoundWarning(cells, new Set(['b']), [{ name: 'Chat', result: undetermined }])!;
    expect(named.summary).toMatch(/no capacity stands on them\. Chat is undetermined\.$/);
    expect(named.details.at(-1)).toBe('Chat: undetermined: client-bound at 6; more than 4.');
  });

  it('names the capacities that are only bounds', () => {
    const [lower, upper] = capacityBoundWarnings([
      { name: 'Code', result: ladder('beyond', 16, null) },
      { name: 'Chat', result: ladder('beyond', 2, null) },
      { name: 'Docs', result: ladder('below', null, 1) },
    ]);
    expect(lower!.summary).toBe('Code 16+ and Chat 2+ are only lower bounds: no measured step broke a limit.');
    expect(upper!.summary).toBe('Docs <1: below the first measured step, which already broke a limit.');
    expect(lower!.details).toHaveLength(2);
  });

  it('counts failed requests by kind, with each failing cell in the details', () => {
    const totals = { requests: 1200, failed: 4, errorsByKind: { timeout: 3, http_5xx: 1 } };
    const cells = [cell({ id: 'a', failed: 4, requests: 10, errorsByKind: { timeout: 3, http_5xx: 1 } })];
    const w = failedRequestsWarning(totals, cells)!;
    expect(w.summary).toBe('4 of 1,200 requests failed (3 timeout, 1 http_5xx).');
    expect(w.details[0]).toBe('Cell a: 4 of 10 failed (3 timeout, 1 http_5xx).');
  });
});
