// Command line of the local runner, mirroring `k6 run`: parses argv only and hands over to run.ts. Runs in Node.
import { Command, CommanderError } from 'commander';
import { EXIT, RunnerError } from './exit-codes';
import { attachProgress } from './progress';
import { runTest } from './run';

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function keyValues(list: readonly string[], flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of list) {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new RunnerError(`${flag} ${item}: expected KEY=VALUE`, EXIT.invalidConfig);
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}

function positiveInt(flag: string) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new RunnerError(`${flag} ${v}: expected a positive integer`, EXIT.invalidConfig);
    return n;
  };
}

interface RunFlags {
  env: string[];
  out: string[];
  tag: string[];
  summaryExport?: string;
  healthOut?: string;
  quiet?: boolean;
  color: boolean;
  vus?: number;
  iterations?: number;
  duration?: string;
}

async function main(argv: string[]): Promise<number> {
  const program = new Command('k6-local')
    .description('Runs built k6 bundles on Node with k6 semantics (local stand-in for `k6 run`)')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  let exitCode: number = EXIT.ok;
  program
    .command('run')
    .argument('<script>', 'bundled k6 script (ESM, k6/* external)')
    .option('-e, --env <KEY=VALUE>', 'add an environment variable to __ENV (repeatable)', collect, [])
    .option('-o, --out <output>', 'csv[=FILE | =fileName=FILE,timeFormat=unix_milli] or json=FILE (repeatable)', collect, [])
    .option('--tag <NAME=VALUE>', 'add a tag to every sample (repeatable)', collect, [])
    .option('--summary-export <FILE>', 'write the end-of-test summary in k6 --summary-export format')
    .option('--health-out <FILE>', 'write runner-health.json (runner only)')
    .option('-q, --quiet', 'no progress output')
    .option('--no-color', 'no colours in the summary')
    .option('-u, --vus <N>', 'number of VUs (shortcut)', positiveInt('--vus'))
    .option('-i, --iterations <N>', 'total iterations (shortcut)', positiveInt('--iterations'))
    .option('-d, --duration <D>', 'test duration, e.g. 30s (shortcut)')
    .action(async (script: string, flags: RunFlags) => {
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
      Object.assign(env, keyValues(flags.env, '-e'));
      const stderrTTY = Boolean(process.stderr.isTTY);
      const result = await runTest({
        bundle: script,
        env,
        cli: { vus: flags.vus, iterations: flags.iterations, duration: flags.duration },
        tags: keyValues(flags.tag, '--tag'),
        outs: flags.out,
        summaryExport: flags.summaryExport,
        healthOut: flags.healthOut,
        noColor: !flags.color || !process.stdout.isTTY,
        cwd: process.cwd(),
        isStdOutTTY: Boolean(process.stdout.isTTY),
        isStdErrTTY: stderrTTY,
        writeStdout: (t) => process.stdout.write(t),
        writeStderr: (t) => process.stderr.write(t),
        onEvents: (events, run) => {
          let signals = 0;
          const onSignal = (sig: NodeJS.Signals): void => {
            signals++;
            // A second signal force-exits, as in k6.
            if (signals > 1) process.exit(EXIT.interrupted);
            run.interrupt(sig === 'SIGINT' ? 'interrupt' : 'terminated');
          };
          process.on('SIGINT', onSignal);
          process.on('SIGTERM', onSignal);
          if (!flags.quiet) attachProgress(events, run, (t) => process.stderr.write(t), stderrTTY);
        },
      });
      exitCode = result.exitCode;
    });
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : EXIT.invalidConfig;
    if (e instanceof RunnerError) {
      process.stderr.write(`level=error msg=${JSON.stringify(e.message)}\n`);
      return e.exitCode;
    }
    process.stderr.write(`level=error msg=${JSON.stringify((e as Error).stack ?? String(e))}\n`);
    return EXIT.scriptError;
  }
  return exitCode;
}

main(process.argv).then(
  (code) => {
    // Exit naturally so stdout/stderr drain (handleSummary output may be large); force it if a handle lingers.
    process.exitCode = code;
    setTimeout(() => process.exit(code), 3000).unref();
  },
  (e: unknown) => {
    process.stderr.write(`${String(e)}\n`);
    process.exit(EXIT.scriptError);
  },
);
