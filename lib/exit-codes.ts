// Exit codes of the suite's Node commands, one table; the k6 ones match k6's errext/exitcodes.
// Runs in k6 and Node (constants only).

export const EXIT = {
  ok: 0,
  /** Something unexpected failed (a bug): the message says what. */
  internal: 1,
  /** Bad command-line usage: unknown flag, missing argument. */
  usage: 2,
  /** Bad input: a plan, results folder or file that cannot be read or is invalid. */
  badInput: 3,
  /** The target could not be reached or the simulator could not start. */
  unreachable: 4,
  /** A deploy gate failed: thresholds crossed (as k6), or a baseline comparison found a regression. */
  thresholdsFailed: 99,
  /** k6: setup() / teardown() ran past their timeout. */
  setupTimeout: 100,
  teardownTimeout: 101,
  /** k6: invalid configuration (bad threshold expression, unknown metric). */
  invalidConfig: 104,
  /** k6: interrupted by SIGINT/SIGTERM; what was measured is kept. */
  interrupted: 105,
  /** k6: a script exception aborted the run (init or setup). */
  scriptError: 107,
  /** k6: exec.test.abort() was called. */
  scriptAborted: 108,
  /** k6: exec.test.fail() was called; the run went on to the end. */
  testFailed: 110,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error the user can fix; entry points print its message as one line and exit with its code. */
export class UserError extends Error {
  constructor(message: string, readonly exitCode: ExitCode = EXIT.badInput) {
    super(message);
    this.name = 'UserError';
  }
}
