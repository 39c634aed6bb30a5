// Keeps report/ in rooms a reader can take in: no module over 400 lines, every function under 60. Runs in Node
// (vitest).
//
// report/ is where most of the suite's wording and arithmetic lives; issue 24 split it into one
// module per report part and long functions into named steps, and this keeps it that way.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../..');
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 59;

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * Every function, method and arrow function of a file that spans more than `max` lines, as "file:line name (n lines)".
 */
function longFunctions(path: string, max: number): string[] {
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const lineOf = (position: number): number => source.getLineAndCharacterOfPosition(position).line + 1;
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const lines = lineOf(node.getEnd()) - lineOf(node.getStart()) + 1;
      const name =
        node.name?.getText(source) ??
        (ts.isVariableDeclaration(node.parent) ? node.parent.name.getText(source) : '(anonymous)');
      if (lines > max) found.push(`${relative(ROOT, path)}:${lineOf(node.getStart())} ${name} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('report/ size', () => {
  const files = tsFiles(join(ROOT, 'report'));

  it(`has no module over ${MAX_FILE_LINES} lines`, () => {
    const lineCount = (path: string): number => readFileSync(path, 'utf8').split('\n').length;
    expect(files.filter((path) => lineCount(path) > MAX_FILE_LINES).map((path) => relative(ROOT, path))).toEqual([]);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines`, () => {
    expect(files.flatMap((path) => longFunctions(path, MAX_FUNCTION_LINES))).toEqual([]);
  });
});
