// Holds a profile to its published points in virtual time (no HTTP, no timers): the table and verdict used to fit a
// profile.
// Runs in Node.
//
// Usage: npm run bench:sim-fit -- --profile E [--set hardware.t0Ms=3.1 --set powerMaxWatts=600] [--json FILE]
// Seconds per profile rather than the minutes of the HTTP bench (bench/sim-fidelity.ts), so parameters can be
// tried by hand; --set overrides a field of the built-in profile (a custom profile's JSON, as `npm run sim` takes).

import { writeFileSync } from 'node:fs';
import { resolveProfile, type Profile, type ProfileOverrides } from '../sim/profiles';
import {
  burstCapacity,
  maxSafeQueue,
  POINTS,
  PUBLISHED_CAPACITIES,
  predictFromBatch,
  steadyModel,
  virtualBurst,
  type Kind,
  type Point,
  type Target,
} from './fidelity-points';
import { median } from '../lib/percentile';

export interface FitRow {
  readonly label: string;
  readonly cls: Point['cls'];
  readonly kind: Kind;
  readonly published: number;
  readonly model: number;
  readonly errorPct: number;
  readonly bracketOnly: boolean;
  /** Burst and steady-state prediction of a TTFT or e2e under load: the published figure should lie between. */
  readonly steady?: number;
  readonly note: string;
}

/** Evaluates every published point of one profile in virtual time. */
export function fitRows(profile: Profile, points: readonly Point[]): FitRow[] {
  const rows: FitRow[] = [];
  for (const p of points) {
    const burst = p.targets.some((t) => t.kind !== 'max_queue') ? virtualBurst(profile, p) : null;
    for (const t of p.targets) rows.push(fitRow(profile, p, t, burst));
  }
  return rows;
}

function fitRow(profile: Profile, p: Point, t: Target, burst: ReturnType<typeof virtualBurst> | null): FitRow {
  const model = t.kind === 'max_queue' ? maxSafeQueue(profile, p, p.ttftLimitS ?? 3) : predictFromBatch(t.kind, burst!);
  const bracketOnly = t.bracketOnly === true;
  let steady: number | undefined;
  if (bracketOnly && t.kind === 'ttft_s') {
    const burstE2eMs = burst!.requests.reduce((s, r) => s + r.e2eMs, 0) / burst!.requests.length;
    steady = steadyModel(profile, p, t.kind, burstE2eMs);
  }
  return {
    label: p.label, cls: p.cls, kind: t.kind, published: t.published, model,
    errorPct: ((model - t.published) / t.published) * 100,
    bracketOnly, steady, note: [p.note, t.note].filter(Boolean).join('; '),
  };
}

/** Whether a bracketed figure lies between its burst and steady-state predictions. */
export function inBracket(r: FitRow): boolean {
  if (r.steady === undefined) return false;
  return r.published >= Math.min(r.model, r.steady) && r.published <= Math.max(r.model, r.steady);
}

/**
 * The fit targets (those of profile A): single-request figures within 5%; per-user speed, throughput and
 * queue depth under load median < 10% and none over 20%; TTFT (and e2e) under load inside the burst/steady
 * bracket; peak power within 5%.
 */
export function renderFitVerdict(letter: string, rows: readonly FitRow[]): string {
  const out: string[] = [];
  const singles = rows.filter((r) => r.cls === 'single' && !isPower(r.kind));
  if (singles.length) {
    const over = singles
      .filter((r) => Math.abs(r.errorPct) > 5)
      .map((r) => `${r.label} ${r.kind} ${signed(r.errorPct)}`);
    out.push(
      `${letter} single request: max |error| ${Math.max(...singles.map((r) => Math.abs(r.errorPct))).toFixed(1)}% ` +
      `(target <= 5%)${over.length ? `; over: ${over.join(', ')}` : ''}`,
    );
  }
  const loads = rows.filter((r) => r.cls === 'load' && !r.bracketOnly && !isPower(r.kind));
  if (loads.length) {
    const errs = loads.map((r) => Math.abs(r.errorPct));
    const over = loads
      .filter((r) => Math.abs(r.errorPct) > 20)
      .map((r) => `${r.label} ${r.kind} ${signed(r.errorPct)}`);
    out.push(
      `${letter} under load: median |error| ${median(errs).toFixed(1)}% (target < 10%), max ` +
      `${Math.max(...errs).toFixed(1)}% (target <= 20%)${over.length ? `; over 20%: ${over.join(', ')}` : ''}`,
    );
  }
  const bracketed = rows.filter((r) => r.steady !== undefined);
  if (bracketed.length) {
    const outside = bracketed.filter((r) => !inBracket(r)).map((r) => r.label);
    out.push(
      `${letter} TTFT/e2e under load: ${bracketed.length - outside.length} of ${bracketed.length} inside the ` +
      `burst/steady bracket${outside.length ? `; outside: ${outside.join(', ')}` : ''}`,
    );
  }
  for (const r of rows.filter((x) => isPower(x.kind)))
    out.push(
      `${letter} peak power ${r.label}: ${r.model.toFixed(0)} W vs ${r.published} W (${signed(r.errorPct)}; target 5%)`,
    );
  return out.join('\n');
}

