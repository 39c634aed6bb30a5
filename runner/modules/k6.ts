// The k6 module for one VU: check, group, sleep, fail, randomSeed. Runs in Node.
import { monoMs } from '../clock';
import { esm, type VU } from '../vu';

/** Thrown by fail(): an ordinary exception that ends the iteration. */
function fail(message?: unknown): never {
  throw new Error(message === undefined ? 'fail' : String(message));
}

export function createK6Module(vu: VU) {
  const rc = vu.rc;

  function check(value: unknown, sets: Record<string, unknown>, tags?: Record<string, unknown>): boolean {
    if (vu.inInitContext) throw new Error('check() can be used only in the VU context');
    let all = true;
    const extra: Record<string, string> = {};
    if (tags) for (const [k, v] of Object.entries(tags)) extra[k] = String(v);
    for (const name of Object.keys(sets)) {
      const fn = sets[name];
      let ok: boolean;
      if (typeof fn === 'function') {
        // An exception in a check function propagates, as in k6.
        ok = Boolean((fn as (v: unknown) => unknown)(value));
      } else {
        ok = Boolean(fn);
      }
      if (vu.iter === null || !vu.iter.done) {
        const node = rc.groups.check(vu.groupPath, name);
        if (ok) node.passes++;
        else node.fails++;
      }
      vu.push(rc.builtin.checks, ok ? 1 : 0, vu.sampleTags({ ...extra, check: name }));
      if (!ok) all = false;
    }
    return all;
  }

  function group<T>(name: string, fn: () => T): T {
    if (vu.inInitContext) throw new Error('group() can be used only in the VU context');
    if (name.includes('::')) throw new Error('group and check names may not contain "::"');
    const parent = vu.groupPath;
    const node = rc.groups.group(parent, name);
    vu.groupPath = node.path;
    const t0 = monoMs();
    try {
      return fn();
    } finally {
      vu.push(rc.builtin.groupDuration, monoMs() - t0, vu.sampleTags());
      vu.groupPath = parent;
    }
  }

  /** Resolves after `seconds`; a cut iteration's sleep never resolves (k6 interrupts the VU). */
  function sleep(seconds: number): Promise<void> {
    const iter = vu.iter;
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        iter?.cleanups.delete(cancel);
        resolve();
      }, Math.max(0, Number(seconds) * 1000));
      const cancel = (): void => clearTimeout(t);
      iter?.cleanups.add(cancel);
    });
  }

  return esm({ check, group, sleep, fail, randomSeed: () => undefined });
}
