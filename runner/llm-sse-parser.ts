// The WHATWG event-stream parser of k6/x/llm (docs/k6-x-llm.md): events stamped with the read's arrival time. Runs in Node.
//
// Unlike sse-parser.ts (which reproduces xk6-sse's quirks for k6/x/sse), this follows the HTML
// spec: LF, CRLF and CR line ends (a CR ending one read and an LF starting the next are one line
// end), a leading BOM skipped, one space after the colon dropped, comments ignored, an event
// dispatched on an empty line only when it has a data line, `id`/`retry` read and ignored, an open
// event at end of stream dropped. Unknown field names are counted (the first kept, 512 chars).
import { bufIndexOf, bufToString } from './buffers';

export interface LlmEvent {
  time: number;
  name: string;
  data: string;
  /** With params.parseJson: data decoded as JSON (absent when it is not JSON). */
  json?: unknown;
}

export const MAX_LINE_BYTES = 1024 * 1024;
const MAX_INVALID_LINE_CHARS = 512;

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;

export class LlmSseParser {
  /** Bytes of a line not yet ended, copied out of the transport's reused read buffer. */
  private carry: Buffer | null = null;
  /** The last read ended in CR: an LF at the start of the next read ends nothing more. */
  private skipLf = false;
  /** Bytes seen before the BOM decision (fewer than 3 at the very start). */
  private bomPending: Buffer | null = Buffer.alloc(0);
  private name = '';
  private data = '';
  private hasData = false;
  invalidLines = 0;
  firstInvalidLine = '';
  /** Set when a line passed MAX_LINE_BYTES: the caller ends the request ('line_too_long'). */
  tooLong = false;

  /** @param out receives each complete event; `time` is the arrival time of the read passed to push(). */
  constructor(private readonly out: (ev: LlmEvent) => void) {}

  /** Parses one read. The buffer may be reused by the caller after the call. */
  push(chunk: Buffer, time: number): void {
    if (this.tooLong) return;
    let buf = chunk;
    if (this.bomPending !== null) {
      const all = this.bomPending.length === 0 ? chunk : Buffer.concat([this.bomPending, chunk]);
      if (all.length < 3 && isBomPrefix(all)) {
        this.bomPending = Buffer.from(all);
        return;
      }
      this.bomPending = null;
      buf = all.length >= 3 && all[0] === 0xef && all[1] === 0xbb && all[2] === 0xbf ? all.subarray(3) : all;
    }
    let start = 0;
    const len = buf.length;
    if (this.skipLf) {
      this.skipLf = false;
      if (len > 0 && buf[0] === LF) start = 1;
    }
    if (this.carry !== null && start < len) {
      // Finish the carried line first (it is the only copy made, and only for a line split across reads).
      const end = findEol(buf, start, len);
      if (end < 0) {
        if (this.carry.length + (len - start) > MAX_LINE_BYTES) {
          this.tooLong = true;
          return;
        }
        this.carry = Buffer.concat([this.carry, buf.subarray(start, len)]);
        return;
      }
      const line = Buffer.concat([this.carry, buf.subarray(start, end)]);
      this.carry = null;
      if (line.length > MAX_LINE_BYTES) {
        this.tooLong = true;
        return;
      }
      this.line(line, 0, line.length, time);
      start = this.after(buf, end, len);
    }
    let lf = -2;
    let cr = -2;
    while (start < len) {
      if (lf !== -1 && lf < start) lf = bufIndexOf.call(buf, LF, start);
      if (cr !== -1 && cr < start) cr = bufIndexOf.call(buf, CR, start);
      const end = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
      if (end < 0) break;
      if (end - start > MAX_LINE_BYTES) {
        this.tooLong = true;
        return;
      }
      this.line(buf, start, end, time);
      start = this.after(buf, end, len);
    }
    if (start < len) {
      if (len - start > MAX_LINE_BYTES) {
        this.tooLong = true;
        return;
      }
      this.carry = Buffer.from(buf.subarray(start, len));
    }
  }

  /** End of stream: an event still open (and a line not ended) is not dispatched. */
  end(): void {
    this.carry = null;
  }

  /** The index after the line end at `end` (CR, LF or CRLF); a CR at the end of the read arms skipLf. */
  private after(buf: Buffer, end: number, len: number): number {
    if (buf[end] === CR) {
      if (end + 1 < len) return buf[end + 1] === LF ? end + 2 : end + 1;
      this.skipLf = true;
    }
    return end + 1;
  }

  private line(buf: Buffer, start: number, end: number, time: number): void {
    if (start === end) {
      if (this.hasData) {
        const ev: LlmEvent = { time, name: this.name, data: this.data };
        this.data = '';
        this.hasData = false;
        this.name = '';
        this.out(ev);
      } else this.name = '';
      return;
    }
    if (buf[start] === COLON) return;
    const colon = bufIndexOf.call(buf, COLON, start);
    const nameEnd = colon < 0 || colon >= end ? end : colon;
    let from = nameEnd === end ? end : nameEnd + 1;
    if (from < end && buf[from] === SPACE) from++;
    const n = nameEnd - start;
    if (n === 4 && buf[start] === 0x64 && buf[start + 1] === 0x61 && buf[start + 2] === 0x74 && buf[start + 3] === 0x61) {
      const value = bufToString.call(buf, 'utf8', from, end);
      this.data = this.hasData ? this.data + '\n' + value : value;
      this.hasData = true;
      return;
    }
    if (n === 5 && matches(buf, start, 'event')) {
      this.name = bufToString.call(buf, 'utf8', from, end);
      return;
    }
    if ((n === 2 && matches(buf, start, 'id')) || (n === 5 && matches(buf, start, 'retry'))) return;
    if (this.invalidLines++ === 0) {
      const stop = Math.min(end, start + MAX_INVALID_LINE_CHARS * 4);
      this.firstInvalidLine = bufToString.call(buf, 'utf8', start, stop).slice(0, MAX_INVALID_LINE_CHARS);
    }
  }
}

function findEol(buf: Buffer, start: number, len: number): number {
  for (let i = start; i < len; i++) {
    const c = buf[i]!;
    if (c === LF || c === CR) return i;
  }
  return -1;
}

function isBomPrefix(b: Buffer): boolean {
  return (b.length < 1 || b[0] === 0xef) && (b.length < 2 || b[1] === 0xbb);
}

function matches(buf: Buffer, start: number, word: string): boolean {
  for (let i = 0; i < word.length; i++) if (buf[start + i] !== word.charCodeAt(i)) return false;
  return true;
}
