// Tests of the tokenizer pool: worker-thread counting equals the in-process tokenizer. Runs in Node (vitest).
// That includes split-and-cache of long prompts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderChatMl } from '../../lib/chat-template';
import { chainedBlockHashes } from '../../sim/kv-cache';
import { messagePieces, safeCut, splitPoint, TokenizePool } from '../../sim/tokenize-pool';
import { TokenText, WORDS } from '../../sim/text';
import { loadQwen3Tokenizer } from '../../tokenizer/qwen3';

let pool: TokenizePool;
beforeAll(async () => {
  pool = new TokenizePool(1);
  await pool.ready();
});
afterAll(async () => {
  await pool.close();
});

const BODY = [
  'def fibonacci(n):\n    if n < 2:\n        return n\n    return fibonacci(n - 1) + fibonacci(n - 2)\n',
  'The quick brown fox jumps over the lazy dog. ',
  '  indented line with   spaces\n\n\nthree newlines and a tab\there.\r\nWindows line end.\n',
  'Unicode: naïve café — 漢字 かな 😀 emoji.\n',
  '12345 67890 3.14159 x=42; y += 7;\n',
];

function longText(seed: number, chars: number): string {
  let s = '';
  let i = seed;
  while (s.length < chars) s += BODY[i++ % BODY.length];
  return s;
}

describe('safeCut / splitPoint', () => {
  it('cuts after a newline followed by a non-space character', () => {
    expect(safeCut('abc\n  x\ny', 0)).toBe(8);
    expect(safeCut('abc\n\n', 0)).toBe(-1);
  });

  it('does not split short texts', () => {
    expect(splitPoint('short\ntext')).toBe(-1);
  });

  it('cuts a chat prompt into its messages, each from its <|im_start|>', () => {
    const text = renderChatMl([{ role: 'user', content: 'a\nb' }, { role: 'assistant', content: ' c' }]);
    expect(messagePieces(text)).toEqual([
      '<|im_start|>user\na\nb<|im_end|>\n', '<|im_start|>assistant\n c<|im_end|>\n', '<|im_start|>assistant\n',
    ]);
    expect(messagePieces('plain text')).toEqual(['plain text']);
  });
});

describe('TokenizePool: exact counts, block hashes and the cache', () => {
  it('counts exactly as tokenizer/qwen3.ts does, for texts split at their first line and not', async () => {
    const tok = loadQwen3Tokenizer();
    for (let seed = 0; seed < 12; seed++) {
      const firstLine = [
        `Request ${seed} of run abc: answer briefly.\n`, `req-${seed}  \n`, `#${seed}:\n`, `${seed}. `,
      ][seed % 4]!;
      const text = firstLine + longText(seed, 6000 + seed * 97);
      expect(await pool.countText(text), `seed ${seed}`).toBe(tok.countText(text));
      const messages = [
        { role: 'system' as const, content: 'You are helpful.' }, { role: 'user' as const, content: text },
      ];
      expect(await pool.countChat(messages), `chat seed ${seed}`).toBe(tok.countChat(messages));
    }
  });

  it('gives the block hashes of the whole prompt\'s ids, split or not, cached tail or not', async () => {
    const tok = loadQwen3Tokenizer();
    for (let seed = 0; seed < 4; seed++) {
      const firstLine = [
        `Request ${seed} of run abc: answer briefly.\n`, `req-${seed}  \n`, `#${seed}:\n`, `${seed}. `,
      ][seed]!;
      const messages = [{ role: 'user' as const, content: firstLine + longText(seed, 7000) }];
      const want = chainedBlockHashes([tok.encode(renderChatMl(messages))], 16);
      for (let round = 0; round < 2; round++) {
        const got = await pool.tokenizeChat(messages, 16);
        expect(got.blockHashes, `seed ${seed} round ${round}`).toEqual(want);
        expect(got.blockHashes).toHaveLength(Math.floor(got.count / 16));
      }
    }
    expect((await pool.tokenizeText('short text', 0)).blockHashes).toEqual([]);
  });

  it('answers repeated long texts from the cache: the second count of a new first line is much faster', async () => {
    const rest = longText(3, 400_000);
    const t0 = performance.now();
    const a = await pool.countChat([{ role: 'user', content: `first line A\n${rest}` }]);
    const cold = performance.now() - t0;
    const t1 = performance.now();
    const b = await pool.countChat([{ role: 'user', content: `first line BB\n${rest}` }]);
    const warm = performance.now() - t1;
    expect(b - a).toBe(
      loadQwen3Tokenizer().countText(renderChatMl([{ role: 'user', content: 'first line BB\nx' }])) -
        loadQwen3Tokenizer().countText(renderChatMl([{ role: 'user', content: 'first line A\nx' }])),
    );
    expect(warm).toBeLessThan(cold / 5);
  });
});

describe('TokenizePool: conversations, generated words and the event loop', () => {
  it('tokenizes a conversation message by message into exactly the ids of the whole, turn after turn', async () => {
    const tok = loadQwen3Tokenizer();
    const messages: { role: 'user' | 'assistant'; content: string }[] = [
      { role: 'user', content: `[00000000042-000007] Read the text and continue it.\n${longText(2, 9000)}` },
    ];
    for (let t = 0; t < 4; t++) {
      const want = tok.encode(renderChatMl(messages));
      const got = await pool.tokenizeChat(messages, 16);
      expect(got.count, `turn ${t + 1}`).toBe(want.length);
      expect(got.blockHashes, `turn ${t + 1}`).toEqual(chainedBlockHashes([want], 16));
      expect(got.ids.flatMap((ids) => Array.from(ids))).toEqual(want);
      // The response as the simulator streams it (" word" tokens), then a user message with a newline, a long one last.
      messages.push(
        { role: 'assistant', content: new TokenText(t).tokens(50 + 40 * t) },
        { role: 'user', content: t === 2 ? `Now this:\n${longText(t, 5000)}` : `Question ${t}:\n  indented\tand more` },
      );
    }
  });

  it('gives every generated word its single token id', async () => {
    const ids = await pool.wordIds(WORDS);
    const tok = loadQwen3Tokenizer();
    expect(Array.from(ids)).toEqual(WORDS.map((w) => tok.encode(` ${w}`)[0]));
    await expect(pool.wordIds(['the', 'antidisestablishmentarianism'])).rejects.toThrow(/not one each/);
  });

  it('keeps the event loop free while a long text is counted', async () => {
    const text = longText(1, 600_000) + 'unique';
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const t0 = performance.now();
    await pool.countText(text);
    const elapsed = performance.now() - t0;
    clearInterval(timer);
    // The 5 ms interval kept firing during the count (at least half as often as it could).
    expect(ticks).toBeGreaterThan(elapsed / 5 / 2);
  });
});

describe('TokenizePool: workers as the queue needs them', () => {
  it('starts one worker, and another only once a second of work is queued on it', async () => {
    const grown = new TokenizePool(2);
    try {
      await grown.ready();
      expect(grown.workerCount).toBe(1);
      await grown.countText(longText(0, 20_000));
      expect(grown.workerCount).toBe(1);
      // Two texts of 1.2M characters at once: the second finds the first queued, over 1M characters.
      const [a, b] = await Promise.all([grown.encode(longText(1, 1_200_000)), grown.encode(longText(2, 1_200_000))]);
      expect(grown.workerCount).toBe(2);
      const one = loadQwen3Tokenizer();
      expect([a.length, b.length]).toEqual([
        one.encode(longText(1, 1_200_000)).length, one.encode(longText(2, 1_200_000)).length,
      ]);
    } finally {
      await grown.close();
    }
  }, 60_000);
});
