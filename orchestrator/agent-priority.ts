// The scheduling priority the measuring agent runs at, as a command prefix for its process. Runs in Node.
//
// On a shared machine the agent's core is taken from it by other processes, so it reads its streams late and, once
// a token gap late, reads two tokens together: the report then calls the cell client-bound and it decides no
// capacity. At a real-time priority (SCHED_FIFO) the kernel runs the agent first whenever its bytes arrive: on a
// 2-core VM at load average 8-11 its longest read lag per request went from 42.5 ms to 2.1 ms at most
// (docs/design/client-integrity.md, `npm run bench:read-lag`). It needs CAP_SYS_NICE (root) and util-linux's chrt.

import { spawnSync } from 'node:child_process';
import { EXIT, UserError } from '../lib/exit-codes';

/** normal: as started; realtime: SCHED_FIFO or an error; auto: SCHED_FIFO where allowed, else normal. */
export type AgentPriority = 'normal' | 'realtime' | 'auto';
export const AGENT_PRIORITIES: readonly AgentPriority[] = ['normal', 'realtime', 'auto'];

/**
 * SCHED_FIFO's lowest range is taken by nothing on a stock system; 10 is above it and far below the kernel's own
 * threads (50 and up), which must still run first.
 */
const FIFO_PRIORITY = '10';
const CHRT = ['chrt', '-f', FIFO_PRIORITY];

let allowedHere: boolean | null = null;

/** Whether this process may start another at SCHED_FIFO: chrt is there and the kernel lets it (asked once). */
export function realtimeAllowed(): boolean {
  allowedHere ??= spawnSync(CHRT[0]!, [...CHRT.slice(1), 'true'], { stdio: 'ignore' }).status === 0;
  return allowedHere;
}

/** The prefix that starts the agent at `priority`, and whether it is real-time; a UserError when it cannot be. */
export function agentPriorityPrefix(
  priority: AgentPriority, allowed: () => boolean = realtimeAllowed,
): { readonly prefix: readonly string[]; readonly realtime: boolean } {
  if (priority === 'normal') return { prefix: [], realtime: false };
  if (allowed()) return { prefix: CHRT, realtime: true };
  if (priority === 'auto') return { prefix: [], realtime: false };
  throw new UserError(
    '--agent-priority realtime needs chrt (util-linux) and CAP_SYS_NICE (run as root), which this process lacks: ' +
    'use auto or normal',
    EXIT.usage,
  );
}

/** An agent priority from the command line or LLM_AGENT_PRIORITY; a UserError naming the choices otherwise. */
export function parseAgentPriority(value: string, source: string): AgentPriority {
  const found = AGENT_PRIORITIES.find((p) => p === value);
  if (found) return found;
  throw new UserError(`${source} must be one of ${AGENT_PRIORITIES.join(', ')}, got "${value}"`, EXIT.usage);
}
