// The report presets among the built-in plans: valid for their scripts, each with its report's grid.
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { resolvePlan } from '../../lib/plan';
import { DEFAULT_PLANS, REPORT_PRESETS } from '../../orchestrator/default-plans';
import { findProfile } from '../../sim/profiles';
import { predictCellSeconds } from '../../orchestrator/sim-schedule';

describe('report presets', () => {
  it('one per seed report, each valid for its scripts and naming a built-in simulator profile', () => {
    expect(Object.keys(REPORT_PRESETS)).toEqual(['report-a', 'report-b', 'report-c', 'report-d', 'report-e']);
    for (const [name, preset] of Object.entries(REPORT_PRESETS)) {
      expect(findProfile(preset.profile), name).toBeDefined();
      expect(DEFAULT_PLANS[name]).toBe(preset.plan);
      for (const script of preset.scripts) {
        expect(resolvePlan(preset.plan, script).cells.length, `${name} ${script}`).toBeGreaterThan(0);
      }
    }
  });

  it("waits for the 256K corner's last first byte: the idle timeout outlasts the longest cell on the profile", () => {
    // N prompts of 256K sent at once queue the last behind N - 1 prefills; cut as stalled at 120 s before.
    for (const name of ['report-a', 'report-d', 'report-e']) {
      const preset = REPORT_PRESETS[name]!;
      const plans = preset.scripts.map((script) => resolvePlan(preset.plan, script));
      const longest = Math.max(...Object.values(predictCellSeconds(plans, findProfile(preset.profile)!)));
      expect(longest, name).toBeGreaterThan(120);
      expect(plans[0]!.target.idleTimeoutSeconds, name).toBeGreaterThan(longest);
    }
  });

  it('report-e sweeps 1K-256K at 1, 2, 5 and 10 requests with 1024 output tokens, as its report did', () => {
    const plan = resolvePlan(REPORT_PRESETS['report-e']!.plan, 'sweep');
    const contexts = new Set([1024, 8192, 32_768, 65_536, 98_304, 131_072, 262_144]);
    expect(new Set(plan.cells.map((c) => c.contextTokens))).toEqual(contexts);
    expect(new Set(plan.cells.map((c) => c.concurrency))).toEqual(new Set([1, 2, 5, 10]));
    expect(new Set(plan.cells.map((c) => c.outputTokens))).toEqual(new Set([1024]));
  });

  it('report-c runs the four scenarios at 1-32 requests and bursts up to 256', () => {
    const preset = REPORT_PRESETS['report-c']!;
    expect(preset.scripts).toEqual(['mix', 'burst']);
    const burst = resolvePlan(preset.plan, 'burst');
    expect(Math.max(...burst.cells.map((c) => c.concurrency))).toBe(256);
    expect(burst.burstTtftLimitMs).toBe(3000);
    const mix = resolvePlan(preset.plan, 'mix');
    const scenarios = new Set(mix.cells.map((c) => `${c.contextTokens}/${c.outputTokens}`));
    expect(scenarios).toEqual(new Set(['1024/256', '4096/256', '16384/256', '32768/256']));
  });

  it('report-b sends one prompt N times, as its published figures imply', () => {
    expect(resolvePlan(REPORT_PRESETS['report-b']!.plan, 'mix').prompts.mode).toBe('shared-prefix');
  });
});
