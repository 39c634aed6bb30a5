// The initialised VUs of a run; scenarios borrow VUs and give them back when they end. Runs in Node.
import type { VU } from './vu';

export class VUPool {
  private readonly free: VU[];

  constructor(all: readonly VU[]) {
    // Lowest ids first, as k6 hands out VUs in init order.
    this.free = [...all].reverse();
  }

  acquire(): VU | undefined {
    return this.free.pop();
  }

  release(vu: VU): void {
    this.free.push(vu);
  }
}
