// Tests report/sections/cache-hits.ts: TTFT with and without a prefix-cache hit per cell, and when it is shown.
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import type { CellStats } from '../../analysis/cells';
import type { Block } from '../../report/document';
import type { PartSummary, Report } from '../../report/report-types';
import type { Distribution } from '../../analysis/stats';
import { cacheHitSection } from '../../report/sections/cache-hits';
import { cell, flat } from './helpers';

function report(cells: readonly CellStats[], prefixGroups: PartSummary['prefixGroups'] = null): Report {
  return { cells, parts: [{ prefixGroups, promptMode: 'unique' }] } as unknown as Report;
}

/** A rate cell of 20 requests, `hits` of them cache hits at 40 ms TTFT (p99 60), the rest misses at 200 (p99 300). */
function rateCell(id: string, hits: number, misses = 20 - hits): CellStats {
  const d = (p50: number, p99: number, count: number): Distribution | null =>
    count === 0 ? null : { ...flat(p50, count), p99 };
  return cell({
    id, script: 'rate', contextTokens: 4096, requests: 20, succeeded: 20, cacheHitShare: hits / 20,
    metrics: { ttft: flat(100, 20), ttftCacheHit: d(40, 60, hits), ttftCacheMiss: d(200, 300, misses) },
  });
}

const texts = (blocks: readonly Block[]): string => blocks.map((b) => ('text' in b ? b.text : '')).join('\n');
const tables = (blocks: readonly Block[]) => blocks.flatMap((b) => (b.kind === 'table' ? [b] : []));

describe('the prefix-cache hits section', () => {
  it('states each cell\'s hit share and TTFT p50 and p99 with and without a hit, and how a hit compares', () => {
    const blocks = cacheHitSection(report([rateCell('rate_a_r2', 16), rateCell('rate_a_r4', 12)], {
      groups: 4, prefixTokens: 2048,
    }));
    expect(blocks[0]).toMatchObject({ kind: 'h', level: 3, text: 'Prefix-Cache Hits and TTFT' });
    const [table] = tables(blocks);
    expect(table!.head).toEqual([
      'CELL', 'CONTEXT', 'HIT SHARE', 'TTFT P50 HIT', 'TTFT P50 MISS', 'TTFT P99 HIT', 'TTFT P99 MISS',
    ]);
    expect(table!.rows).toEqual([
      ['rate_a_r2', '4K', '80.0%', '40ms', '200ms', '60ms', '300ms'],
      ['rate_a_r4', '4K', '60.0%', '40ms', '200ms', '60ms', '300ms'],
    ]);
    const text = texts(blocks);
    expect(text).toContain('The prompts came in 4 groups sharing a 2K-token prefix');
    expect(text).toContain("In 2 cells with both, a hit's median TTFT was 20% of a miss's");
    expect(text).not.toContain('left cached tokens out');
  });

  it('says so when the server reports hits only (vLLM before 0.32 leaves cached_tokens out at 0)', () => {
    const text = texts(cacheHitSection(report([rateCell('rate_a_r2', 16, 0)])));
    expect(text).toContain('The server left cached tokens out when there were none');
    expect(text).not.toContain('with both');
  });

  it('is left out without reported cached tokens, or with misses only and no prefix groups', () => {
    expect(cacheHitSection(report([rateCell('rate_a_r2', 0, 0)]))).toEqual([]);
    expect(cacheHitSection(report([rateCell('rate_a_r2', 0)]))).toEqual([]);
    // Prefix groups that never hit are a finding: the cache did not hold the groups' prefixes.
    const groups = cacheHitSection(report([rateCell('rate_a_r2', 0)], { groups: 2, prefixTokens: 100 }));
    expect(tables(groups)[0]!.rows).toEqual([['rate_a_r2', '4K', '0.0%', 'n/a', '200ms', 'n/a', '300ms']]);
  });
});
