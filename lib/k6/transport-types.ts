// The transport seam's one signature, implemented by transport-llm.ts (k6/x/llm) and transport-sse.ts (k6/x/sse). Runs in k6 (bundled).
//
// scenarios/ import the seam as 'k6-llm-transport'; scripts/build.ts points it at one of the two
// files per bundle flavour (dist/ -> k6/x/llm, dist/sse/ -> k6/x/sse), so a bundle imports exactly
// one extension and k6's automatic extension resolution sees only that one.

import type { HttpRequestSpec } from '../request';
import type { RequestRecord } from '../record';
import type { StreamRequestInfo } from '../stream';

export interface TransportLimits {
  readonly requestTimeoutSeconds: number;
  readonly connectTimeoutSeconds: number;
  readonly firstByteTimeoutSeconds: number;
  readonly idleTimeoutSeconds: number;
}

/** Sends one streaming request and observes it into a RequestRecord; never throws for a failing server. */
export type StreamRequest = (spec: HttpRequestSpec, info: Omit<StreamRequestInfo, 'startMs'>, limits: TransportLimits, name: string) => Promise<RequestRecord>;

/** Which extension the bundle was built for. */
export type TransportName = 'llm' | 'sse';
