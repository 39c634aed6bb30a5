// Tests when a bundle counts as current (node/build-inputs.ts): built after every source it lists, and recorded by
// the last build. Real files in a temporary folder, their times set. Runs in Node (vitest).
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bundlesCurrent, inputsOf, writeBuildInputs } from '../../node/build-inputs';

let root = '';
let out = '';

/** Writes a file whose modification time is `at` seconds after 2026-01-01. */
function fileAt(file: string, at: number): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, 'x');
  const t = Date.UTC(2026, 0, 1) / 1000 + at;
  utimesSync(file, t, t);
}

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'build-inputs-'));
  out = path.join(root, 'dist-node');
  fileAt(path.join(root, 'scripts', 'a.ts'), 10);
  fileAt(path.join(root, 'lib', 'b.ts'), 20);
  fileAt(path.join(out, 'a.mjs'), 30);
  writeBuildInputs(out, { 'a.mjs': ['scripts/a.ts', 'lib/b.ts'] });
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('bundlesCurrent', () => {
  it('holds while the bundle is newer than every source it lists', () => {
    expect(bundlesCurrent(out, ['a.mjs'], root)).toBe(true);
  });

  it('fails once a source is edited after the build, or is gone', () => {
    fileAt(path.join(root, 'lib', 'b.ts'), 31);
    expect(bundlesCurrent(out, ['a.mjs'], root)).toBe(false);
    fileAt(path.join(root, 'lib', 'b.ts'), 20);
    rmSync(path.join(root, 'scripts', 'a.ts'));
    expect(bundlesCurrent(out, ['a.mjs'], root)).toBe(false);
  });

  it('fails for a bundle the last build did not record, a missing bundle, or no record at all', () => {
    fileAt(path.join(out, 'c.mjs'), 40);
    expect(bundlesCurrent(out, ['a.mjs', 'c.mjs'], root)).toBe(false);
    rmSync(path.join(out, 'a.mjs'));
    expect(bundlesCurrent(out, ['a.mjs'], root)).toBe(false);
    fileAt(path.join(out, 'a.mjs'), 30);
    rmSync(path.join(out, 'inputs.json'));
    expect(bundlesCurrent(out, ['a.mjs'], root)).toBe(false);
  });
});

describe('inputsOf', () => {
  it("keys each output (not its map) by its path in the output folder, with the repository's sources only", () => {
    const metafile = {
      outputs: {
        'dist-node/.build-x/a.mjs': {
          inputs: { 'scripts/a.ts': {}, 'node_modules/commander/index.js': {}, 'lib/b.ts': {} },
        },
        'dist-node/.build-x/a.mjs.map': { inputs: {} },
      },
    };
    expect(inputsOf(metafile, path.join(root, 'dist-node', '.build-x'), root))
      .toEqual({ 'a.mjs': ['lib/b.ts', 'scripts/a.ts'] });
  });
});
