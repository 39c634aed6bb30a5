// The text a sample carries besides its value: the error message in its metadata, and a copy of a string that keeps
// no parser's buffer alive. Used by the per-cell accumulators whichever reader fills them. Runs in Node.

import { SAMPLE_METADATA } from '../lib/metrics';

const MESSAGE_PREFIX = `${SAMPLE_METADATA.errorMessage}=`;

/**
 * The error message in k6's metadata column ("k=v&k=v", values unescaped, in no stable order). The
 * suite sets error_message as the only key of an llm_errors sample, so everything after "error_message=" is the
 * message (it may itself contain "&" and "="); null when absent.
 */
export function parseErrorMessage(metadata: string): string | null {
  if (metadata.startsWith(MESSAGE_PREFIX)) return metadata.slice(MESSAGE_PREFIX.length);
  const at = metadata.indexOf(`&${MESSAGE_PREFIX}`);
  return at < 0 ? null : metadata.slice(at + 1 + MESSAGE_PREFIX.length);
}

/**
 * A standalone copy of a string. Fields from papaparse are slices of the 64 KB chunk they came
 * from; keeping a slice (in a cache or a map key) would keep the whole chunk alive, so memory
 * would grow with the file instead of staying bounded.
 */
export function detach(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8');
}
