// Runs one of the project's scripts/ensure-*.sh, which build or download an artefact once into the user's cache and
// print its path as their last stdout line. Runs in Node.

import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../lib/exit-codes';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Runs scripts/<script> with sh, passing its stderr lines to `log` as they come; resolves to its last stdout line. */
export function runEnsureScript(script: string, log: (line: string) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', [path.join(root, 'scripts', script)], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let partial = '';
    const tail: string[] = [];
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines.filter((l) => l.trim())) {
        log(line);
        tail.push(line);
        if (tail.length > 5) tail.shift();
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const last = stdout.trim().split('\n').pop() ?? '';
      const why = tail.slice(-2).join(' | ') || 'no message';
      if (code === 0 && last) resolve(last);
      else reject(new UserError(`scripts/${script} failed (exit ${code}): ${why}`));
    });
  });
}
