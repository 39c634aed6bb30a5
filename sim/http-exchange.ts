// The HTTP exchange of one simulator request below its API: the body read within a size limit, the headers the
// simulator reads (faults, request id), JSON answers and the json-error fault. Runs in Node.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { readRequestBody } from '../node/request-body';
import { FAULT_HEADER, parseFaultSpec, type Fault } from './faults';
import { ApiError } from './api-error';

const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** The faults a request's x-sim-fault header asks for; a bad spec is the client's error (400). */
export function headerFaults(req: IncomingMessage): Fault[] {
  const spec = req.headers[FAULT_HEADER];
  if (typeof spec !== 'string') return [];
  try {
    return parseFaultSpec(spec);
  } catch (e) {
    throw new ApiError(400, `${FAULT_HEADER}: ${(e as Error).message}`);
  }
}

/** The client's x-request-id, if it sent a non-empty one. */
export function clientRequestId(req: IncomingMessage): string | null {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && given !== '' ? given : null;
}

/** A JSON answer with its status. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** The json-error fault: a 200 whose body is an error. */
export function sendJsonErrorFault(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({
    error: {
      message: 'Injected fault: json-error (model overloaded)', type: 'ServiceUnavailableError', param: null,
      code: 503,
    },
  }));
}

/** The request body as text; one larger than MAX_BODY_BYTES is the client's error (413). */
export function readBody(req: IncomingMessage): Promise<string> {
  const tooLarge = () => new ApiError(413, `Request body larger than ${MAX_BODY_BYTES} bytes.`);
  return readRequestBody(req, MAX_BODY_BYTES, tooLarge);
}
