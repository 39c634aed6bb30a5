// Test helper: splits raw SSE text into what k6/x/sse hands a script, and replays it into a StreamObserver. Runs in Node (vitest).
//
// The splitting follows xk6-sse's reader (phymbert/xk6-sse sse.go, readEvents; docs/k6-observed.md,
// "k6/x/sse"): lines are read up to "\n"; a blank line ("\n", or "\r\n" with CRLF) dispatches the
// event collected so far, even when it holds only a comment (so ": keep-alive" arrives as an event
// with empty data); data lines are concatenated with their line ends and only the data is trimmed of
// trailing CR/LF (so several data lines are joined with "\n"); id, event name and comment keep a
// trailing "\r" under CRLF; "retry:" is ignored; any other line fires an error
// "unknown event: <line>" (the line as read, ending "\n"); an unterminated last line, and an event
// not yet dispatched when the body ends, are dropped.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { StreamObserver, type StreamEnd, type StreamRequestInfo } from '../../../lib/stream';
import type { RequestRecord } from '../../../lib/record';

export interface SseEvent {
  readonly id: string;
  readonly name: string;
  readonly comment: string;
  readonly data: string;
}

/** What the transport delivers, in order: an 'event' or an 'error' (its message). */
export type Delivery = { readonly type: 'event'; readonly event: SseEvent } | { readonly type: 'error'; readonly message: string };

export function splitSse(raw: string): Delivery[] {
  const out: Delivery[] = [];
  let id = '';
  let name = '';
  let comment = '';
  let data = '';
  let at = 0;
  for (;;) {
    const nl = raw.indexOf('\n', at);
    if (nl < 0) break; // EOF: an unterminated last line (and any undispatched event) is dropped
    const line = raw.slice(at, nl + 1);
    at = nl + 1;
    const strip = (n: number): string => line.slice(n, line.length - 1);
    if (line.startsWith('id: ')) id = strip(4);
    else if (line.startsWith('id:')) id = strip(3);
    else if (line.startsWith(': ')) comment = strip(2);
    else if (line.startsWith(':')) comment = strip(1);
    else if (line.startsWith('event: ')) name = strip(7);
    else if (line.startsWith('event:')) name = strip(6);
    else if (line.startsWith('data: ')) data += line.slice(6);
    else if (line.startsWith('data:')) data += line.slice(5);
    else if (line.startsWith('retry:')) {
      // ignored, as xk6-sse does
    } else if (line === '\n' || line === '\r\n') {
      out.push({ type: 'event', event: { id, name, comment, data: data.replace(/[\r\n]+$/, '') } });
      id = '';
      name = '';
      comment = '';
      data = '';
    } else {
      out.push({ type: 'error', message: `unknown event: ${line}` });
    }
  }
  return out;
}

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

/**
 * Reads a fixture: leading lines starting with "#" say where the shape comes from and are not part
 * of the stream; the rest of the file is the raw response body, byte for byte.
 */
export function readFixture(name: string): string {
  const text = readFileSync(path.join(FIXTURES, name), 'utf8');
  let at = 0;
  while (text.startsWith('#', at)) {
    const nl = text.indexOf('\n', at);
    at = nl < 0 ? text.length : nl + 1;
  }
  return text.slice(at);
}

export interface Replay {
  readonly record: RequestRecord;
  readonly deliveries: readonly Delivery[];
}

/**
 * Feeds a raw body to a StreamObserver as k6/x/sse would: one arrival time (ms on the run clock) per
 * delivery, in order; then finishes with the response status, transport error and end time.
 */
export function replay(raw: string, timesMs: readonly number[], info: StreamRequestInfo, end: StreamEnd): Replay {
  const deliveries = splitSse(raw);
  if (timesMs.length !== deliveries.length) {
    throw new Error(`replay: ${deliveries.length} deliveries but ${timesMs.length} times`);
  }
  const observer = new StreamObserver(info);
  deliveries.forEach((d, i) => {
    if (d.type === 'event') observer.onEvent(d.event.data, timesMs[i]!);
    else observer.onTransportError(d.message);
  });
  return { record: observer.finish(end), deliveries };
}
