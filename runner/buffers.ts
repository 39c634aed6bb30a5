// Buffer methods as plain functions for the per-token byte path (transport and SSE parser). Runs in Node.

// Called through references taken once: in the runner, optimised code did not inline `buf.toString`
// / `buf.indexOf` on the transport's buffers and paid a generic property lookup (LoadIC) per call,
// the largest runner-side item in a perf profile at 256 streams.
export const bufToString = Buffer.prototype.toString as (this: Buffer, encoding: BufferEncoding, start: number, end: number) => string;
export const bufIndexOf = Buffer.prototype.indexOf as (this: Buffer, value: number, byteOffset: number) => number;
