// `npm run agent [-- --port N] [--host H]`: the measuring agent in the foreground, for a stock k6 run by hand.
// Runs in Node. It builds the agent first when needed (progress on stderr); the agent then prints its own
// `agent listening on http://...` line, and this command exits with the agent's exit code.

import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { Command, InvalidArgumentError } from 'commander';
import { EXIT } from '../lib/exit-codes';
import { ensureAgent } from '../orchestrator/agent-build';
import { parseCommandLine, runMain, UserError } from './cli';

function portArg(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('--port must be an integer 0..65535');
  return n;
}

/** Runs `bin args` with this terminal, forwarding SIGINT/SIGTERM once; resolves to its exit code (128+n: signal n). */
function runForeground(bin: string, args: readonly string[]): Promise<number> {
  // Its own process group, so a Ctrl-C reaches it once, forwarded from here, rather than twice (the terminal's
  // and ours), which an agent may read as "stop now, skip the graceful shutdown". Its stdin is not the terminal's:
  // a background group reading the terminal would be stopped.
  const child = spawn(bin, [...args], { stdio: ['ignore', 'inherit', 'inherit'], detached: true });
  const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
  const onInt = forward('SIGINT');
  const onTerm = forward('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  return new Promise<number>((resolve, reject) => {
    child.once('error', (e) => {
      reject(new UserError(`the agent (${bin}) did not start: ${e.message}`, EXIT.unreachable));
    });
    child.once('exit', (code, signal) => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      process.off('exit', killOnExit);
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 0));
    });
  });
}

runMain('agent', async () => {
  const program = new Command('agent')
    .description(
      'Run the measuring agent (agent/) in the foreground, building it first when its sources changed ' +
      '(LLM_AGENT_BIN: a prebuilt one). Point k6 at it with -e LLM_AGENT=<the URL it prints>.',
    )
    .option('--port <n>', 'port to listen on; 0 picks a free port', portArg, 0)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .exitOverride()
    .configureOutput({ writeErr: () => undefined });
  if (!parseCommandLine(program)) return EXIT.ok;
  const { port, host } = program.opts<{ port: number; host: string }>();
  const bin = await ensureAgent((line) => process.stderr.write(line + '\n'));
  return runForeground(bin, ['--host', host, '--port', String(port)]);
});
