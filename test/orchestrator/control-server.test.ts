// Tests orchestrator/control-server.ts over real loopback HTTP: a VU parked in /next is answered when the driver's
// quiet gap between steps ends, with no /done to wake it. Runs in Node (vitest).
import { afterEach, describe, expect, it } from 'vitest';
import { startControlServer, type ControlServer } from '../../orchestrator/control-server';
import { Driver, FixedSteps, type StepSpec } from '../../orchestrator/driver';
import { CONTROL_PATHS } from '../../lib/drive';

const cell = (id: string): StepSpec['cell'] => ({
  id, script: 'sweep', contextTokens: 1024, outputTokens: 16, concurrency: 1, useCase: null, profile: null,
});

let control: ControlServer | null = null;
afterEach(async () => {
  await control?.close();
  control = null;
});

describe('the control server and the quiet gap between steps', () => {
  it("answers a parked VU once the gap is over, not before, though nothing else happens", async () => {
    const quietMs = 300;
    const specs: StepSpec[] = [
      { cell: cell('a'), mode: { kind: 'rounds', rounds: 1 } },
      { cell: cell('b'), mode: { kind: 'rounds', rounds: 1 } },
    ];
    const driver = new Driver(new FixedSteps(specs), () => performance.now(), null, quietMs);
    control = await startControlServer(driver);
    const next = async () => (await (await fetch(`${control!.url}${CONTROL_PATHS.next}?vu=1`)).json()) as {
      stop: boolean; ticket?: { ticket: number; cell: { id: string } };
    };
    const first = await next();
    expect(first.ticket?.cell.id).toBe('a');
    const done = { ticket: first.ticket!.ticket, ok: true, startMs: 0, endMs: 1, outputTokens: 16, itlMs: [] };
    await fetch(`${control.url}${CONTROL_PATHS.done}`, { method: 'POST', body: JSON.stringify(done) });
    const asked = performance.now();
    const second = await next();
    expect(second.ticket?.cell.id).toBe('b');
    // Timers never fire early; the margin is for the HTTP round trip of the /done before `asked`.
    expect(performance.now() - asked).toBeGreaterThanOrEqual(quietMs - 50);
  });

  it("answers a parked VU though its timer fires before the driver's clock has the gap over", async () => {
    // The driver's clock runs 20 ms behind the timers': each timer finds the gap not over yet and must be set again.
    const specs: StepSpec[] = [
      { cell: cell('a'), mode: { kind: 'rounds', rounds: 1 } },
      { cell: cell('b'), mode: { kind: 'rounds', rounds: 1 } },
    ];
    const timerEarlyMs = 20;
    const driver = new Driver(new FixedSteps(specs), () => performance.now() - timerEarlyMs, null, 100);
    control = await startControlServer(driver);
    const next = async () => (await (await fetch(`${control!.url}${CONTROL_PATHS.next}?vu=1`)).json()) as {
      ticket?: { ticket: number; cell: { id: string } };
    };
    const first = await next();
    const done = { ticket: first.ticket!.ticket, ok: true, startMs: 0, endMs: 1, outputTokens: 16, itlMs: [] };
    const parked = next();
    await fetch(`${control.url}${CONTROL_PATHS.done}`, { method: 'POST', body: JSON.stringify(done) });
    expect((await parked).ticket?.cell.id).toBe('b');
  });
});
