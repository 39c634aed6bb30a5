// Licence checks for test/layout/licence.test.ts: SPDX expressions, go.mod requirements, licence texts. Runs in Node
// (tests).
//
// The project is Apache-2.0 and takes no AGPL or GPL code into what it ships (docs: DESIGN, "Licence"). Pure
// functions first (unit-tested by the table in licence.test.ts), then the three scans over the repository.

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** One GNU licence identifier or name: GPL-3.0, LGPL-2.1-or-later, AGPL-3.0-only, GPL-2.0+, GPLv3, "GNU GPL v3". */
const GNU_ID = /^(?:GNU[ -]?)?[AL]?GPL(?:$|[-+ v\d])|GNU (?:Affero |Lesser |Library )?General Public Licen[cs]e/i;

type Node = { leaf: string } | { op: 'AND' | 'OR'; left: Node; right: Node };

/** Parses an SPDX expression (WITH binds tightest, then AND, then OR); null when it is not one. */
function parseSpdx(expression: string): Node | null {
  const tokens = expression.replace(/[()]/g, ' $& ').split(/\s+/).filter((t) => t !== '');
  let at = 0;
  const peek = (): string | undefined => tokens[at]?.toUpperCase();
  const primary = (): Node | null => {
    const token = tokens[at++];
    if (token === undefined || /^(AND|OR|WITH|\))$/i.test(token)) return null;
    if (token === '(') {
      const inner = or();
      return inner && tokens[at++] === ')' ? inner : null;
    }
    // An exception keeps the licence what it is: GPL-2.0 WITH Classpath-exception-2.0 is still GPL.
    if (peek() === 'WITH') at += 2;
    return { leaf: token };
  };
  const binary = (op: 'AND' | 'OR', next: () => Node | null) => (): Node | null => {
    let left = next();
    while (left && peek() === op) {
      at++;
      const right = next();
      left = right ? { op, left, right } : null;
    }
    return left;
  };
  const and = binary('AND', primary);
  const or = binary('OR', and);
  const tree = or();
  return tree && at === tokens.length ? tree : null;
}

function copyleftNode(node: Node): boolean {
  if ('leaf' in node) return GNU_ID.test(node.leaf);
  const [l, r] = [copyleftNode(node.left), copyleftNode(node.right)];
  // OR: the user may pick either side, so one permissive side is enough; AND: both apply.
  return node.op === 'OR' ? l && r : l || r;
}

/**
 * Whether an SPDX licence expression leaves only AGPL, GPL or LGPL terms to choose from: `GPL-3.0` and
 * `(MIT AND LGPL-2.1)` are, `(MIT OR GPL-3.0)` is not. Text that is no SPDX expression ("GNU GPL v3") counts when it
 * names a GNU licence.
 */
export function isCopyleft(expression: string): boolean {
  const tree = parseSpdx(expression);
  return tree ? copyleftNode(tree) : GNU_ID.test(expression.trim());
}

/**
 * The licence of an npm package.json as one expression: `license`, or the legacy `licenses` list read as alternatives.
 */
export function npmLicence(pkg: Readonly<Record<string, unknown>>): string | undefined {
  const name = (v: unknown): string | undefined =>
    typeof v === 'string' ? v : typeof v === 'object' && v !== null ? name((v as { type?: unknown }).type) : undefined;
  if (pkg.license !== undefined) return name(pkg.license);
  if (!Array.isArray(pkg.licenses)) return undefined;
  const names = pkg.licenses.map(name).filter((n): n is string => n !== undefined);
  return names.length > 0 ? names.map((n) => `(${n})`).join(' OR ') : undefined;
}

/**
 * Go modules known to be AGPL or GPL, by path prefix: k6 itself and its parts, Grafana's xk6 extensions, AGPL servers.
 */
export const KNOWN_COPYLEFT_GO_MODULES = [
  'go.k6.io/k6', 'github.com/grafana/xk6-', 'github.com/grafana/k6provider', 'github.com/grafana/grafana',
  'github.com/grafana/loki', 'github.com/grafana/mimir', 'github.com/grafana/tempo', 'github.com/minio/minio',
];

/** The module paths a go.mod requires or replaces with that are on KNOWN_COPYLEFT_GO_MODULES. */
export function copyleftRequirements(goMod: string): string[] {
  const paths = new Set<string>();
  let block = '';
  for (const raw of goMod.split('\n')) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (block !== '' && line === ')') block = '';
    const open = /^(require|replace)\s*\($/.exec(line);
    if (open) block = open[1]!;
    const single = /^(require|replace)\s+(.+)$/.exec(line);
    const [kind, body] = open ? ['', ''] : single ? [single[1]!, single[2]!] : [block, block !== '' ? line : ''];
    // require: "path version"; replace: "old [version] => new [version]": both sides count.
    const found =
      kind === 'require' ? [body.split(/\s+/)[0]] : body.split('=>').map((side) => side.trim().split(/\s+/)[0]);
    for (const path of found) if (path && KNOWN_COPYLEFT_GO_MODULES.some((p) => path.startsWith(p))) paths.add(path);
  }
  return [...paths];
}

