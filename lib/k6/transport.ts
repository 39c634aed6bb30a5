// One streaming request over k6/x/sse, observed into a RequestRecord. Runs in k6 (bundled).

import sse from 'k6/x/sse';
import { StreamObserver, type StreamRequestInfo } from '../stream';
import type { HttpRequestSpec } from '../request';
import type { RequestRecord } from '../record';
import { nowMs } from './clock';

/**
 * Sends the request and observes its stream. Awaited even though k6's sse.open blocks and returns
 * the response directly: on the local runner it returns a promise. Handlers never throw: an
 * exception in a handler would propagate out of sse.open and end the iteration without a record.
 */
export async function streamRequest(spec: HttpRequestSpec, info: Omit<StreamRequestInfo, 'startMs'>, timeoutSeconds: number, name: string): Promise<RequestRecord> {
  const startMs = nowMs();
  const observer = new StreamObserver({ ...info, startMs });
  let response: { status: number; error: string } | undefined;
  let thrown = '';
  try {
    response = await sse.open(
      spec.url,
      { method: 'POST', body: spec.body, headers: spec.headers, timeout: `${timeoutSeconds}s`, tags: { name } },
      (client) => {
        client.on('event', (event) => {
          observer.onEvent(event.data, nowMs());
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
}
