// The trace:check command line run as a child process: the samples (exit 0), bad rows (exit 3 unless
// --skip-bad-rows), unusable files and bad flags (one line on stderr, exit 3 or 2, no stack trace).
// Runs in Node (vitest).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../lib/exit-codes';

const ROOT = resolve(__dirname, '../..');
const TMP = mkdtempSync(join(tmpdir(), 'trace-check-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

function run(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/trace-check.ts', ...args],
    { cwd: ROOT, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function file(name: string, text: string): string {
  const path = join(TMP, name);
  writeFileSync(path, text);
  return path;
}

/** One line on stderr, prefixed with the command, and no stack trace. */
function expectOneLine(stderr: string): string {
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^trace-check: /);
  expect(stderr).not.toMatch(/\n\s+at /);
  return lines[0]!;
}

describe('scripts/trace-check.ts', () => {
  it.each([
    ['mooncake.jsonl', 'mooncake', 'prompt tokens in shared blocks'],
    ['azure.csv', 'azure', 'gap CV'],
    ['burstgpt.csv', 'burstgpt', 'rows by Model: ChatGPT'],
    ['bailian.jsonl', 'bailian', 'conversations (turns mean/max)'],
  ])('%s: format, findings and stats, exit 0', (name, format, expected) => {
    const r = run(`examples/traces/${name}`);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(EXIT.ok);
    expect(r.stdout).toContain(`format: ${format} (detected)`);
    expect(r.stdout).toContain(expected);
    expect(r.stdout).toMatch(/^rows\s+\d+$/m);
  });

  it('with a selection, prints what it kept and a second column', () => {
    const r = run('examples/traces/bailian.jsonl', '--start', '10', '--duration', '30', '--speed', '2',
      '--max-requests', '10');
    expect(r.status).toBe(EXIT.ok);
    expect(r.stdout).toMatch(
      /^selection \(start 10 s, for 30 s, speed 2x, at most 10 requests\): \d+ rows in the window, \d+ turns dropped/m,
    );
    expect(r.stdout).toMatch(/^\s+trace\s+selection$/m);
    expect(r.stdout).toMatch(/^rows\s+36\s+10$/m);
  });

  it('a file with bad rows: lists them, then one line and exit 3; --skip-bad-rows exits 0', () => {
    const bad = file('bad.jsonl', [
      '{"timestamp": 0, "input_length": 10, "output_length": 5}',
      '{"timestamp": 1, "input_length": 0, "output_length": 5}',
      'not json',
      '{"timestamp": 2, "input_length": -3, "output_length": 5}',
    ].join('\n'));
    const r = run(bad);
    expect(r.status).toBe(EXIT.badInput);
    expect(r.stdout).toContain('bad rows: 3, skipped');
    expect(r.stdout).toContain('  2 rows (first: line 2): input_length is not a whole number >= 1');
    expect(r.stdout).toContain('  1 row (line 3): is not JSON');
    expect(expectOneLine(r.stderr))
      .toBe(`trace-check: 3 bad rows in ${bad} (listed above); fix them or pass --skip-bad-rows`);
    const skip = run(bad, '--skip-bad-rows');
    expect(skip.status).toBe(EXIT.ok);
    expect(skip.stderr).toBe('');
  });

  it.each([
    ['empty.csv', '', 'the trace is empty'],
    ['unknown.txt', 'hello, world\n', 'unknown trace format'],
    ['useless.jsonl', '{"timestamp": 0, "input_length": 0, "output_length": 1}\n',
      'no row of the mooncake trace is usable'],
    ['header.csv', 'TIMESTAMP,ContextTokens\n', 'the Azure header has no "GeneratedTokens" column'],
  ])('%s: one line, exit 3', (name, text, message) => {
    const r = run(file(name, text), ...(name === 'header.csv' ? ['--format', 'azure'] : []));
    expect(r.status).toBe(EXIT.badInput);
    expect(expectOneLine(r.stderr)).toContain(message);
  });

  it('a missing file: one line, exit 3', () => {
    const r = run(join(TMP, 'nope.csv'));
    expect(r.status).toBe(EXIT.badInput);
    expect(expectOneLine(r.stderr)).toContain('no such file');
  });

  it('bad flags: one line, exit 2', () => {
    const cases = [['--speed', '0'], ['--speed', 'fast'], ['--start', '-1'], ['--duration', '0'],
      ['--max-requests', '1.5'], ['--format', 'sharegpt'], ['--bogus'], []];
    for (const args of cases) {
      const r = run(...(args.length === 0 ? [] : ['examples/traces/azure.csv', ...args]));
      expect(r.status, args.join(' ')).toBe(EXIT.usage);
      expectOneLine(r.stderr);
    }
  });
});
