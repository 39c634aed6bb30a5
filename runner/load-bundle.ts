// Loads a built k6 bundle (ESM with k6/* external) as a script that can be evaluated once per VU. Runs in Node.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import vm from 'node:vm';
import { transformSync } from 'esbuild';
import { EXIT, RunnerError } from './exit-codes';

/** Standard builtins (no k6 or runner globals, which may change per scenario or iteration). */
const BUILTINS = [
  'Object', 'Function', 'Array', 'Number', 'Boolean', 'String', 'Symbol', 'Date', 'Promise', 'RegExp', 'Error', 'TypeError', 'RangeError',
  'SyntaxError', 'ReferenceError', 'JSON', 'Math', 'Map', 'Set', 'WeakMap', 'WeakSet', 'Reflect', 'Proxy', 'BigInt', 'ArrayBuffer', 'DataView',
  'Uint8Array', 'Int8Array', 'Uint16Array', 'Int16Array', 'Uint32Array', 'Int32Array', 'Float32Array', 'Float64Array', 'parseInt', 'parseFloat',
  'isNaN', 'isFinite', 'encodeURIComponent', 'decodeURIComponent', 'encodeURI', 'decodeURI',
];

export interface LoadedBundle {
  readonly path: string;
  readonly dir: string;
  /** Evaluates to `function (exports, require, module, open)`: the bundle's module body. */
  readonly script: vm.Script;
}

/**
 * Converts the ESM bundle to a CommonJS function body once, so each VU can run it in its own vm
 * context: init code then runs per VU, and module-level state is per VU, as in k6.
 */
export function loadBundle(file: string): LoadedBundle {
  const path = resolve(file);
  let source: string;
  try {
    source = readFileSync(path, 'utf8');
  } catch (e) {
    throw new RunnerError(`cannot read script ${file}: ${(e as Error).message}`, EXIT.scriptError);
  }
  let code: string;
  try {
    code = transformSync(source, { format: 'cjs', loader: 'js', target: 'es2022', sourcefile: path, platform: 'neutral' }).code;
  } catch (e) {
    throw new RunnerError(`script ${file} does not parse: ${(e as Error).message.split('\n')[0]}`, EXIT.scriptError);
  }
  // Imports became require("k6/...") calls; route them to the VU's loader under a private name so the
  // script sees no `require`, as in k6.
  code = code.replace(/\brequire\((["'])(k6(?:\/[^"']*)?)\1\)/g, '__k6_require("$2")');
  // Global lookups in a vm context go through interceptors, which costs on every JSON.parse in an
  // event handler: bind the builtins once per VU as outer-scope constants (the script may still
  // shadow them with its own declarations, which live in the inner function's scope).
  const builtins = BUILTINS.map((name) => `${name} = globalThis.${name}`).join(', ');
  const wrapped = `(function () { const ${builtins}; return function (exports, __k6_require, module, open) {${code}\n}; })()`;
  let script: vm.Script;
  try {
    script = new vm.Script(wrapped, { filename: path });
  } catch (e) {
    throw new RunnerError(`script ${file} does not compile: ${(e as Error).message}`, EXIT.scriptError);
  }
  return { path, dir: dirname(path), script };
}
