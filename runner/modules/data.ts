// k6/data for one VU: SharedArray, built once per name and shared read-only by every VU. Runs in Node.
import { esm, type VU } from '../vu';

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}

export function createDataModule(vu: VU) {
  class SharedArray {
    constructor(name: string, fn: () => unknown) {
      if (!vu.inInitContext) throw new Error('new SharedArray must be called in the init context');
      if (typeof name !== 'string' || name === '') throw new Error('empty name provided to SharedArray\'s constructor');
      let arr = vu.rc.sharedArrays.get(name);
      if (!arr) {
        const made = fn();
        if (!Array.isArray(made)) throw new Error('only arrays can be made into SharedArray');
        // Stored as JSON once and parsed back frozen: elements are plain data, as k6's copies are.
        arr = deepFreeze(JSON.parse(JSON.stringify(made)) as unknown[]);
        vu.rc.sharedArrays.set(name, arr);
      }
      return arr as unknown as SharedArray;
    }
  }
  return esm({ SharedArray });
}
