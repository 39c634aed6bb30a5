// `--what-if NAME=VALUE`: a variant of the plan to predict beside the base prediction. Pure. Runs in Node.
//
// The grammar is small on purpose (docs/guides/what-if.md):
//   prompt=<f>x           every context (use cases' and the sweep's) times f, e.g. prompt=2x, prompt=0.5x
//   output=<tokens>       every output length (use cases', the capacity part's and the sweep's), e.g. output=512
//   ttft=<ms>, e2e=<ms>, itl=<ms>, tpot=<ms>, decode-speed=<tok/s>
//                         that limit of every use case, added where a use case has none, e.g. ttft=2000
// Mix and burst profiles are fixed catalogue entries: a variant changes the use cases and the sweep only.

import { EXIT, UserError } from '../lib/exit-codes';
import type { PlanInput } from '../lib/plan';
import { PLAN_DEFAULTS } from '../lib/plan-defaults';
import type { UseCase, UseCaseLimit } from '../thresholds/use-cases';

export type WhatIf =
  | { readonly kind: 'prompt'; readonly factor: number; readonly label: string }
  | { readonly kind: 'output'; readonly tokens: number; readonly label: string }
  | { readonly kind: 'limit'; readonly metric: UseCaseLimit['metric']; readonly value: number; readonly label: string };

/** The limit names a variant may set, and each one's operator when a use case has no such limit yet. */
const LIMITS: Readonly<Record<string, { metric: UseCaseLimit['metric']; operator: UseCaseLimit['operator'] }>> = {
  ttft: { metric: 'ttft', operator: '<' },
  e2e: { metric: 'e2e', operator: '<' },
  itl: { metric: 'itl', operator: '<' },
  tpot: { metric: 'tpot', operator: '<' },
  'decode-speed': { metric: 'decodeSpeed', operator: '>' },
};

export const WHAT_IF_NAMES = ['prompt', 'output', ...Object.keys(LIMITS)] as const;

/** Parses one --what-if value; anything else is a one-line usage error saying what is accepted. */
export function parseWhatIf(text: string): WhatIf {
  const m = /^\s*([a-z-]+)\s*=\s*(\S+)\s*$/.exec(text);
  const bad = (why: string) =>
    new UserError(
      `--what-if "${text}": ${why} (one of ${WHAT_IF_NAMES.join(', ')}; e.g. prompt=2x, output=512, ttft=2000)`,
      EXIT.usage,
    );
  if (!m) throw bad('not NAME=VALUE');
  const [, name, value] = m as unknown as [string, string, string];
  const label = `${name}=${value}`;
  if (name === 'prompt') {
    const f = /^(\d+(?:\.\d+)?)x$/.exec(value);
    const factor = f ? Number(f[1]) : NaN;
    if (!(factor > 0 && factor <= 64)) throw bad('prompt takes a factor above 0 and up to 64, written like 2x');
    return { kind: 'prompt', factor, label };
  }
  const n = Number(value);
  if (name === 'output') {
    if (!(Number.isInteger(n) && n >= 1)) throw bad('output takes a whole number of tokens >= 1');
    return { kind: 'output', tokens: n, label };
  }
  const limit = LIMITS[name];
  if (!limit) throw bad(`unknown name "${name}"`);
  if (!(n > 0 && isFinite(n))) throw bad(`${name} takes a number above 0`);
  return { kind: 'limit', metric: limit.metric, value: n, label };
}

/** A file-name-safe form of a variant's label: "prompt=2x" -> "prompt-2x". */
export function variantSlug(w: WhatIf): string {
  return w.label.replace(/[^a-zA-Z0-9.]+/g, '-');
}

/**
 * The plan input with the variant applied; `useCases` are the plan's use cases as resolved (every one a full
 * definition), written back whole so the variant reaches every part that reads them.
 */
export function applyWhatIf(input: PlanInput, useCases: readonly UseCase[], w: WhatIf): PlanInput {
  const given = { ...PLAN_DEFAULTS.sweep, ...input.sweep };
  const sweep = { ...given, contexts: [...given.contexts], concurrencies: [...given.concurrencies] };
  const plain = useCases.map(plainUseCase);
  switch (w.kind) {
    case 'prompt': {
      const scale = (tokens: number) => Math.max(1, Math.round(tokens * w.factor));
      return {
        ...input,
        useCases: plain.map((u) => ({ ...u, contextTokens: scale(u.contextTokens) })),
        sweep: { ...sweep, contexts: [...new Set(sweep.contexts.map(scale))] },
      };
    }
    case 'output':
      return {
        ...input,
        useCases: plain.map((u) => ({ ...u, outputTokens: w.tokens })),
        // The capacity section's own outputs would win over the use cases': they take the variant too.
        capacity: { ...input.capacity, outputTokens: Object.fromEntries(useCases.map((u) => [u.id, w.tokens])) },
        sweep: { ...sweep, outputTokens: w.tokens },
      };
    case 'limit':
      return { ...input, useCases: plain.map((u) => withLimit(u, w.metric, w.value)) };
  }
}

type UseCaseInput = Exclude<NonNullable<PlanInput['useCases']>[number], string>;

/** A resolved use case as a plan input writes one. */
function plainUseCase(u: UseCase): UseCaseInput {
  return { ...u, limits: u.limits.map((l) => ({ ...l })), concurrencies: [...u.concurrencies] };
}

/** The use case with its limit on `metric` set to `value` (added when it has none); the plan derives the labels. */
function withLimit(u: UseCaseInput, metric: UseCaseLimit['metric'], value: number): UseCaseInput {
  const operator = Object.values(LIMITS).find((l) => l.metric === metric)!.operator;
  const has = u.limits.some((l) => l.metric === metric);
  const limits = has
    ? u.limits.map((l) => {
      // The label is left out: the plan derives it again from the new value.
      const own = l.stat ? { stat: l.stat } : {};
      return l.metric === metric ? { metric, operator: l.operator, value, ...own } : l;
    })
    : [...u.limits, { metric, operator, value }];
  return { ...u, limits };
}
