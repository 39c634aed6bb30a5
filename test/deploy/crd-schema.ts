// Checks a custom resource against a CRD's openAPIV3Schema the way the Kubernetes API server does. Runs in Node
// (tests).
//
// A CRD's schema is a Kubernetes structural schema: OpenAPI v3 with x-kubernetes-* extensions. This
// covers every keyword the k6-operator's TestRun schema uses (test/fixtures/k6-operator) and refuses a
// schema that uses any other, so a newer CRD cannot be checked only in part. Unknown fields are errors,
// as under kubectl's default strict field validation (the server would otherwise drop them silently).

type Schema = Readonly<Record<string, unknown>>;

/** Keywords handled below; anything else in a schema is an error of the checker, not of the manifest. */
const KNOWN_KEYWORDS = new Set([
  'type', 'properties', 'required', 'items', 'additionalProperties', 'anyOf', 'enum', 'format', 'pattern', 'minLength',
  'maxLength', 'minimum', 'default', 'description', 'x-kubernetes-int-or-string', 'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys', 'x-kubernetes-map-type',
]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function typeProblem(type: unknown, value: unknown): string | null {
  const ok = {
    object: isObject(value),
    array: Array.isArray(value),
    string: typeof value === 'string',
    integer: Number.isInteger(value),
    number: typeof value === 'number' && Number.isFinite(value),
    boolean: typeof value === 'boolean',
  }[String(type)];
  if (ok === undefined) throw new Error(`schema type "${String(type)}" is not one the checker knows`);
  return ok ? null : `must be of type ${String(type)}, got ${JSON.stringify(value)}`;
}

function scalarProblems(schema: Schema, value: unknown): string[] {
  const problems: string[] = [];
  if (schema.enum && !(schema.enum as unknown[]).includes(value))
    problems.push(`must be one of ${JSON.stringify(schema.enum)}`);
  if (typeof value === 'string') {
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern).test(value))
      problems.push(`must match ${schema.pattern}`);
    if (typeof schema.maxLength === 'number' && value.length > schema.maxLength)
      problems.push(`is longer than ${schema.maxLength}`);
    if (typeof schema.minLength === 'number' && value.length < schema.minLength)
      problems.push(`is shorter than ${schema.minLength}`);
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum)
      problems.push(`must be at least ${schema.minimum}`);
    if (schema.format === 'int32' && (value < -(2 ** 31) || value >= 2 ** 31)) problems.push('must fit in 32 bits');
  }
  return problems;
}

function listProblems(schema: Schema, value: readonly unknown[], at: string): string[] {
  const problems = value.flatMap((item, i) => (schema.items ? check(schema.items as Schema, item, `${at}[${i}]`) : []));
  const keys = schema['x-kubernetes-list-map-keys'] as string[] | undefined;
  const type = schema['x-kubernetes-list-type'];
  if (type === 'map' || type === 'set') {
    const identity = (item: unknown): string =>
      JSON.stringify(type === 'map' && keys && isObject(item) ? keys.map((k) => item[k]) : item);
    const seen = new Set<string>();
    for (const item of value) {
      const id = identity(item);
      if (seen.has(id)) problems.push(`${at}: duplicate entry ${id} in a list of type ${String(type)}`);
      seen.add(id);
    }
  }
  return problems;
}

function objectProblems(schema: Schema, value: Record<string, unknown>, at: string): string[] {
  const properties = schema.properties as Record<string, Schema> | undefined;
  const additional = schema.additionalProperties as Schema | boolean | undefined;
  const problems = ((schema.required as string[] | undefined) ?? [])
    .filter((key) => !(key in value))
    .map((key) => `${at}.${key}: is required`);
  for (const [key, item] of Object.entries(value)) {
    const path = `${at}.${key}`;
    if (properties?.[key]) problems.push(...check(properties[key]!, item, path));
    else if (isObject(additional)) problems.push(...check(additional, item, path));
    // An object schema with neither properties nor additionalProperties (metadata) takes any field.
    else if (properties || additional === false) problems.push(`${path}: unknown field`);
  }
  return problems;
}

/** Every way `value` breaks `schema`, as "path: problem"; empty when it conforms. */
export function check(schema: Schema, value: unknown, at = ''): string[] {
  for (const keyword of Object.keys(schema)) {
    if (!KNOWN_KEYWORDS.has(keyword))
      throw new Error(`schema keyword "${keyword}" at ${at || '(root)'} is not one the checker knows`);
  }
  if (value === null) return [`${at}: must not be null`];
  if (schema['x-kubernetes-int-or-string'] === true) {
    return Number.isInteger(value) || typeof value === 'string' ? [] : [`${at}: must be an integer or a string`];
  }
  if (schema.anyOf && !(schema.anyOf as Schema[]).some((alternative) => check(alternative, value, at).length === 0)) {
    return [`${at}: matches none of its alternatives`];
  }
  if (schema.type !== undefined) {
    const problem = typeProblem(schema.type, value);
    if (problem) return [`${at}: ${problem}`];
  }
  const problems = scalarProblems(schema, value).map((p) => `${at}: ${p}`);
  if (Array.isArray(value)) problems.push(...listProblems(schema, value, at));
  else if (isObject(value)) problems.push(...objectProblems(schema, value, at));
  return problems;
}
