// Fails when a tracked Go file has a line over 140 characters, the limit max-len holds TypeScript to. Runs in Node (vitest).
//
// ESLint does not read Go and gofmt does not wrap, so this is the Go side of the same rule. A tab counts as one
// character here (gofmt indents with tabs; editors show them wider), so the limit is on characters, not columns.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');
const MAX_LINE = 140;

/** Every line of the tracked Go files longer than MAX_LINE, as "file:line (n characters)". */
function longGoLines(): string[] {
  const files = execFileSync('git', ['ls-files', '*.go'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter((f) => f !== '');
  return files.flatMap((file) =>
    readFileSync(join(ROOT, file), 'utf8').split('\n')
      .map((line, i) => ({ line: i + 1, length: [...line].length }))
      .filter((l) => l.length > MAX_LINE)
      .map((l) => `${file}:${l.line} (${l.length} characters)`),
  );
}

describe('line length', () => {
  it('keeps every tracked Go line at 140 characters or fewer', () => {
    expect(longGoLines()).toEqual([]);
  });
});
