// Tests for the k6 bundles built by orchestrator/bundles.ts. Runs in Node (vitest).
// They must be ES2020 modules that import only a stock k6's own modules (no k6/x/ extension) and use no syntax
// k6's engine (Sobek) lacks.
//
// Parsed with acorn (installed with eslint, through espree) at ecmaVersion 2020: anything newer
// (logical assignment, class fields, top-level await) fails to parse. Features inside ES2020 that
// Sobek still lacks (docs/design/k6-observed.md, "Scripts and bundles") are looked for in the syntax tree.

import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, type Node } from 'acorn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBundles, k6BundlesCurrent } from '../../orchestrator/bundles';

const SCENARIOS = readdirSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../scenarios'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.replace(/\.ts$/, ''))
  .sort();

/** Every node of a syntax tree, depth first. */
function* walk(node: unknown): Generator<Node & Record<string, unknown>> {
  if (Array.isArray(node)) {
    for (const child of node) yield* walk(child);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const n = node as Node & Record<string, unknown>;
  if (typeof n.type === 'string') yield n;
  for (const [key, value] of Object.entries(n)) {
    if (key !== 'loc' && typeof value === 'object') yield* walk(value);
  }
}

interface BundleFacts {
  imports: string[];
  exports: string[];
  problems: string[];
}

const NAMED_GROUP = /\(\?<(?![=!])/;

function inspect(code: string): BundleFacts {
  const program = parse(code, { ecmaVersion: 2020, sourceType: 'module' });
  const facts: BundleFacts = { imports: [], exports: [], problems: [] };
  for (const node of walk(program)) {
    switch (node.type) {
      case 'ImportDeclaration':
      case 'ExportAllDeclaration':
        facts.imports.push(String((node.source as { value: unknown }).value));
        break;
      case 'ExportNamedDeclaration': {
        if (node.source) facts.imports.push(String((node.source as { value: unknown }).value));
        for (const s of node.specifiers as { exported: { name?: string; value?: string } }[])
          facts.exports.push(s.exported.name ?? String(s.exported.value));
        const decl = node.declaration as { id?: { name: string }; declarations?: { id: { name: string } }[] } | null;
        if (decl?.id) facts.exports.push(decl.id.name);
        for (const d of decl?.declarations ?? []) facts.exports.push(d.id.name);
        break;
      }
      case 'ExportDefaultDeclaration':
        facts.exports.push('default');
        break;
      case 'ImportExpression':
        facts.problems.push('dynamic import()');
        break;
      case 'ForOfStatement':
        if (node.await) facts.problems.push('for await');
        break;
      case 'AssignmentExpression':
        if (['??=', '||=', '&&='].includes(String(node.operator)))
          facts.problems.push(`logical assignment ${String(node.operator)}`);
        break;
      case 'Literal': {
        const regex = node.regex as { pattern: string; flags: string } | undefined;
        if (regex && NAMED_GROUP.test(regex.pattern)) facts.problems.push(`regex named group /${regex.pattern}/`);
        break;
      }
      case 'NewExpression':
      case 'CallExpression': {
        const callee = node.callee as { type: string; name?: string };
        const first = (node.arguments as { type: string; value?: unknown }[])[0];
        if (
          callee.type === 'Identifier' &&
          callee.name === 'RegExp' &&
          first?.type === 'Literal' &&
          typeof first.value === 'string' &&
          NAMED_GROUP.test(first.value)
        ) {
          facts.problems.push(`regex named group RegExp("${first.value}")`);
        }
        break;
      }
      case 'MemberExpression': {
        const prop = node.property as { type: string; name?: string; value?: unknown };
        if (
          (prop.type === 'Identifier' && prop.name === 'replaceAll' && !node.computed) ||
          (prop.type === 'Literal' && prop.value === 'replaceAll')
        )
          facts.problems.push('replaceAll');
        break;
      }
    }
  }
  return facts;
}

describe('the inspector itself', () => {
  it('flags what k6 lacks', () => {
    const lacking = 's.replaceAll("a", "b"); s["replaceAll"]("a", "b"); /(?<y>\\d+)/.exec(s); new RegExp("(?<m>x)");';
    expect(inspect(lacking).problems).toEqual([
      'replaceAll',
      'replaceAll',
      'regex named group /(?<y>\\d+)/',
      'regex named group RegExp("(?<m>x)")',
    ]);
    expect(inspect('async function f() { for await (const x of y) {} await import("k6"); }').problems).toEqual([
      'for await', 'dynamic import()',
    ]);
    expect(inspect('/(?<=a)(?<!b)/; x.replace(/a/g, "b");').problems).toEqual([]);
    expect(() => inspect('a ??= 1;')).toThrow();
    expect(() => inspect('class A { x = 1 }')).toThrow();
    expect(inspect(
      'import http from "k6/http"; const a = 1, b = http; export { a as default, b }; ' +
        'export const c = 1; export function d() {}',
    )).toEqual({ imports: ['k6/http'], exports: ['default', 'b', 'c', 'd'], problems: [] });
  });
});

describe('k6 bundles (orchestrator/bundles.ts buildBundles)', () => {
  let outdir = '';
  let files: string[] = [];

  beforeAll(async () => {
    outdir = mkdtempSync(path.join(tmpdir(), 'k6-llm-bundles-'));
    files = await buildBundles(outdir);
  });

  afterAll(() => {
    if (outdir) rmSync(outdir, { recursive: true, force: true });
  });

  it('records what each bundle was built from, and leaves no staging folder behind', () => {
    expect(k6BundlesCurrent(outdir)).toBe(true);
    expect(readdirSync(outdir).filter((f) => f.startsWith('.build-'))).toEqual([]);
  });

  it('builds one bundle per entry script, dist/<name>.js, and the stream module alone, dist/llm.js', () => {
    expect(SCENARIOS.length).toBeGreaterThan(0);
    expect(files.map((f) => path.relative(outdir, f)).sort()).toEqual(
      [...SCENARIOS.map((n) => `${n}.js`), 'llm.js'].sort(),
    );
  });

  it.each(SCENARIOS)(
    '%s.js parses as an ES2020 module, imports only stock k6 modules, avoids what Sobek lacks, ' +
      'exports the k6 entry points',
    (name) => {
      const code = readFileSync(path.join(outdir, `${name}.js`), 'utf8');
      const facts = inspect(code);
      for (const source of facts.imports) expect(source).toMatch(/^k6(\/[a-z0-9/_-]+)?$/);
      expect(facts.imports.filter((s) => s.startsWith('k6/x/'))).toEqual([]);
      // The streams go through the measuring agent: one k6/http call per request.
      expect(facts.imports).toEqual(expect.arrayContaining(['k6/http', 'k6/execution', 'k6/metrics']));
      // Logical assignment (??=, ||=, &&=) would already have failed the ES2020 parse.
      expect(facts.problems).toEqual([]);
      expect(facts.exports).toEqual(
        expect.arrayContaining(['options', 'default', 'setup', 'monitor', 'handleSummary']),
      );
    },
  );

  it('llm.js, the stream module for users\' own scripts, imports only stock k6 modules and exports stream as ' +
    'default', () => {
    const facts = inspect(readFileSync(path.join(outdir, 'llm.js'), 'utf8'));
    expect([...new Set(facts.imports)].sort()).toEqual(['k6/execution', 'k6/http', 'k6/metrics']);
    expect(facts.problems).toEqual([]);
    expect(facts.exports).toEqual(expect.arrayContaining(['default', 'stream']));
    // A module, not a test: no k6 entry point of its own.
    expect(facts.exports).not.toContain('options');
  });
});
