// `npm run agent:build`: builds the measuring agent (agent/) into .cache/agent/k6-llm-agent and prints its path.
// Runs in Node. It skips the build while the Go sources and toolchain are unchanged; LLM_AGENT_BIN skips it too.

import { Command } from 'commander';
import { EXIT } from '../lib/exit-codes';
import { ensureAgent } from '../orchestrator/agent-build';
import { parseCommandLine, runMain } from './cli';

runMain('agent:build', async () => {
  const program = new Command('agent:build')
    .description(
      'Build the measuring agent (agent/) into .cache/agent/k6-llm-agent with go build; ' +
      'reused while its Go sources and the toolchain are unchanged.',
    )
    .option('--force', 'rebuild even when the binary is up to date')
    .exitOverride()
    .configureOutput({ writeErr: () => undefined });
  if (!parseCommandLine(program)) return EXIT.ok;
  const bin = await ensureAgent((line) => process.stderr.write(line + '\n'), {
    force: program.opts<{ force?: boolean }>().force === true,
  });
  process.stdout.write(bin + '\n');
  return EXIT.ok;
});
