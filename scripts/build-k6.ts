// `npm run build:k6`: builds the project's k6 (k6 + k6/x/llm) into .cache/k6/k6. Runs in Node.
// It skips the build when an up-to-date one exists, and prints its path.

import { Command } from 'commander';
import { EXIT } from '../lib/exit-codes';
import { ensureProjectK6 } from '../orchestrator/k6-build';
import { runMain, UserError } from './cli';

runMain('build:k6', async () => {
  const program = new Command('build:k6')
    .description(
      'Build k6 with the k6/x/llm extension (xk6-llm/) into .cache/k6/k6 with go build; reused while the Go sources are unchanged.',
    )
    .option('--force', 'rebuild even when the binary is up to date')
    .exitOverride();
  try {
    program.parse();
  } catch (e) {
    const err = e as { code?: string; message: string };
    if (err.code === 'commander.helpDisplayed') return EXIT.ok;
    throw new UserError(err.message.replace(/^error: /, ''), EXIT.usage);
  }
  const bin = await ensureProjectK6((line) => process.stderr.write(line + '\n'), {
    force: program.opts<{ force?: boolean }>().force === true,
  });
  process.stdout.write(bin + '\n');
  return EXIT.ok;
});
