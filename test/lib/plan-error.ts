// The one-line PlanError message a plan or an environment gets, for the plan and env tests. Runs in Node (vitest).

import { expect } from 'vitest';
import { PlanError, resolvePlan, type ScriptName } from '../../lib/plan';

/** The PlanError `read` throws; fails the test if it throws none, another error, or a message that spans lines. */
export function oneLinePlanError(read: () => unknown, accepted: string): string {
  try {
    read();
  } catch (e) {
    expect(e).toBeInstanceOf(PlanError);
    const message = (e as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error(accepted);
}

/** The error resolvePlan gives for raw as the script's plan. */
export function planError(raw: unknown, script: ScriptName = 'sweep'): string {
  return oneLinePlanError(() => resolvePlan(raw, script), 'resolvePlan accepted the plan');
}
