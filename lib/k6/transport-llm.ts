// One streaming request over the project's k6/x/llm (docs/k6-x-llm.md), observed into a RequestRecord. Runs in k6 (bundled).

import llm from 'k6/x/llm';
import { StreamObserver } from '../stream';
import type { StreamRequest, TransportName } from './transport-types';
import { nowMs } from './clock';

export const transportName: TransportName = 'llm';

/**
 * The extension reads and timestamps every event in Go (or in the runner's transport), so the
 * times below are when the bytes arrived, not when this callback ran. The request's start is the
 * transport's own stamp, taken just before it dials or reuses a connection.
 */
export const streamRequest: StreamRequest = async (spec, info, limits, name) => {
  const observer = new StreamObserver({ ...info, startMs: nowMs() });
  try {
    const result = await llm.stream(
      {
        url: spec.url,
        method: 'POST',
        headers: spec.headers,
        body: spec.body,
        timeout: limits.requestTimeoutSeconds,
        connectTimeout: limits.connectTimeoutSeconds,
        headerTimeout: limits.firstByteTimeoutSeconds,
        idleTimeout: limits.idleTimeoutSeconds,
        // JSON.parse is the script's heaviest per-token work in k6's JavaScript engine; the
        // extension decodes in Go on the reader goroutine instead (docs/k6-x-llm.md).
        parseJson: true,
        tags: { name },
      },
      (events) => {
        for (let i = 0; i < events.length; i++) {
          const e = events[i]!;
          if (e.json !== undefined) observer.onParsedEvent(e.data, e.time, e.name, e.json);
          else observer.onEvent(e.data, e.time, e.name);
        }
      },
    );
    return observer.finish({
      status: result.status,
      transportError: result.error,
      startMs: result.startTime > 0 ? result.startTime : undefined,
      endMs: result.endTime,
      errorCode: result.errorCode,
      body: result.body,
      firstInvalidLine: result.firstInvalidLine,
    });
  } catch (e) {
    // Only a misuse throws (docs/k6-x-llm.md); keep it as a failed request rather than end the VU.
    return observer.finish({ status: 0, transportError: e instanceof Error ? e.message : String(e), endMs: nowMs() });
  }
};
