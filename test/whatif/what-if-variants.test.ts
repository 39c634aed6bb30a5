// The --what-if grammar and what each variant does to a plan. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { UserError } from '../../lib/exit-codes';
import { resolvePlan } from '../../lib/plan';
import { QUICK_PLAN } from '../../orchestrator/default-plans';
import { applyWhatIf, parseWhatIf, variantSlug } from '../../whatif/what-if-variants';

const base = resolvePlan(QUICK_PLAN, 'capacity');
const variant = (text: string, script: 'capacity' | 'sweep' = 'capacity') =>
  resolvePlan(applyWhatIf(QUICK_PLAN, base.useCases, parseWhatIf(text)), script);

describe('parseWhatIf', () => {
  it('reads each name', () => {
    expect(parseWhatIf('prompt=2x')).toEqual({ kind: 'prompt', factor: 2, label: 'prompt=2x' });
    expect(parseWhatIf('prompt=0.5x')).toMatchObject({ factor: 0.5 });
    expect(parseWhatIf('output=512')).toEqual({ kind: 'output', tokens: 512, label: 'output=512' });
    expect(parseWhatIf('ttft=2000')).toMatchObject({ kind: 'limit', metric: 'ttft', value: 2000 });
    expect(parseWhatIf('decode-speed=20')).toMatchObject({ kind: 'limit', metric: 'decodeSpeed', value: 20 });
    expect(variantSlug(parseWhatIf('decode-speed=20'))).toBe('decode-speed-20');
  });

  it.each(['prompt=2', 'prompt=0x', 'output=1.5', 'output=0', 'ttft=-1', 'speed=20', 'ttft', 'ttft=abc'])(
    'refuses %s in one line',
    (text) => {
      const err = (() => {
        try {
          parseWhatIf(text);
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(err).toBeInstanceOf(UserError);
      expect((err as UserError).message).not.toContain('\n');
      expect((err as UserError).message).toContain(text);
    },
  );
});

describe('applyWhatIf', () => {
  it('prompt=2x doubles every context, the use cases\' and the sweep\'s', () => {
    const v = variant('prompt=2x');
    for (const u of v.useCases)
      expect(u.contextTokens).toBe(2 * base.useCases.find((b) => b.id === u.id)!.contextTokens);
    const sweep = variant('prompt=2x', 'sweep');
    expect([...new Set(sweep.cells.map((c) => c.contextTokens))]).toEqual(
      QUICK_PLAN.sweep!.contexts!.map((c) => 2 * c),
    );
  });

  it('output=512 reaches the capacity cells though the quick plan sets its own outputs', () => {
    expect(new Set(variant('output=512').cells.map((c) => c.outputTokens))).toEqual(new Set([512]));
    expect(new Set(variant('output=512', 'sweep').cells.map((c) => c.outputTokens))).toEqual(new Set([512]));
  });

  it('ttft=2000 sets the TTFT limit, adds it where a use case has none, and relabels it', () => {
    const v = variant('ttft=2000');
    for (const u of v.useCases) {
      const ttft = u.limits.filter((l) => l.metric === 'ttft');
      expect(ttft).toHaveLength(1);
      expect(ttft[0]).toMatchObject({ operator: '<', value: 2000, label: 'TTFT < 2 s' });
    }
    const completion = v.useCases.find((u) => u.id === 'code_completion')!;
    expect(completion.limits.map((l) => l.metric)).toEqual(['e2e', 'ttft']);
  });

  it('decode-speed=20 keeps every other limit as it was', () => {
    const v = variant('decode-speed=20');
    const chat = v.useCases.find((u) => u.id === 'short_chatbot')!;
    expect(chat.limits).toEqual([
      base.useCases.find((u) => u.id === 'short_chatbot')!.limits[0],
      { metric: 'decodeSpeed', operator: '>', value: 20, label: 'speed > 20 tok/s' },
    ]);
  });
});
