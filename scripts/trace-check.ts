// CLI: npm run trace:check -- <file> [--format F] [--speed X] [--start S] [--duration S] [--max-requests N]
// [--skip-bad-rows] — loads a production LLM trace, reports its bad rows and its stats. Runs in Node.
//
// Thin by design: flags into typed options, the file's lines into lib/trace, its renderers' text to stdout. Errors are
// one line on stderr with an exit code from lib/exit-codes.ts: 2 for bad usage, 3 for a file that cannot be used or
// has bad rows (unless --skip-bad-rows), never a stack trace.

import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Command, CommanderError, Option } from 'commander';
import { EXIT } from '../lib/exit-codes';
import {
  TRACE_FORMATS, TraceError, createTraceLoader, detectTraceFormat, renderLoadFindings, renderSelection,
  renderStatsTable, selectRows, traceStats, type SelectOptions, type TraceFormat, type TraceLoad, type TraceLoader,
} from '../lib/trace/index';
import { numberArg, positive, runMain, UserError } from './cli';


interface Flags {
  format?: TraceFormat;
  speed?: number;
  start?: number;
  duration?: number;
  maxRequests?: number;
  skipBadRows?: boolean;
}

/** The flags, or null when commander printed help; a usage error becomes a UserError with exit code 2. */
function parseFlags(argv: string[]): { file: string; flags: Flags } | null {
  const program = new Command()
    .name('trace-check')
    .description('Check a production LLM trace (Mooncake, Azure, BurstGPT, Bailian): bad rows, and its stats')
    .argument('<file>', 'the trace file (.jsonl or .csv)')
    .addOption(new Option('--format <name>', 'the format, instead of detecting it from the first line')
      .choices(TRACE_FORMATS))
    .option('--speed <x>', 'replay speed: 2 sends the trace twice as fast',
      numberArg('--speed', positive, 'a number > 0'))
    .option('--start <s>', 'window start, s from the first row', numberArg('--start', (n) => n === 0 || positive(n),
      'a number >= 0'))
    .option('--duration <s>', 'window length, s of trace time', numberArg('--duration', positive, 'a number > 0'))
    .option('--max-requests <n>', 'at most this many requests, the earliest',
      numberArg('--max-requests', (n) => Number.isInteger(n) && n >= 1, 'a whole number >= 1'))
    .option('--skip-bad-rows', 'exit 0 even when rows were bad (they are skipped either way)')
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: (s) => process.stdout.write(s) });
  try {
    program.parse(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.exitCode === 0) return null; // --help
      throw new UserError(e.message.replace(/^error: /, ''), EXIT.usage);
    }
    throw e;
  }
  return { file: program.args[0]!, flags: program.opts<Flags>() };
}

/** Streams the file into the loader line by line: the week-long Azure 2024 traces are larger than a JS string. */
async function readTrace(file: string, format: TraceFormat | undefined): Promise<TraceLoad> {
  let size: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) throw new UserError(`${file} is not a file`);
    size = st.size;
  } catch (e) {
    if (e instanceof UserError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new UserError(`cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : (code ?? (e as Error).message)}`);
  }
  if (size === 0) throw new UserError(`${file}: the trace is empty`);
  let loader: TraceLoader | null = null;
  const waiting: string[] = []; // blank lines before the first one that tells the format
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      if (loader === null) {
        waiting.push(line);
        if (line.trim() === '') continue;
        loader = createTraceLoader(format ?? detectTraceFormat(line));
        for (const l of waiting.splice(0)) loader.push(l);
      } else loader.push(line);
    }
    if (loader === null) throw new TraceError('the trace is empty');
    return loader.finish();
  } catch (e) {
    if (e instanceof TraceError) throw new UserError(`${file}: ${e.message}`);
    throw e;
  }
}

async function main(argv: string[]): Promise<number> {
  const parsed = parseFlags(argv);
  if (parsed === null) return EXIT.ok;
  const { file, flags } = parsed;
  const load = await readTrace(file, flags.format);
  const out = renderLoadFindings(load, flags.format !== undefined);
  const columns = [{ title: 'trace', stats: traceStats(load.rows) }];
  const options: SelectOptions = {
    speed: flags.speed, startSeconds: flags.start, durationSeconds: flags.duration, maxRequests: flags.maxRequests,
  };
  if (Object.values(options).some((v) => v !== undefined)) {
    const selection = selectRows(load.rows, options);
    out.push(renderSelection(options, selection));
    columns.push({ title: 'selection', stats: traceStats(selection.rows) });
  }
  process.stdout.write(`${out.join('\n')}\n\n${renderStatsTable(columns)}\n`);
  const bad = load.badRows.reduce((n, i) => n + i.count, 0);
  if (bad > 0 && !flags.skipBadRows)
    throw new UserError(`${bad} bad row${bad === 1 ? '' : 's'} in ${file} (listed above); fix them or pass `
      + '--skip-bad-rows');
  return EXIT.ok;
}

runMain('trace-check', () => main(process.argv.slice(2)));
