// Reads an HTTP request's body up to a size limit: the simulator's API and the bench's control endpoint. Runs in Node.
//
// It lives in node/ (Node-only helpers that know neither the simulator nor the bench) so that the
// orchestrator does not reach into sim/ for general HTTP plumbing.

import type { IncomingMessage } from 'node:http';

/** The body as text; rejects with `tooLarge()` (and drops the connection) past maxBytes. */
export function readRequestBody(req: IncomingMessage, maxBytes: number, tooLarge: () => Error): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > maxBytes) {
        reject(tooLarge());
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
