// The measuring agent's scheduling priority: the prefix chosen per setting, the errors, and a real agent started at
// SCHED_FIFO where this machine allows it. Runs in Node (vitest).

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../lib/exit-codes';
import { agentPriorityPrefix, parseAgentPriority, realtimeAllowed } from '../../orchestrator/agent-priority';
import { startAgent } from '../../orchestrator/agent-process';

const yes = (): boolean => true;
const no = (): boolean => false;

describe('agentPriorityPrefix', () => {
  it('starts the agent as it is for normal, never asking whether real-time is allowed', () => {
    expect(agentPriorityPrefix('normal', () => expect.unreachable())).toEqual({ prefix: [], realtime: false });
  });

  it('runs it under chrt -f 10 for realtime and auto where allowed', () => {
    for (const p of ['realtime', 'auto'] as const) {
      expect(agentPriorityPrefix(p, yes)).toEqual({ prefix: ['chrt', '-f', '10'], realtime: true });
    }
  });

  it('falls back to normal for auto, and refuses realtime in one line, where it is not allowed', () => {
    expect(agentPriorityPrefix('auto', no)).toEqual({ prefix: [], realtime: false });
    expect(() => agentPriorityPrefix('realtime', no)).toThrow(UserError);
    expect(() => agentPriorityPrefix('realtime', no)).toThrow(
      /^--agent-priority realtime needs chrt .*: use auto or normal$/,
    );
  });
});

describe('parseAgentPriority', () => {
  it('takes the three names and refuses anything else, naming where the value came from', () => {
    const names = ['normal', 'realtime', 'auto'];
    expect(names.map((v) => parseAgentPriority(v, 'x'))).toEqual(names);
    expect(() => parseAgentPriority('high', 'LLM_AGENT_PRIORITY')).toThrow(
      'LLM_AGENT_PRIORITY must be one of normal, realtime, auto, got "high"',
    );
  });
});

describe.skipIf(!realtimeAllowed())('an agent started at realtime, on this machine', () => {
  it('runs at SCHED_FIFO, its pid its own (chrt execs it)', async () => {
    const agent = await startAgent({ prefix: agentPriorityPrefix('realtime').prefix });
    try {
      // /proc/<pid>/sched: "policy : 1" is SCHED_FIFO (0 is SCHED_OTHER).
      const sched = readFileSync(`/proc/${agent.pid}/sched`, 'utf8');
      expect(/^policy\s*:\s*(\d+)$/m.exec(sched)?.[1]).toBe('1');
      expect(readFileSync(`/proc/${agent.pid}/comm`, 'utf8').trim()).toMatch(/agent/);
    } finally {
      await agent.stop();
    }
  });
});
