// One streaming request over the community extension k6/x/sse (xk6-sse), observed into a RequestRecord. Runs in k6 (bundled to dist/sse/).
//
// For a stock k6 with xk6-sse: events are timestamped in JavaScript when the handler runs, there is
// only the whole-request timeout, and a connection reset mid-stream leaves sse.open hanging until
// that timeout (docs/k6-observed.md). dist/ (k6/x/llm) has none of these limits.

import sse from 'k6/x/sse';
import { StreamObserver } from '../stream';
import type { StreamRequest, TransportName } from './transport-types';
import { nowMs } from './clock';

export const transportName: TransportName = 'sse';

/**
 * Sends the request and observes its stream. Awaited even though k6's sse.open blocks and returns
 * the response directly: on the local runner it returns a promise. Handlers never throw: an
 * exception in a handler would propagate out of sse.open and end the iteration without a record.
 */
export const streamRequest: StreamRequest = async (spec, info, limits, name) => {
  const startMs = nowMs();
  const observer = new StreamObserver({ ...info, startMs });
  let response: { status: number; error: string } | undefined;
  let thrown = '';
  try {
    response = await sse.open(
      spec.url,
      { method: 'POST', body: spec.body, headers: spec.headers, timeout: `${limits.requestTimeoutSeconds}s`, tags: { name } },
      (client) => {
        client.on('event', (event) => {
          observer.onEvent(event.data, nowMs(), event.name.trim());
        });
        client.on('error', (e) => {
          let message = 'stream error';
          try {
            message = typeof e === 'object' && e !== null && typeof e.error === 'function' ? e.error() : String(e);
          } catch {
            // Keep the generic message: the handler must not throw.
          }
          observer.onTransportError(message);
        });
      },
    );
  } catch (e) {
    thrown = e instanceof Error ? e.message : String(e);
  }
  return observer.finish({ status: response?.status ?? 0, transportError: response?.error || thrown, endMs: nowMs() });
};
