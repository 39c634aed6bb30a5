// Tests bench/peer-vllm-bench.ts's pure parts (with peer-vllm-prompts.ts and peer-vllm-truth.ts): arguments, matching
// to ground truth, errors, percentiles, the table, the verdicts, reading the clients' outputs. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { parseArgs, renderTable, verdicts, type Row } from '../../bench/peer-vllm-bench';
import { levelShape, shareGptFile, suitePrompts } from '../../bench/peer-vllm-prompts';
import {
  compare, matchByRequestId, parseK6Csv, parseVllmResult, truthTimes, type Comparison, type TruthRecord,
  type VllmOutput,
} from '../../bench/peer-vllm-truth';
import { EXIT, UserError } from '../../lib/exit-codes';

const rec = (
  requestId: string, arrival: number, tokens: number[], promptTokens = 1032, outcome = 'completed',
): TruthRecord => ({ requestId, promptTokens, arrivalEpochMs: arrival, tokenEpochMs: tokens, outcome });

// TTFTs 50, 40, 90 ms (mean 60, median 50); gaps 10, 15, 0, 12, 10, 10 (sorted 0 10 10 10 12 15: p99 at rank
// 0.99 x 5 = 4.95, 12 + 0.95 x 3 = 14.85); one gap of six under 1 ms; prompts 1032, 1030, 1034 (mean 1032).
const TRUTH = [
  rec('a', 1000, [1050, 1060, 1075], 1032),
  rec('b', 2000, [2040, 2040, 2052], 1030),
  rec('c', 3000, [3090, 3100, 3110], 1034),
];
// TTFTs 52, 41, 99 (mean 64, median 52); ITL sorted 0.1 9.8 10.2 10.4 12.1 15.3: p99 12.1 + 0.95 x 3.2 = 15.14.
const CLIENT = { ttftMs: [52, 41, 99], itlMs: [10.2, 15.3, 0.1, 12.1, 9.8, 10.4] };

describe('truthTimes', () => {
  it('takes TTFT as first write minus arrival, ITL as every gap between writes; no tokens, no values', () => {
    const t = truthTimes([...TRUTH, rec('d', 4000, [])]);
    expect(t.ttftMs).toEqual([50, 40, 90]);
    expect(t.itlMs).toEqual([10, 15, 0, 12, 10, 10]);
  });
});

describe('compare', () => {
  it('gives each figure as client, truth and client minus truth', () => {
    const c = compare(CLIENT, TRUTH);
    expect(c.requests).toBe(3);
    expect(c.truthRequests).toBe(3);
    expect(c.promptTokens).toBe(1032);
    expect(c.ttftMean).toEqual({ client: 64, truth: 60, error: 4 });
    expect(c.ttftMedian).toEqual({ client: 52, truth: 50, error: 2 });
    expect(c.itlP99.client).toBeCloseTo(15.14, 10);
    expect(c.itlP99.truth).toBeCloseTo(14.85, 10);
    expect(c.itlP99.error).toBeCloseTo(0.29, 10);
    expect(c.itlPerRequest).toEqual({ client: 2, truth: 2 });
    expect(c.together).toEqual({ client: 1 / 6, truth: 1 / 6 });
  });

  it('is NaN, not 0, where a client has no values', () => {
    const c = compare({ ttftMs: [], itlMs: [] }, TRUTH);
    expect(c.ttftMean.client).toBeNaN();
    expect(c.itlP99.error).toBeNaN();
  });
});

describe('matchByRequestId', () => {
  const out = (ttftMs: number, itlMs: number[] = [10], error = ''): VllmOutput => ({ ttftMs, itlMs, error });
  const truth = [
    rec('p-0', 1000, [1050, 1060]), rec('p-1', 2000, [2050], 1032, 'aborted'), rec('p-2', 3000, [3040, 3052]),
    rec('suite-uuid', 0, [50, 60]),
  ];

  it("pairs the i-th saved request with id prefix + i, leaving out failed requests and other clients' records", () => {
    const m = matchByRequestId('p-', [out(52, [10.5]), out(0, [], 'boom'), out(43, [12.5])], truth);
    expect(m.client).toEqual({ ttftMs: [52, 43], itlMs: [10.5, 12.5] });
    expect(m.truth.map((r) => r.requestId)).toEqual(['p-0', 'p-2']);
    expect(m.unmatched).toBe(0);
    expect(m.clientShorter).toBe(0);
  });

  it('counts successes without a completed record, and pairs whose client TTFT is below the server\'s', () => {
    // p-1 was aborted on the server: no completed record. p-2's client TTFT 30 < the server's 40: a wrong pair.
    const m = matchByRequestId('p-', [out(52), out(60), out(30), out(70)], truth);
    expect(m.unmatched).toBe(2);
    expect(m.clientShorter).toBe(1);
    expect(m.client.ttftMs).toEqual([52, 30]);
  });
});

