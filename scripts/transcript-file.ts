// A golden transcript of the Go tests (agent/transcript_test.go): one response recorded byte for byte, with how it
// ended, written to agent/testdata/transcripts/<name>.http. Runs in Node.

import { request } from 'node:http';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FAULT_HEADER } from '../sim/faults';

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'agent', 'testdata', 'transcripts');

export interface Recorded {
  status: number;
  contentType: string;
  reset: boolean;
  body: Buffer;
}

/** POSTs `body` as JSON and records the whole response; `fault` is the simulator's fault header ('' for none). */
export function send(base: string, endpoint: string, body: object, fault: string): Promise<Recorded> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${base}${endpoint}`);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (fault) headers[FAULT_HEADER] = fault;
    // A connection of its own: a kept-alive one the server has since closed (llama-server after a stream) hangs up.
    const req = request(url, { method: 'POST', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      let reset = false;
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('aborted', () => (reset = true));
      res.on('error', () => (reset = true));
      res.on('close', () =>
        resolve({
          status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''),
          reset: reset || !res.complete, body: Buffer.concat(chunks),
        }),
      );
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** Writes the transcript: comment lines, status, content type, how it ended (eof or reset), a blank line, the body. */
export function writeTranscript(name: string, header: readonly string[], r: Recorded): void {
  const head = [
    ...header.map((l) => `# ${l}`), `status: ${r.status}`, `content-type: ${r.contentType.split(';')[0]}`,
    `end: ${r.reset ? 'reset' : 'eof'}`, '',
  ].join('\n');
  writeFileSync(path.join(DIR, `${name}.http`), Buffer.concat([Buffer.from(head + '\n'), r.body]));
  process.stderr.write(`${name}: ${r.status}${r.reset ? ', reset' : ''}, ${r.body.length} bytes\n`);
}

