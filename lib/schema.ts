// The building blocks of the suite's schemas (valibot), worded for one-line errors. Runs in k6 and Node.
// Each message says what was expected and what came.
//
// A message never names its field: parseOrThrow() puts the path in front, so one field schema
// serves a plan file and a plan.json read back. The builders are marked free of side effects so
// that esbuild leaves a schema no k6 script uses (the plan.json reader) out of the bundles.

import * as v from 'valibot';

type Entries = v.ObjectEntries;

/** A value and everything inside it read-only. */
export type DeepReadonly<T> = T extends readonly (infer Item)[]
  ? readonly DeepReadonly<Item>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

/** What a schema's parse returns, read-only: the type of data checked at the edge and trusted inside. */
export type Parsed<S extends v.GenericSchema> = DeepReadonly<v.InferOutput<S>>;

const got = (expected: string) => (issue: v.BaseIssue<unknown>): string =>
  `${expected}, got ${JSON.stringify(issue.input)}`;

/** A finite number in [min, max]; an open upper end when max is absent. */
/* @__NO_SIDE_EFFECTS__ */
export function num(min: number, max?: number) {
  return v.pipe(
    v.number(got('must be a number')),
    v.check((n) => Number.isFinite(n), got('must be a number')),
    v.check(
      (n) => n >= min && (max === undefined || n <= max),
      (issue) =>
        max === undefined
          ? `must be at least ${min}, got ${String(issue.input)}`
          : `must be between ${min} and ${max}, got ${String(issue.input)}`,
    ),
  );
}

/** A whole number in [min, max]. */
/* @__NO_SIDE_EFFECTS__ */
export function int(min: number, max?: number) {
  return v.pipe(num(min, max), v.integer((issue) => `must be a whole number, got ${String(issue.input)}`));
}

export const bool = v.boolean('must be true or false');

export const text = v.pipe(
  v.string('must be a non-empty string'),
  v.check((s) => s.trim() !== '', 'must be a non-empty string'),
);

/** A k6 scenario name and cell tag value, which k6 restricts to these characters. */
export const name = v.pipe(
  text,
  v.regex(/^[0-9a-zA-Z_-]+$/, (issue) => `must use only letters, digits, "_" and "-", got "${String(issue.input)}"`),
);

/** An http(s) URL without its trailing slashes, so paths can be appended. */
export const url = v.pipe(
  text,
  v.check((s) => /^https?:\/\/[^\s/]+/.test(s), (issue) => `must be an http(s) URL, got "${String(issue.input)}"`),
  v.transform((s) => s.replace(/\/+$/, '')),
);

/** One of a fixed set of strings. */
/* @__NO_SIDE_EFFECTS__ */
export function oneOf<const T extends readonly (string | number)[]>(options: T) {
  return v.picklist(options, (issue) => `is ${JSON.stringify(issue.input)}, not one of: ${options.join(', ')}`);
}

/** A non-empty list; `what` completes "must be a non-empty ...". */
/* @__NO_SIDE_EFFECTS__ */
export function list<S extends v.GenericSchema>(item: S, what = 'list') {
  const message = `must be a non-empty ${what}`;
  return v.pipe(v.array(item, message), v.minLength(1, message));
}

export const intList = /* @__NO_SIDE_EFFECTS__ */ (min: number, max: number) =>
  list(int(min, max), 'list of whole numbers');

// valibot's object schemas take arrays for objects (their keys become fields); JSON's objects are never arrays.
const isPlainObject = (x: unknown): boolean => typeof x === 'object' && x !== null && !Array.isArray(x);
export const plainObject = v.custom<Record<string, unknown>>(isPlainObject, 'must be an object');

/** The plain-object check, typed as what the schema after it accepts, so `v.InferInput` is what a user may write. */
/* @__NO_SIDE_EFFECTS__ */
function plainObjectOf<T>() {
  return v.custom<T>(isPlainObject, 'must be an object');
}

/**
 * valibot's strict object with this module's messages; object() adds the plain-object check (a variant's options
 * cannot).
 */
/* @__NO_SIDE_EFFECTS__ */
export function strictObject<E extends Entries>(entries: E) {
  const known = Object.keys(entries).join(', ');
  const message = (issue: v.BaseIssue<unknown>): string => {
    if (issue.expected === 'never') return `is not a known field (known: ${known})`;
    return issue.expected?.startsWith('"') ? 'is required' : 'must be an object';
  };
  return v.strictObject(entries, message);
}

/** An object with exactly these fields: an unknown one is an error that lists the known ones. */
/* @__NO_SIDE_EFFECTS__ */
export function object<E extends Entries>(entries: E) {
  return v.pipe(plainObjectOf<v.InferInput<v.StrictObjectSchema<E, undefined>>>(), strictObject(entries));
}

/** An object of any keys whose values all match `value`. */
/* @__NO_SIDE_EFFECTS__ */
export function record<S extends v.GenericSchema>(value: S) {
  return v.pipe(plainObjectOf<Record<string, v.InferInput<S>>>(), v.record(v.string(), value, 'must be an object'));
}

/** The field an issue is about, as a plan writer spells it: capacity.maxUsers, sweep.contexts[2]. */
export function issueField(issue: v.BaseIssue<unknown>): string {
  let field = '';
  for (const item of issue.path ?? []) {
    const key = item.key;
    if (typeof key === 'number') field += `[${key}]`;
    else field += field === '' ? String(key) : `.${String(key)}`;
  }
  return field;
}

/**
 * Parses `input`, or throws what `toError` makes of the first issue: one line, about the first rule
 * broken in the schema's order. Not abortEarly: that makes an object with a bad field "untyped", and
 * a union then reports its own vague message instead of the field's.
 */
export function parseOrThrow<S extends v.GenericSchema>(
  schema: S, input: unknown, toError: (field: string, message: string) => Error,
): v.InferOutput<S> {
  const result = v.safeParse(schema, input);
  if (result.success) return result.output;
  const issue = result.issues[0];
  throw toError(issueField(issue), issue.message);
}
