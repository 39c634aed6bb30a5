// k6/timers and the global timer functions for one VU; pending timers die with a cut iteration. Runs in Node.
import type { VU } from '../vu';

export interface VuTimers {
  setTimeout(fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]): number;
  clearTimeout(id: number): void;
  setInterval(fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]): number;
  clearInterval(id: number): void;
  clearAll(): void;
}

let nextId = 1;

/** Timer ids are numbers, as in k6; a cut iteration clears the timers it set. */
export function createTimersModule(vu: VU): VuTimers {
  const live = new Map<number, NodeJS.Timeout>();
  const clear = (id: number): void => {
    const t = live.get(id);
    if (t !== undefined) {
      clearTimeout(t);
      clearInterval(t);
      live.delete(id);
    }
  };
  const track = (id: number): void => {
    const iter = vu.iter;
    if (iter) iter.cleanups.add(() => clear(id));
  };
  return {
    setTimeout(fn, ms = 0, ...args) {
      const id = nextId++;
      live.set(
        id,
        setTimeout(() => {
          live.delete(id);
          fn(...args);
        }, Number(ms) || 0),
      );
      track(id);
      return id;
    },
    clearTimeout: clear,
    setInterval(fn, ms = 0, ...args) {
      const id = nextId++;
      live.set(id, setInterval(() => fn(...args), Math.max(1, Number(ms) || 0)));
      track(id);
      return id;
    },
    clearInterval: clear,
    clearAll() {
      for (const id of [...live.keys()]) clear(id);
    },
  };
}