/** Titles and the standard notice of the GNU licences, matched case-sensitively (MPL-2.0 names them in lower case). */
const GNU_TEXT = [
  'GNU AFFERO GENERAL PUBLIC LICENSE', 'GNU LESSER GENERAL PUBLIC LICENSE', 'GNU GENERAL PUBLIC LICENSE',
  'GNU LIBRARY GENERAL PUBLIC LICENSE',
];
const GNU_NOTICE = /under the terms of the GNU (?:Affero |Lesser |Library )?General Public License/;

/** The GNU licence a licence file's text is, if any. */
export function gnuLicenceIn(text: string): string | undefined {
  const flat = text.replace(/\s+/g, ' ');
  return GNU_TEXT.find((title) => flat.includes(title)) ?? GNU_NOTICE.exec(flat)?.[0];
}

/**
 * Licence file names in a module's root: LICENSE, LICENCE, COPYING, with .md/.txt or -MIT style suffixes (not *.go).
 */
export const LICENCE_FILE = /^(?:licen[cs]e|copying)(?![\w.-]*\.go$)(?:[-._][\w.-]*)?$/i;

// --- scans over the repository -----------------------------------------------------------------------------------

/** Folders (relative to root, '.' for the root) holding a go.mod that git tracks, outside node_modules. */
export function trackedGoModDirs(root: string): string[] {
  return execFileSync('git', ['ls-files', '*go.mod'], { cwd: root, encoding: 'utf8' }).split('\n')
    .filter((f) => /(^|\/)go\.mod$/.test(f) && !f.split('/').includes('node_modules'))
    .map((f) => dirname(f));
}

/** "dir/go.mod requires path" for every known AGPL/GPL module a tracked go.mod names. */
export function goModProblems(root: string): string[] {
  return trackedGoModDirs(root).flatMap((dir) =>
    copyleftRequirements(readFileSync(join(root, dir, 'go.mod'), 'utf8'))
      .map((path) => `${join(dir, 'go.mod')} requires ${path}`));
}

/** Every package of package-lock.json (prod and dev) whose installed package.json names only GNU licences. */
export function npmProblems(root: string): string[] {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { link?: boolean; optional?: boolean }>;
  };
  return Object.entries(lock.packages).flatMap(([key, entry]) => {
    if (key === '' || entry.link) return [];
    const file = join(root, key, 'package.json');
    // Optional packages for other platforms (@esbuild/darwin-arm64, ...) are in the lock but not installed.
    if (!existsSync(file)) return entry.optional ? [] : [`${key}: not installed (run npm ci)`];
    const licence = npmLicence(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>);
    return licence !== undefined && isCopyleft(licence) ? [`${key}: ${licence}`] : [];
  });
}

type GoModule = { Path: string; Version?: string; Main?: boolean; Dir?: string };

function go(dir: string, args: string[]): string {
  return execFileSync('go', args, {
    cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000, maxBuffer: 64 << 20,
    env: { ...process.env, GOWORK: 'off', GOTOOLCHAIN: 'local' },
  });
}

/** The JSON objects `go list -m -json` prints one after another. */
function goModules(text: string): GoModule[] {
  return text.split(/^}$/m).filter((chunk) => chunk.trim() !== '').map((chunk) => JSON.parse(`${chunk}}`) as GoModule);
}

/**
 * For the Go module in root/dir: every dependency module (`go list -m -json all`) whose licence file is a GNU licence,
 * or that has no licence file. A module of the graph with no Dir was never downloaded: it only took part in version
 * selection, which is fine unless a package of the build comes from it (`go list -deps ./...`).
 */
export function goDependencyProblems(root: string, dir: string): string[] {
  const at = join(root, dir);
  let modules: GoModule[];
  let built: Set<string>;
  try {
    modules = goModules(go(at, ['list', '-m', '-json', 'all']));
    built = new Set(
      go(at, ['list', '-deps', '-f', '{{with .Module}}{{.Path}}{{end}}', './...']).split('\n').filter(Boolean),
    );
  } catch (e) {
    const err = e as { stderr?: string; message: string };
    return [`${dir}: go list failed: ${(err.stderr || err.message).trim().split('\n')[0]}`];
  }
  return modules.filter((m) => !m.Main).flatMap((m) => {
    const id = `${dir}: ${m.Path}@${m.Version ?? '?'}`;
    if (!m.Dir) return built.has(m.Path) ? [`${id}: not in the module cache (go mod download)`] : [];
    const files = readdirSync(m.Dir, { withFileTypes: true })
      .filter((f) => f.isFile() && LICENCE_FILE.test(f.name))
      .map((f) => f.name);
    if (files.length === 0) return [`${id}: no licence file`];
    return files.flatMap((f) => {
      const gnu = gnuLicenceIn(readFileSync(join(m.Dir!, f), 'utf8'));
      return gnu ? [`${id}: ${f} is ${gnu}`] : [];
    });
  });
}
