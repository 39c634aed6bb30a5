// The arithmetic of conversations: think-time draws, tags, the next turn's length and phase. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { renderChatMl } from '../../lib/chat-template';
import { mulberry32 } from '../../lib/random';
import {
  drawThinkSeconds, nextTurnMessages, nextTurnTokens, sessionTag, thinkMeanSeconds, turnOfTag, turnPhase, turnTag,
  usersArrived,
} from '../../lib/sessions';
import type { ThinkTime } from '../../thresholds/sessions';

describe('think time', () => {
  const cases: [ThinkTime, number][] = [
    [{ distribution: 'constant', seconds: 3 }, 3],
    [{ distribution: 'exponential', meanSeconds: 20 }, 20],
    [{ distribution: 'uniform', minSeconds: 2, maxSeconds: 6 }, 4],
    // median e^(sigma^2 / 2): 5 x e^0.125.
    [{ distribution: 'lognormal', medianSeconds: 5, sigma: 0.5 }, 5 * Math.exp(0.125)],
  ];

  it.each(cases)('%j: the draws average to the mean, all within the distribution', (t, mean) => {
    expect(thinkMeanSeconds(t)).toBeCloseTo(mean, 12);
    const random = mulberry32(7);
    const draws = Array.from({ length: 40_000 }, () => drawThinkSeconds(t, random));
    const avg = draws.reduce((a, b) => a + b, 0) / draws.length;
    // 40,000 draws: the standard error is under 1% of the mean for these spreads.
    expect(Math.abs(avg / mean - 1)).toBeLessThan(0.03);
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(t.distribution === 'uniform' ? 2 : 0);
    if (t.distribution === 'uniform') expect(Math.max(...draws)).toBeLessThan(6);
  });

  it('an exponential draw has the spread of one: its standard deviation equals its mean', () => {
    const random = mulberry32(3);
    const draws = Array.from({ length: 40_000 }, () =>
      drawThinkSeconds({ distribution: 'exponential', meanSeconds: 10 }, random),
    );
    const mean = draws.reduce((a, b) => a + b, 0) / draws.length;
    const sd = Math.sqrt(draws.reduce((a, b) => a + (b - mean) ** 2, 0) / draws.length);
    expect(Math.abs(sd / 10 - 1)).toBeLessThan(0.03);
  });
});

describe('tags', () => {
  it('caps the turn tag at 16 and the session tag at 3, so a run adds a bounded number of series', () => {
    expect([1, 2, 15, 16, 17, 400].map(turnTag)).toEqual(['1', '2', '15', '16+', '16+', '16+']);
    expect([1, 2, 3, 9].map(sessionTag)).toEqual(['1', '2', '3+', '3+']);
    expect(['1', '15', '16+'].map(turnOfTag)).toEqual([1, 15, 16]);
  });
});

describe('the next turn', () => {
  it('sends the history, the answer as returned and the new message; its length adds the answer and the growth', () => {
    const history = [{ role: 'user' as const, content: 'first' }];
    const next = nextTurnMessages(history, ' the answer', 'and then?');
    expect(renderChatMl(next)).toBe(
      '<|im_start|>user\nfirst<|im_end|>\n' +
      '<|im_start|>assistant\n the answer<|im_end|>\n' +
      '<|im_start|>user\nand then?<|im_end|>\n' +
      '<|im_start|>assistant\n',
    );
    expect(history).toHaveLength(1);
    expect(nextTurnTokens({ inputTokens: 1024, outputTokens: 128 }, 64)).toBe(1216);
  });

  it('is measured when it starts and ends inside the window, else warm-up or transition', () => {
    const w = { startMs: 1000, endMs: 5000 };
    expect(turnPhase(999, 1500, w)).toBe('warmup');
    expect(turnPhase(1000, 5000, w)).toBe('measured');
    expect(turnPhase(4000, 5001, w)).toBe('transition');
  });

  it('counts the users of a step that have arrived over its ramp', () => {
    expect([0, 999, 1000, 5000, 9999, 20_000].map((t) => usersArrived(10, 10_000, t))).toEqual([1, 1, 2, 6, 10, 10]);
    expect(usersArrived(10, 0, 0)).toBe(10);
  });
});
