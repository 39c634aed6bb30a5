// The README stays true to the code. Runs in Node (vitest).
// Every environment variable and npm script it names exists, every one the scripts read is documented, its metric
// table lists the metric table's metrics, and the plan defaults it gives are the code's.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENV_VARS } from '../lib/env';
import { ARRIVAL_METRICS, CLIENT_METRICS, EMBED_METRICS, REQUEST_METRICS } from '../lib/metrics';
import { SERVER_METRICS } from '../lib/server-metrics';
import { resolvePlan } from '../lib/plan';
import { PLAN_DEFAULTS } from '../lib/plan-defaults';

const root = path.resolve(import.meta.dirname, '..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const scripts = Object.keys(
  (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts,
);

describe('README.md', () => {
  it('documents every environment variable the k6 scripts read', () => {
    for (const name of Object.keys(ENV_VARS)) expect(readme, name).toContain(`| \`${name}\` | ${ENV_VARS[name]} |`);
  });

  it('lists every request, client and open-loop metric in its metric table, and the server\'s as llm_server_*', () => {
    const lines = readme.slice(readme.indexOf('| metric (k6 name) |')).split('\n');
    const table = lines.slice(0, lines.findIndex((l) => !l.startsWith('|'))).join('\n');
    for (const def of Object.values({ ...REQUEST_METRICS, ...CLIENT_METRICS, ...ARRIVAL_METRICS, ...EMBED_METRICS }))
      expect(table, def.name).toContain(`\`${def.name}\``);
    expect(Object.values(SERVER_METRICS).every((def) => def.name.startsWith('llm_server_'))).toBe(true);
    expect(table).toContain('`llm_server_*`');
  });

  it('names only npm scripts that exist', () => {
    const named = [...readme.matchAll(/npm run ([a-z0-9:-]+)/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(5);
    for (const name of new Set(named)) expect(scripts, `npm run ${name}`).toContain(name);
  });

  it('gives the plan defaults that lib/plan-defaults.ts holds', () => {
    const capacity = [...readme.matchAll(/`capacity\.([a-zA-Z]+)` (\d+)/g)];
    expect(capacity.length).toBeGreaterThan(5);
    for (const [, field, value] of capacity)
      expect(PLAN_DEFAULTS.capacity[field as keyof typeof PLAN_DEFAULTS.capacity], `capacity.${field}`).toBe(
        Number(value),
      );
    const timeouts = [...readme.matchAll(/`([a-zA-Z]+TimeoutSeconds)` (\d+)/g)];
    expect(timeouts).toHaveLength(4);
    for (const [, field, value] of timeouts)
      expect(PLAN_DEFAULTS.target[field as keyof typeof PLAN_DEFAULTS.target], `target.${field}`).toBe(Number(value));
  });

  it('shows the error a plan with an unknown field gets', () => {
    const shown = /naming it \(`(plan field "sweep\.concurency"[^`]*)`\)/.exec(readme.replace(/\s+/g, ' '))?.[1];
    expect(shown).toBeDefined();
    expect(() => resolvePlan({ sweep: { concurency: [1] } }, 'sweep')).toThrow(shown);
  });

  it('shows the two one-line commands', () => {
    expect(readme).toContain('npm ci && npm run bench');
    expect(readme).toContain('npm ci && npm test');
  });
});
