// The README and docs/ stay true to the code. Runs in Node (vitest).
// Every environment variable and npm script they name exists, every one the scripts read is documented (the CLI
// reference), the metric reference lists the metric table's metrics, and the plan defaults the plan reference gives
// are the code's. The README stays a front door: at most 300 lines, the two commands on its first screen, and every
// relative link of the README and of docs/ leads to a file that exists.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENV_VARS } from '../lib/env';
import { ARRIVAL_METRICS, CLIENT_METRICS, EMBED_METRICS, REQUEST_METRICS } from '../lib/metrics';
import { SERVER_METRICS } from '../lib/server-metrics';
import { resolvePlan } from '../lib/plan';
import { PLAN_DEFAULTS } from '../lib/plan-defaults';

const root = path.resolve(import.meta.dirname, '..');
const read = (rel: string): string => readFileSync(path.join(root, rel), 'utf8');

/** Every markdown file under docs/, as paths relative to the repository root. */
function docPages(dir = 'docs'): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return docPages(rel);
    return entry.name.endsWith('.md') ? [rel] : [];
  });
}

const readme = read('README.md');
const pages = ['README.md', ...docPages()];
const cliReference = read('docs/reference/cli.md');
const metricReference = read('docs/reference/metrics.md');
const planReference = read('docs/reference/plan.md');
const scripts = Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts);

/** The relative link targets of a markdown page, outside code: `[text](target)` without a scheme or a bare #anchor. */
function relativeLinks(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('#'));
}

describe('README.md', () => {
  it('stays a front door of at most 300 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(300);
  });

  it('shows the two one-line commands and the example answer on its first screen', () => {
    const firstScreen = readme.split('\n').slice(0, 40).join('\n');
    expect(firstScreen).toContain('npm ci && npm run bench');
    expect(firstScreen).toContain('npm ci && npm test');
    // The quick tier beside it, and what the full one costs, before anything else.
    expect(firstScreen).toContain('npm run test:quick');
    expect(firstScreen).toMatch(/apt-get \(root/);
    expect(firstScreen).toMatch(/downloads about [\d.]+ GB/);
    expect(firstScreen).toContain('results/examples/sim-default-quick/report.md');
    expect(firstScreen).toMatch(/\| Code completion[^\n]*\| 18 /);
  });
});

describe('README.md and docs/', () => {
  it('link only to files that exist', () => {
    const broken = pages.flatMap((page) =>
      relativeLinks(read(page))
        .map((target) => decodeURI(target.split('#')[0]!))
        .filter((file) => !existsSync(path.resolve(root, path.dirname(page), file)))
        .map((file) => `${page} -> ${file}`),
    );
    expect(broken).toEqual([]);
  });

  it('name only npm scripts that exist', () => {
    const named = pages.flatMap((page) => [...read(page).matchAll(/npm run ([a-z0-9:-]+)/g)].map((m) => m[1]!));
    expect(named.length).toBeGreaterThan(5);
    for (const name of new Set(named)) expect(scripts, `npm run ${name}`).toContain(name);
  });
});

describe('docs/reference/cli.md', () => {
  it('documents every environment variable the k6 scripts read', () => {
    for (const name of Object.keys(ENV_VARS))
      expect(cliReference, name).toContain(`| \`${name}\` | ${ENV_VARS[name]} |`);
  });
});

describe('docs/reference/metrics.md', () => {
  it('lists every request, client and open-loop metric in its metric table, and the server\'s as llm_server_*', () => {
    const lines = metricReference.slice(metricReference.indexOf('| metric (k6 name) |')).split('\n');
    const table = lines.slice(0, lines.findIndex((l) => !l.startsWith('|'))).join('\n');
    for (const def of Object.values({ ...REQUEST_METRICS, ...CLIENT_METRICS, ...ARRIVAL_METRICS, ...EMBED_METRICS }))
      expect(table, def.name).toContain(`\`${def.name}\``);
    expect(Object.values(SERVER_METRICS).every((def) => def.name.startsWith('llm_server_'))).toBe(true);
    expect(table).toContain('`llm_server_*`');
  });
});

describe('docs/reference/plan.md', () => {
  it('gives the plan defaults that lib/plan-defaults.ts holds', () => {
    const capacity = [...planReference.matchAll(/`capacity\.([a-zA-Z]+)` (\d+)/g)];
    expect(capacity.length).toBeGreaterThan(5);
    for (const [, field, value] of capacity)
      expect(PLAN_DEFAULTS.capacity[field as keyof typeof PLAN_DEFAULTS.capacity], `capacity.${field}`).toBe(
        Number(value),
      );
    const timeouts = [...planReference.matchAll(/`([a-zA-Z]+TimeoutSeconds)` (\d+)/g)];
    expect(timeouts).toHaveLength(4);
    for (const [, field, value] of timeouts)
      expect(PLAN_DEFAULTS.target[field as keyof typeof PLAN_DEFAULTS.target], `target.${field}`).toBe(Number(value));
  });

  it('shows the error a plan with an unknown field gets', () => {
    const shown = /naming it \(`(plan field "sweep\.concurency"[^`]*)`\)/.exec(planReference.replace(/\s+/g, ' '))?.[1];
    expect(shown).toBeDefined();
    expect(() => resolvePlan({ sweep: { concurency: [1] } }, 'sweep')).toThrow(shown);
  });
});
