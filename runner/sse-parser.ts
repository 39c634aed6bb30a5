// Splits an SSE byte stream into events exactly the way xk6-sse (phymbert/xk6-sse sse.go) does. Runs in Node.
//
// xk6-sse reads with bufio.Reader.ReadBytes('\n') and matches prefixes on the raw line, so:
// - id/event/comment values keep a trailing "\r" with CRLF line endings (only the "\n" is cut);
// - data lines are appended with their line ending and only the joined data is right-trimmed of CR/LF,
//   so several data lines are joined by "\n" (or "\r\n" under CRLF);
// - a blank line dispatches whatever was collected (a comment-only block is an event with empty data);
// - "retry:" is ignored; any other line fires an error "unknown event: <line incl. newline>";
// - an unterminated last line is dropped at EOF.
// The real build also dispatches on a CRLF blank line (docs/k6-observed.md, "k6/x/sse"), so "\r\n" counts as blank.
import { bufIndexOf, bufToString } from './buffers';

/** One event as the script sees it; k6 exposes Go's fields snake_cased. */
export interface SseEvent {
  id: string;
  name: string;
  data: string;
  comment: string;
}

export interface SseSink {
  event(ev: SseEvent): void;
  error(message: string): void;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Incremental parser: feed it socket chunks with push(). Lines are decoded straight from the chunk
 * (latin1 slices for the prefix test, utf8 for values) and only a line split across chunks is copied.
 */
export class SseParser {
  private carry: Buffer | null = null;
  private id = '';
  private name = '';
  private comment = '';
  private data = '';
  private hasData = false;
  private stopped = false;

  constructor(private readonly sink: SseSink) {}

  /** Stops dispatching (close() or an exception in a handler): later bytes are ignored. */
  stop(): void {
    this.stopped = true;
  }

  push(chunk: Buffer): void {
    let buf = chunk;
    if (this.carry !== null) {
      buf = Buffer.concat([this.carry, chunk]);
      this.carry = null;
    }
    let start = 0;
    const len = buf.length;
    while (start < len && !this.stopped) {
      const nl = bufIndexOf.call(buf, LF, start);
      if (nl < 0) break;
      this.line(buf, start, nl);
      start = nl + 1;
    }
    // Copy the partial line: the transport reuses its read buffer.
    if (start < len && !this.stopped) this.carry = Buffer.from(buf.subarray(start));
  }

  /** End of stream: an unterminated last line is dropped, as ReadBytes returns it with io.EOF. */
  end(): void {
    this.carry = null;
  }

  // `end` is the index of the "\n"; values exclude it but keep a "\r".
  private line(buf: Buffer, start: number, end: number): void {
    const n = end - start;
    if (n === 0 || (n === 1 && buf[start] === CR)) {
      this.dispatch();
      return;
    }
    const c0 = buf[start];
    if (c0 === 0x3a /* ':' */) {
      this.comment = bufToString.call(buf, 'utf8', start + (buf[start + 1] === 0x20 ? 2 : 1), end);
      return;
    }
    if (c0 === 0x64 /* d */ && startsWith(buf, start, end, 'data:')) {
      const from = start + (buf[start + 5] === 0x20 ? 6 : 5);
      // Keep the line ending, as bytes.Buffer.Write(line[6:]) does.
      const part = bufToString.call(buf, 'utf8', from, end + 1);
      this.data = this.hasData ? this.data + part : part;
      this.hasData = true;
      return;
    }
    if (c0 === 0x69 /* i */ && startsWith(buf, start, end, 'id:')) {
      this.id = bufToString.call(buf, 'utf8', start + (buf[start + 3] === 0x20 ? 4 : 3), end);
      return;
    }
    if (c0 === 0x65 /* e */ && startsWith(buf, start, end, 'event:')) {
      this.name = bufToString.call(buf, 'utf8', start + (buf[start + 6] === 0x20 ? 7 : 6), end);
      return;
    }
    if (c0 === 0x72 /* r */ && startsWith(buf, start, end, 'retry:')) return;
    this.sink.error('unknown event: ' + bufToString.call(buf, 'utf8', start, end + 1));
  }

  private dispatch(): void {
    let data = '';
    if (this.hasData) {
      data = this.data;
      let e = data.length;
      while (e > 0) {
        const c = data.charCodeAt(e - 1);
        if (c !== LF && c !== CR) break;
        e--;
      }
      if (e !== data.length) data = data.slice(0, e);
    }
    const ev: SseEvent = { id: this.id, name: this.name, data, comment: this.comment };
    this.id = '';
    this.name = '';
    this.comment = '';
    this.data = '';
    this.hasData = false;
    this.sink.event(ev);
  }
}

function startsWith(buf: Buffer, start: number, end: number, prefix: string): boolean {
  if (end - start < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (buf[start + i] !== prefix.charCodeAt(i)) return false;
  return true;
}
