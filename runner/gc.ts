// A full garbage collection on demand, for the quiet moment between VU initialisation and the first iteration. Runs in Node.
import v8 from 'node:v8';
import vm from 'node:vm';

// Initialising hundreds of VUs (a vm context each) grows the old generation by tens of MB, and V8's
// next major GC then starts a few hundred ms into the test: its marking, on the same core, stalls
// every stream's delivery while the first tokens arrive. Collecting once before the scenarios start
// rebases the heap limit on the live VU heap, so no major GC falls into the ramp-up.
// `gc` is taken from a throwaway context with the flag on only for that moment: VU contexts, created
// later, must not see a `gc` global. A process started with --expose-gc keeps its flag untouched.
const given = (globalThis as { gc?: unknown }).gc;
let collect: (() => void) | null = typeof given === 'function' ? (given as () => void) : null;
if (collect === null) {
  try {
    v8.setFlagsFromString('--expose-gc');
    const fn = vm.runInNewContext('gc') as unknown;
    if (typeof fn === 'function') collect = fn as () => void;
  } catch {
    collect = null;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
}

/** Runs a full (mark-compact) collection when the runtime allows it; otherwise does nothing. */
export function collectGarbage(): void {
  collect?.();
}
