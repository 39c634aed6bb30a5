// CLI: npm run report -- results/<run-id> [--baseline <run>] [--gate] — turns a run's k6 output into the capacity
// report. Runs in Node.
//
// Thin by design: parse flags into typed options, call report/generate.ts, print one line per
// outcome. Errors are one line on stderr with an exit code from lib/exit-codes.ts, never a stack trace.

import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { EXIT } from '../lib/exit-codes';
import { runMain } from './cli';
import { generateReport } from '../report/generate';
import { DEFAULT_REPORT_OPTIONS } from '../report/build-report';
import { gateFailures } from '../report/gate-verdict';
import { LATENCY_FROM, type LatencyFrom } from '../analysis/rate-capacity';

function number(name: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !isFinite(n) || n < min || n > max)
      throw new InvalidArgumentError(`${name} must be a number between ${min} and ${max}, got "${value}"`);
    return n;
  };
}

/** Which TTFT and e2e an open-loop cell's limits read (analysis/rate-capacity.ts). */
function rateLatencyOption(): Option {
  return new Option(
    '--rate-latency-from <from>',
    "which TTFT and e2e a rate or trace cell's limits read: intended (from the schedule's send time) or sent",
  ).choices(LATENCY_FROM).default('intended');
}

async function main(argv: string[]): Promise<number> {
  const program = new Command()
    .name('report')
    .description(
      'Build report.md, report.html, report.json, cells.csv, capacity.csv and charts/*.svg from a run folder',
    )
    .argument(
      '<run...>',
      'run folder (results/<run-id>), one of its part folders, or the folders of a split run\'s k6 runners (merged)',
    )
    .option('--baseline <run>', 'compare with a baseline run; exit 99 when a capacity or gated metric regresses')
    .option(
      '--tolerance <percent>', 'regression tolerance for --baseline, in percent', number('--tolerance', 0, 1000), 10,
    )
    .option(
      '--usd-per-kwh <usd>', 'electricity price for cost figures', number('--usd-per-kwh', 0, 1000),
      DEFAULT_REPORT_OPTIONS.usdPerKwh,
    )
    .option(
      '--usd-per-gpu-hour <usd>', 'GPU price per hour for cost figures', number('--usd-per-gpu-hour', 0, 100000),
      DEFAULT_REPORT_OPTIONS.usdPerGpuHour,
    )
    .option(
      '--gpus <count>', 'GPUs serving the model (multiplies the GPU-hour price)', number('--gpus', 1, 100000),
      DEFAULT_REPORT_OPTIONS.gpuCount,
    )
    .option(
      '--min-success-rate <percent>', 'success rate a capacity step needs, in percent (0 to disable)',
      number('--min-success-rate', 0, 100), (DEFAULT_REPORT_OPTIONS.minSuccessRate ?? 0) * 100,
    )
    .addOption(rateLatencyOption())
    .option('--out <dir>', 'write the report here instead of into the run folder')
    .option(
      '--gate',
      "exit 99 when a deploy gate or a k6 threshold fails, judged on all the samples (a split run's runners each saw " +
      "a share)",
    )
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s.split('\n').find((l) => l.trim() !== '') + '\n') })
    .showHelpAfterError(false);
  try {
    program.parse(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? EXIT.ok : EXIT.usage;
    throw e;
  }
  const o = program.opts<{
    baseline?: string; tolerance: number; usdPerKwh: number; usdPerGpuHour: number; gpus: number;
    minSuccessRate: number; out?: string; gate?: boolean; rateLatencyFrom: LatencyFrom;
  }>();
  const result = await generateReport(program.args, {
    usdPerKwh: o.usdPerKwh,
    usdPerGpuHour: o.usdPerGpuHour,
    gpuCount: Math.round(o.gpus),
    minSuccessRate: o.minSuccessRate > 0 ? o.minSuccessRate / 100 : null,
    rateLatencyFrom: o.rateLatencyFrom,
    baseline: o.baseline ?? null,
    tolerance: o.tolerance / 100,
    outDir: o.out ?? null,
  });
  const r = result.report;
  process.stderr.write(
    `report: ${r.cells.filter((c) => c.requests > 0).length} cells, ${r.useCases.length} use ` +
    `case${r.useCases.length === 1 ? '' : 's'} -> ${result.outDir}/report.md (+ ${result.files.length - 1} files)\n`,
  );
  if (result.comparison?.gatedRegression) {
    process.stderr.write(
      `report: ${result.comparison.regressions.length} regression(s) against the baseline: ` +
      `${result.comparison.regressions[0]}\n`,
    );
    return EXIT.thresholdsFailed;
  }
  const failures = o.gate ? gateFailures(r) : [];
  if (failures.length > 0) {
    process.stderr.write(`report: gate failed: ${failures.length} failure(s): ${failures.slice(0, 3).join('; ')}\n`);
    return EXIT.thresholdsFailed;
  }
  if (o.gate) process.stderr.write('report: gate passed\n');
  return EXIT.ok;
}

runMain('report', () => main(process.argv.slice(2)));
