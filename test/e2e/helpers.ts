// Helpers for end-to-end tests: run a built bundle through the local runner against a simulator, the way `npm run bench` does. Runs in Node (vitest).

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Papa from 'papaparse';
import { localRunner, runArguments } from '../../orchestrator/engine';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');

export interface RunResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly dir: string;
}

export function tempDir(prefix: string): string {
  return mkdtempSync(path.join(tmpdir(), `k6llm-${prefix}-`));
}

/** Runs dist/<script>.js on the local runner with a plan, as the bench does; resolves when the runner exits. */
export function runScript(script: string, plan: object, env: Record<string, string>, extraEnv: Record<string, string> = {}): Promise<RunResult> {
  const dir = tempDir(script);
  const planFile = path.join(dir, 'plan-input.json');
  writeFileSync(planFile, JSON.stringify(plan));
  const engine = localRunner();
  const args = runArguments(engine, { bundle: path.join(ROOT, 'dist', `${script}.js`), partDir: dir, env: { PLAN: planFile, RESULTS_DIR: dir, ...env }, tags: { testid: 'e2e' } });
  const [program, ...lead] = engine.command;
  return new Promise((resolve, reject) => {
    const child = spawn(program!, [...lead, ...args], { cwd: ROOT, env: { ...process.env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ exitCode: code ?? -1, stdout, stderr, dir }));
  });
}

export function readJson<T = unknown>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

export interface CsvRow {
  readonly [column: string]: string;
}

export function readCsv(file: string): { header: string[]; rows: CsvRow[] } {
  const parsed = Papa.parse<CsvRow>(readFileSync(file, 'utf8'), { header: true, skipEmptyLines: true });
  return { header: parsed.meta.fields ?? [], rows: parsed.data };
}

/** extra_tags "k=v&k=v" (no stable order in k6) as an object. */
export function extraTags(row: CsvRow): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (row.extra_tags ?? '').split('&')) {
    if (!pair) continue;
    const at = pair.indexOf('=');
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}
