// Test helper: YAML validation for the deploy/ files without adding a dependency: js-yaml when it happens to be installed (eslint brings it), plus structural line checks that always run. Runs in Node (vitest).

import { createRequire } from 'node:module';

interface YamlParser {
  loadAll(text: string): unknown[];
}

/** js-yaml if resolvable from here (a transitive dev dependency today), else null: callers fall back to line checks. */
export function optionalYamlParser(): YamlParser | null {
  try {
    const mod = createRequire(import.meta.url)('js-yaml') as Partial<YamlParser>;
    return typeof mod.loadAll === 'function' ? (mod as YamlParser) : null;
  } catch {
    return null;
  }
}

/**
 * Line-level YAML sanity: no tabs in indentation, even indentation, every non-comment, non-continuation
 * line is a mapping entry, a list item or a document marker, and block scalars (`|`, `>`) are indented
 * deeper than their key. Returns the problems found, empty when none.
 */
export function yamlLineProblems(text: string): string[] {
  const problems: string[] = [];
  const lines = text.split('\n');
  let blockIndent: number | null = null;
  let flowDepth = 0;
  lines.forEach((line, i) => {
    const n = i + 1;
    if (line.trim() === '') return;
    const indent = line.length - line.trimStart().length;
    if (/^\t| \t/.test(line.slice(0, indent + 1))) problems.push(`line ${n}: tab in indentation`);
    if (blockIndent !== null) {
      if (indent > blockIndent) return;
      blockIndent = null;
    }
    const body = line.trim();
    if (body.startsWith('#')) return;
    if (flowDepth > 0) {
      flowDepth += (body.match(/[[{]/g) ?? []).length - (body.match(/[\]}]/g) ?? []).length;
      return;
    }
    if (indent % 2 !== 0) problems.push(`line ${n}: odd indentation (${indent})`);
    const isDoc = body === '---' || body === '...';
    const isItem = body.startsWith('- ') || body === '-';
    const isKey = /^(?:- )?(?:"[^"]*"|'[^']*'|[^\s#'"][^:#]*?):(?:\s|$)/.test(body);
    if (!isDoc && !isItem && !isKey) problems.push(`line ${n}: neither a key, a list item nor a document marker: ${body}`);
    // A block scalar after a key (`run: |`) or as a list item (`- >`): its lines are free text.
    if (/(?:^-|:)\s*[|>][-+]?\d?\s*(?:#.*)?$/.test(body)) blockIndent = indent;
    const opened = (body.match(/[[{]/g) ?? []).length - (body.match(/[\]}]/g) ?? []).length;
    if (opened > 0 && !/["']/.test(body)) flowDepth = opened;
  });
  return problems;
}
