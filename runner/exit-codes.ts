// The runner's exit codes, one table, the same numbers k6 uses (errext/exitcodes/codes.go). Runs in Node.

export const EXIT = {
  ok: 0,
  thresholdsFailed: 99,
  setupTimeout: 100,
  teardownTimeout: 101,
  invalidConfig: 104,
  externalAbort: 105,
  scriptException: 107,
  scriptAborted: 108,
  testFailed: 110,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error that carries the exit code the process must end with; the CLI prints its message on one line. */
export class RunnerError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message);
    this.name = 'RunnerError';
  }
}