describe('levelShape', () => {
  it('sends 4 x users requests, at least 16, in whole rounds', () => {
    expect(levelShape(1, null)).toEqual({ rounds: 16, requests: 16 });
    expect(levelShape(8, null)).toEqual({ rounds: 4, requests: 32 });
    expect(levelShape(32, null)).toEqual({ rounds: 4, requests: 128 });
    expect(levelShape(5, null)).toEqual({ rounds: 4, requests: 20 });
    expect(levelShape(3, 10)).toEqual({ rounds: 4, requests: 12 });
    expect(levelShape(64, 10)).toEqual({ rounds: 1, requests: 64 });
  });
});

describe('parseArgs', () => {
  it('defaults to 1, 8 and 32 users, 1K prompts, 128 tokens, TTFT 50 ms, ITL 10 ms, and builds', () => {
    expect(parseArgs([])).toEqual({
      levels: [1, 8, 32], numPrompts: null, context: 1024, tokens: 128, ttftMs: 50, itlMs: 10,
      vllmPrompts: ['random', 'suite'], build: true,
    });
    const argv = ['--levels', '2,4', '--num-prompts', '24', '--itl-ms', '15', '--vllm-prompts', 'suite', '--no-build'];
    expect(parseArgs(argv)).toMatchObject({
      levels: [2, 4], numPrompts: 24, itlMs: 15, vllmPrompts: ['suite'], build: false,
    });
    // The suite's prompts reach vllm bench serve through ShareGPT, which drops prompts over 1,024 tokens.
    expect(parseArgs(['--context', '4096']).vllmPrompts).toEqual(['random']);
  });

  it.each([
    [['--levels', '1,x'], /--levels/],
    [['--levels', ''], /--levels/],
    [['--levels', '0'], /--levels/],
    [['--num-prompts', '2.5'], /--num-prompts/],
    [['--tokens', '1'], /--tokens/],
    [['--itl-ms', 'fast'], /--itl-ms/],
    [['--vllm-prompts', 'random,sharegpt'], /--vllm-prompts: "sharegpt" is not one of random, suite/],
    [['--context', '4096', '--vllm-prompts', 'suite'], /drops prompts over 1024 tokens/],
    [['--bogus'], /Unknown option '--bogus'.*use --levels/],
    [['stray'], /positional.*use --levels/],
  ])('refuses %j with a one-line usage error (exit 2)', (argv, message) => {
    let error: unknown;
    try {
      parseArgs(argv);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UserError);
    expect((error as UserError).exitCode).toBe(EXIT.usage);
    expect((error as UserError).message).toMatch(message);
    expect((error as UserError).message).not.toContain('\n');
  });
});

describe('parseVllmResult', () => {
  it('turns the per-request seconds into ms and keeps its own summary figures', () => {
    const r = parseVllmResult(JSON.stringify({
      ttfts: [0.0525, 0], itls: [[0.00001, 0.0101], []], errors: ['', 'Never received a valid chunk'],
      mean_ttft_ms: 52.5, p99_itl_ms: 10.03,
    }));
    expect(r.outputs[0]!.ttftMs).toBeCloseTo(52.5, 10);
    expect(r.outputs[0]!.itlMs[1]).toBeCloseTo(10.1, 10);
    expect(r.outputs[1]!.error).toBe('Never received a valid chunk');
    expect(r.meanTtftMs).toBe(52.5);
    expect(r.p99ItlMs).toBe(10.03);
  });

  it('says what is missing', () => {
    expect(() => parseVllmResult('{')).toThrow(/not JSON/);
    expect(() => parseVllmResult('{"mean_ttft_ms": 1}')).toThrow(/--save-detailed/);
    expect(() => parseVllmResult('{"ttfts": [0.1], "itls": [], "errors": [""]}')).toThrow(/"itls"/);
    expect(() => parseVllmResult('{"ttfts": [0.1], "itls": [[]], "errors": [null]}')).toThrow(/"errors"/);
  });
});

describe('parseK6Csv', () => {
  it('reads llm_ttft, llm_itl and the llm_errors count by column name', () => {
    const csv = [
      'metric_name,timestamp,metric_value,check,cell',
      'llm_ttft,1795801150000,52.5,,c1',
      'llm_itl,1795801150010,10.25,,c1',
      'llm_itl,1795801150020,9.75,,c1',
      'llm_errors,1795801150030,1,,c1',
      'http_reqs,1795801150030,1,,c1',
    ].join('\n');
    expect(parseK6Csv(csv)).toEqual({ ttftMs: [52.5], itlMs: [10.25, 9.75], errors: 1 });
    expect(() => parseK6Csv('name,value\nllm_ttft,1')).toThrow(/metric_name/);
  });
});

