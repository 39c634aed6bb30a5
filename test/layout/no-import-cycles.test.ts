// Fails when the TypeScript sources import each other in a circle, type-only imports included. Runs in Node (vitest).
//
// A circle makes a module impossible to read or test on its own and hides which of two modules is the
// lower layer; DESIGN.md's imports go one way. The graph is read with the TypeScript compiler's own
// parser (no bundler, no resolution plugins): every relative import and `export ... from` of a .ts file.

import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');
const SOURCE_FOLDERS = [
  'lib', 'scenarios', 'thresholds', 'scripts', 'orchestrator', 'report', 'sim', 'tokenizer', 'bench', 'deploy', 'node',
];

/** Every .ts file under a folder, as paths relative to the repository root. */
function tsFilesUnder(folder: string): string[] {
  const dir = join(ROOT, folder);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(join(ROOT, path)).isDirectory()) return name === 'node_modules' ? [] : tsFilesUnder(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The module specifiers a file imports or re-exports, type-only ones included. */
function importSpecifiers(path: string): string[] {
  const source = ts.createSourceFile(path, readFileSync(join(ROOT, path), 'utf8'), ts.ScriptTarget.Latest, false);
  const specifiers: string[] = [];
  for (const statement of source.statements) {
    const isImportOrReexport = ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement);
    const specifier = isImportOrReexport ? statement.moduleSpecifier : undefined;
    if (specifier && ts.isStringLiteral(specifier)) specifiers.push(specifier.text);
  }
  return specifiers;
}

/** A relative specifier as a repository path ('./plan' -> 'lib/plan.ts'); null for packages and Node built-ins. */
function resolveSpecifier(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = join(dirname(from), specifier);
  const candidates = [base, `${base}.ts`, base.replace(/\.js$/, '.ts'), join(base, 'index.ts')];
  const found = candidates.find((c) => c.endsWith('.ts') && existsSync(join(ROOT, c)));
  return found ? relative(ROOT, join(ROOT, found)) : null;
}

/** The import graph: each file to the repository files it imports. */
function importGraph(files: readonly string[]): Map<string, string[]> {
  return new Map(
    files.map((file) => [file, importSpecifiers(file).map((s) => resolveSpecifier(file, s)).filter((p): p is string => p !== null)]),
  );
}

/** Every circle in the graph, each once, as the files around it ('a.ts -> b.ts -> a.ts'); depth-first search with a path stack. */
function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const cycles = new Set<string>();
  const done = new Set<string>();
  const onPath: string[] = [];
  const visit = (file: string): void => {
    const at = onPath.indexOf(file);
    if (at >= 0) {
      cycles.add(canonicalCycle(onPath.slice(at)));
      return;
    }
    if (done.has(file)) return;
    onPath.push(file);
    for (const next of graph.get(file) ?? []) visit(next);
    onPath.pop();
    done.add(file);
  };
  for (const file of [...graph.keys()].sort()) visit(file);
  return [...cycles].sort();
}

/** A circle written from its alphabetically first file, so the same circle found twice reads the same. */
function canonicalCycle(files: readonly string[]): string {
  const start = files.indexOf([...files].sort()[0]!);
  const rotated = [...files.slice(start), ...files.slice(0, start)];
  return [...rotated, rotated[0]].join(' -> ');
}

describe('import graph', () => {
  it('finds a circle when there is one (the detector itself)', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(findCycles(graph)).toEqual(['a.ts -> b.ts -> c.ts -> a.ts']);
    expect(findCycles(new Map([['a.ts', ['b.ts']], ['b.ts', []]]))).toEqual([]);
  });

  it('has no circle in the sources', () => {
    const files = SOURCE_FOLDERS.flatMap(tsFilesUnder);
    expect(files.length).toBeGreaterThan(50);
    expect(findCycles(importGraph(files))).toEqual([]);
  });
});