function isPower(kind: Kind): boolean {
  return kind === 'power_w' || kind === 'mean_power_w';
}

function signed(pct: number): string {
  return `${pct >= 0 ? '+' : ''}${pct.toFixed(1)}%`;
}

export function renderFitTable(rows: readonly FitRow[]): string {
  const lines = [
    '| point | metric | published | model burst | model steady | error (burst) | note |',
    '|---|---|---:|---:|---:|---:|---|',
  ];
  for (const r of rows) {
    const mark = r.steady !== undefined ? (inBracket(r) ? ' (in bracket)' : ' (outside bracket)') : '';
    lines.push(
      `| ${r.label} | ${r.kind} | ${fmt(r.published)} | ${fmt(r.model)} | ` +
      `${r.steady === undefined ? '' : fmt(r.steady)} | ${signed(r.errorPct)}${mark} | ${r.note} |`,
    );
  }
  return lines.join('\n');
}

function fmt(v: number): string {
  return Math.abs(v) < 1 ? v.toFixed(3) : Math.abs(v) < 100 ? v.toFixed(2) : v.toFixed(1);
}

/** Use-case capacities, published vs one burst per step in virtual time (the reports' own method). */
export function renderCapacities(published: Readonly<Record<string, number>>, model: (id: string) => number): string {
  const lines = ['| use case | published capacity | model, burst per step |', '|---|---:|---:|'];
  for (const [id, n] of Object.entries(published)) lines.push(`| ${id} | ${n} | ${model(id)} |`);
  return lines.join('\n');
}

/** Parses --set a.b=value pairs into profile overrides on top of the built-in profile. */
export function overridesFrom(base: string, sets: readonly string[]): ProfileOverrides {
  const o: Record<string, unknown> = { base, name: `fit-${base}` };
  for (const s of sets) {
    const m = /^([A-Za-z][A-Za-z0-9]*)(?:\.([A-Za-z][A-Za-z0-9]*))?=(.+)$/.exec(s);
    if (!m) throw new Error(`--set ${s}: expected field=value or hardware.field=value`);
    const value = Number.isNaN(Number(m[3])) ? m[3] : Number(m[3]);
    if (m[2]) o[m[1]!] = { ...(o[m[1]!] as object | undefined), [m[2]]: value };
    else o[m[1]!] = value;
  }
  return o as ProfileOverrides;
}

function main(): void {
  const argv = process.argv.slice(2);
  const letters: string[] = [];
  const sets: string[] = [];
  let json: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--profile') letters.push(argv[++i]!.toUpperCase());
    else if (argv[i] === '--set') sets.push(argv[++i]!);
    else if (argv[i] === '--json') json = argv[++i];
    else throw new Error(`unknown argument ${argv[i]} (use --profile A-E, --set field=value, --json FILE)`);
  }
  const all: Record<string, FitRow[]> = {};
  for (const letter of letters.length ? letters : Object.keys(POINTS)) {
    const base = resolveProfile(letter);
    const profile = sets.length ? resolveProfile({ ...overridesFrom(base.name, sets), letter }) : base;
    const t0 = performance.now();
    const rows = fitRows(profile, POINTS[letter] ?? []);
    all[letter] = rows;
    const caps = PUBLISHED_CAPACITIES[letter];
    const capTable = caps ? `\n\n${renderCapacities(caps, (id) => burstCapacity(profile, id))}` : '';
    process.stdout.write(
      `## ${letter}: ${profile.description}\n\n${renderFitTable(rows)}\n\n` +
        `${renderFitVerdict(letter, rows)}${capTable}\n` +
        `(${((performance.now() - t0) / 1000).toFixed(1)} s)\n\n`,
    );
  }
  if (json) writeFileSync(json, JSON.stringify(all, null, 2));
}

if (process.argv[1]?.endsWith('sim-fit.ts')) {
  try {
    main();
  } catch (e) {
    process.stderr.write(`sim-fit: ${(e as Error).message}\n`);
    process.exitCode = 1;
  }
}