/** A row whose TTFT mean error and ITL p99 error are the given ones. */
function row(level: number, client: Row['client'], ttftError: number, itlError: number): Row {
  const base = compare(CLIENT, TRUTH);
  const comparison: Comparison = {
    ...base,
    ttftMean: { client: 60 + ttftError, truth: 60, error: ttftError },
    itlP99: { client: 10 + itlError, truth: 10, error: itlError },
  };
  return { level, client, comparison, note: '' };
}

describe('verdicts', () => {
  it('meets the TTFT target at half of vllm bench serve\'s error and the ITL one within 2 ms at every level', () => {
    const [ttft, itl] = verdicts([
      row(1, 'suite', 9, 1.5), row(32, 'suite', 2, -2), row(32, 'vllm-random', 4, 0), row(32, 'vllm-suite', 3, 0),
    ]);
    expect(ttft).toBe(
      'Target 1, suite TTFT mean error at most half of vllm bench serve\'s at 32 users: ' +
      'met against its random prompts: suite 2.00 ms, vllm bench serve 4.00 ms (0.50x); ' +
      'missed against the suite\'s prompts (at most 1024 tokens): suite 2.00 ms, vllm bench serve 3.00 ms (0.67x).',
    );
    expect(itl).toMatch(/met: largest \|error\| 2\.00 ms over 1, 32 users/);
  });

  it('misses them just past the limits, and says when a level was not measured', () => {
    const [ttft, itl] = verdicts([row(1, 'suite', 0, -2.01), row(32, 'suite', 2.01, 0), row(32, 'vllm-random', 4, 0)]);
    expect(ttft).toMatch(/: missed against its random prompts: suite 2\.01 ms/);
    expect(itl).toMatch(/missed: largest \|error\| 2\.01 ms/);
    expect(verdicts([row(8, 'suite', 0, 0)], 32)[0]).toMatch(/not measured/);
  });
});

describe('renderTable', () => {
  it('writes one row per level and client, with n/a where a run has no figures', () => {
    const rows: Row[] = [
      { level: 32, client: 'vllm-random', comparison: compare(CLIENT, TRUTH), note: '' },
      { level: 1, client: 'suite', comparison: null, note: 'k6 exit 107 | boom' },
    ];
    const lines = renderTable(rows).split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[2]).toBe(
      '| 32 | vllm bench serve, its random prompts (core 1) | 3 | 1032 | 64.00 / 60.00 | 4.00 | 2.00 | ' +
      '15.14 / 14.85 | 0.29 | 2.0 / 2.0 | 16.7% / 16.7% |  |',
    );
    expect(lines[3]).toMatch(/^\| 1 \| suite: k6 \+ agent \(core 1\) \| n\/a \|.* \| k6 exit 107 \\\| boom \|$/);
    expect(lines[0]!.split('|')).toHaveLength(lines[2]!.split('|').length);
  });
});

describe('suitePrompts', () => {
  const firstLine = (p: string): string => p.slice(0, p.indexOf('\n'));
  const body = (p: string): string => p.slice(p.indexOf('\n') + 1);

  it("gives each request the sweep's body behind a first line of its own", () => {
    const ps = suitePrompts(1024, 3, 424242, null);
    expect(ps).toHaveLength(3);
    expect(new Set(ps.map(firstLine)).size).toBe(3);
    expect(firstLine(ps[0]!)).toMatch(/^\[\d{11}-424242\] Read the text and continue it\.$/);
    expect(new Set(ps.map(body)).size).toBe(1);
    // About one token per word: 0.95 x 1024 - 20 = 953 words of filler.
    expect(body(ps[0]!).split(' ')).toHaveLength(953);
  });

  it("drops the body's last words until the prompt fits, and no further than needed", () => {
    // A stand-in counter: a token per 4 characters puts the whole prompt (about 5,000 characters) over 1,024.
    const countText = (t: string): number => Math.ceil(t.length / 4);
    const [whole] = suitePrompts(1024, 1, 7, null);
    expect(countText(whole!)).toBeGreaterThan(1024);
    const [cut] = suitePrompts(1024, 1, 7, { maxTokens: 1024, countText });
    expect(countText(cut!)).toBeLessThanOrEqual(1024);
    expect(whole!.startsWith(cut!)).toBe(true);
    const next = whole!.slice(cut!.length).trimStart().split(' ')[0]!;
    expect(countText(`${cut} ${next}`)).toBeGreaterThan(1024);
    expect(suitePrompts(1024, 1, 7, { maxTokens: 1024, countText: () => 10 })).toEqual([whole]);
  });
});

describe('shareGptFile', () => {
  it('writes one two-turn conversation per prompt, the prompt as the human turn', () => {
    expect(JSON.parse(shareGptFile(['a\nb', 'c']))).toEqual([
      { id: '0', conversations: [{ from: 'human', value: 'a\nb' }, { from: 'gpt', value: '' }] },
      { id: '1', conversations: [{ from: 'human', value: 'c' }, { from: 'gpt', value: '' }] },
    ]);
  });
});
