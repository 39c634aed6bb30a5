// A renderer-neutral document (headings, paragraphs, tables, charts) that the Markdown and HTML renderers serialise.
// Runs in Node.

export type Block =
  | { readonly kind: 'h'; readonly level: 1 | 2 | 3; readonly text: string; readonly id: string }
  | { readonly kind: 'p'; readonly text: string }
  | { readonly kind: 'note'; readonly text: string }
  | { readonly kind: 'list'; readonly items: readonly string[] }
  | {
    readonly kind: 'table'; readonly head: readonly string[]; readonly rows: readonly (readonly string[])[];
    readonly caption?: string;
  }
  | { readonly kind: 'chart'; readonly id: string }
  | { readonly kind: 'kpis'; readonly items: readonly { readonly value: string; readonly label: string }[] }
  /** Where a page with a table of contents (HTML) puts it: after the answer and its warnings. */
  | { readonly kind: 'toc' };

// Untrusted text (model names, URLs, server error messages) is wrapped with lit(): each renderer
// escapes it for its format and never reads markup (**bold**, `code`, HTML, a table's "|") inside it.
const LIT_OPEN = '\uE000';
const LIT_CLOSE = '\uE001';
const LIT_RE = /\uE000([^\uE000\uE001]*)\uE001/g;

/** Marks a string as literal, untrusted text inside document text. */
export function lit(s: string | null | undefined): string {
  return `${LIT_OPEN}${String(s ?? '').replace(/[\uE000\uE001]/g, '')}${LIT_CLOSE}`;
}

/**
 * Renders document text: the literal parts through `literal`, the rest through `markup`. Literals
 * are swapped for placeholders while `markup` runs, so markup around a literal (**${lit(x)}**) still works.
 */
export function renderText(text: string, markup: (s: string) => string, literal: (s: string) => string): string {
  if (!text.includes(LIT_OPEN)) return markup(text);
  const parts: string[] = [];
  const withHoles = text.replace(LIT_RE, (_m, inner: string) => `\uE002${parts.push(literal(inner)) - 1}\uE003`);
  return markup(withHoles.replace(/[\uE000\uE001]/g, ''))
    .replace(/\uE002(\d+)\uE003/g, (_m, i: string) => parts[Number(i)]!);
}

/** Stable anchor id of a heading: "Use Case Guidance" -> "use-case-guidance". */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

export class DocBuilder {
  readonly blocks: Block[] = [];

  h(level: 1 | 2 | 3, text: string): this {
    this.blocks.push({ kind: 'h', level, text, id: slug(text) });
    return this;
  }

  p(text: string | null | undefined): this {
    if (text) this.blocks.push({ kind: 'p', text });
    return this;
  }

  note(text: string): this {
    if (text) this.blocks.push({ kind: 'note', text });
    return this;
  }

  list(items: readonly string[]): this {
    if (items.length > 0) this.blocks.push({ kind: 'list', items });
    return this;
  }

  table(head: readonly string[], rows: readonly (readonly string[])[], caption?: string): this {
    if (rows.length === 0) return this;
    this.blocks.push(caption === undefined ? { kind: 'table', head, rows } : { kind: 'table', head, rows, caption });
    return this;
  }

  chart(id: string, available: ReadonlySet<string>): this {
    if (available.has(id)) this.blocks.push({ kind: 'chart', id });
    return this;
  }

  toc(): this {
    this.blocks.push({ kind: 'toc' });
    return this;
  }

  kpis(items: readonly { value: string; label: string }[]): this {
    if (items.length > 0) this.blocks.push({ kind: 'kpis', items });
    return this;
  }
}
