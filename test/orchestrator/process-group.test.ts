// A server started as a process group is stopped with every process it started. Runs in Node (vitest, Linux).

import { describe, expect, it } from 'vitest';
import { groupMembers, spawnGroup } from '../../orchestrator/process-group';

/** Waits until `n` processes are in the group (the shell has started its children). */
async function waitForMembers(pgid: number, n: number): Promise<void> {
  for (let i = 0; i < 100 && groupMembers(pgid).length < n; i++) await new Promise((r) => setTimeout(r, 20));
}

describe('spawnGroup', () => {
  it('stop() ends the leader and the children it started, leaving no process of the group', async () => {
    const g = spawnGroup('sh', ['-c', 'sleep 60 & sleep 60 & echo started; wait'], process.env);
    await waitForMembers(g.pgid, 3);
    expect(groupMembers(g.pgid).length).toBe(3);
    await g.stop();
    expect(g.exited()).toBe(true);
    expect(groupMembers(g.pgid)).toEqual([]);
    expect(g.logTail()).toContain('started');
  });

  it('SIGKILLs a group that ignores SIGTERM once the grace time is over', async () => {
    const g = spawnGroup('sh', ['-c', "trap '' TERM; sleep 60 & wait; sleep 60"], process.env);
    await waitForMembers(g.pgid, 2);
    const start = Date.now();
    await g.stop(300);
    expect(Date.now() - start).toBeGreaterThanOrEqual(300);
    expect(groupMembers(g.pgid)).toEqual([]);
  });

  it('stops children left behind by a leader that already exited', async () => {
    const g = spawnGroup('sh', ['-c', 'sleep 60 & exit 0'], process.env);
    for (let i = 0; i < 100 && !g.exited(); i++) await new Promise((r) => setTimeout(r, 20));
    expect(groupMembers(g.pgid).length).toBe(1);
    await g.stop();
    expect(groupMembers(g.pgid)).toEqual([]);
  });
});
