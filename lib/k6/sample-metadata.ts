// Metadata on the samples a push adds: k6's exec.vu.metrics.metadata, carried by each sample into the CSV `metadata`
// column and the JSON output, never a tag (so never a Prometheus label). Runs in k6.

import exec from 'k6/execution';

/**
 * Runs `push` with the VU's metadata `key` set to `value` (left as it is when value is null or empty), then puts back
 * what was there. The push is synchronous, so no other sample of the VU can pick the value up meanwhile.
 */
export function withSampleMetadata(key: string, value: string | null | undefined, push: () => void): void {
  if (value === null || value === undefined || value === '') {
    push();
    return;
  }
  const metadata = exec.vu.metrics.metadata;
  const saved = metadata[key];
  metadata[key] = value;
  try {
    push();
  } finally {
    if (saved === undefined) delete metadata[key];
    else metadata[key] = saved;
  }
}
