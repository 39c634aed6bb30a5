// The accuracy study's command line (bench/accuracy-args.ts). Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import { parseArgs, parseClosed, roundsOf } from '../../bench/accuracy-args';

describe('parseArgs', () => {
  it('defaults to issue 41\'s levels, every client, 300 tokens', () => {
    const a = parseArgs([]);
    expect(a.closed.map((l) => `${l.streams}x${l.tokensPerSecond}`)).toEqual(
      ['1x100', '8x100', '32x100', '128x100', '256x100', '512x100', '1024x100', '1024x30']);
    expect(a.open).toEqual([5, 20, 50, 100]);
    expect(a.clients).toEqual(['suite', 'vllm', 'aiperf', 'guidellm']);
    expect([a.tokens, a.openSeconds, a.json, a.build]).toEqual([300, 30, null, true]);
  });

  it('--quick is a smaller subset, and flags given beside it win', () => {
    const a = parseArgs(['--quick', '--open', '5,50', '--clients', 'suite,aiperf', '--json', 'out.json', '--no-build']);
    expect(a.closed.map((l) => l.streams)).toEqual([1, 32, 256]);
    expect([a.tokens, a.openSeconds]).toEqual([100, 10]);
    expect([a.open, a.clients, a.json, a.build]).toEqual([[5, 50], ['suite', 'aiperf'], 'out.json', false]);
  });

  it('--quick runs the suite and vllm bench serve unless told otherwise', () => {
    expect(parseArgs(['--quick']).clients).toEqual(['suite', 'vllm']);
  });

  it('takes an empty --open for closed loop alone', () => {
    expect(parseArgs(['--open', '']).open).toEqual([]);
  });

  it('names the flag that is wrong, with a usage line', () => {
    expect(() => parseArgs(['--clients', 'suite,locust'])).toThrow(/--clients: "locust" is not one of/);
    expect(() => parseArgs(['--closed', '256@100'])).toThrow(/--closed: "256@100" is not streams x tok\/s/);
    expect(() => parseArgs(['--tokens', '1'])).toThrow(/--tokens: 1 is not a number from 2/);
    expect(() => parseArgs(['--open-seconds', '2.5'])).toThrow(/--open-seconds: a whole number/);
    expect(() => parseArgs(['--open', '0'])).toThrow(/--open: requests per second/);
    expect(() => parseArgs(['--closed', '', '--open', ''])).toThrow(/nothing to measure/);
    expect(() => parseArgs(['--levels', '1'])).toThrow(/Unknown option '--levels'.*\(use --closed/);
  });
});

describe('parseClosed and roundsOf', () => {
  it('reads streams x tok/s and rounds up to whole rounds', () => {
    expect(parseClosed('1024x30, 2x66.5')).toEqual([
      { streams: 1024, tokensPerSecond: 30 }, { streams: 2, tokensPerSecond: 66.5 },
    ]);
    expect([roundsOf(1, 16), roundsOf(8, 16), roundsOf(32, 16), roundsOf(5, 16)]).toEqual([16, 2, 1, 4]);
  });
});
