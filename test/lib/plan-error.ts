// The one-line PlanError message resolvePlan throws for a plan, for the plan tests. Runs in Node (vitest).

import { expect } from 'vitest';
import { PlanError, resolvePlan, type ScriptName } from '../../lib/plan';

/** The error resolvePlan gives for raw as the script's plan; fails the test if there is none or it spans lines. */
export function planError(raw: unknown, script: ScriptName = 'sweep'): string {
  try {
    resolvePlan(raw, script);
  } catch (e) {
    expect(e).toBeInstanceOf(PlanError);
    const message = (e as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('resolvePlan accepted the plan');
}
