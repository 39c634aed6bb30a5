// The k6 module for one VU: sleep only (the bundles import nothing from k6; the benches' scripts sleep). Runs in Node.
import { esm, notProvided, type VU } from '../vu';

/** k6 members the runner does not provide: the bundles use none of them. */
const NOT_PROVIDED = ['check', 'group', 'fail', 'randomSeed'];

export function createK6Module(vu: VU) {
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

  return esm({ sleep, ...notProvided(NOT_PROVIDED, (name) => `${name}() is not supported by the local runner: of the k6 module it supports only sleep`) });
}
