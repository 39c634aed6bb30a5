// The runner's error carrying an exit code; the codes are the project's one table (lib/exit-codes.ts, k6's numbers). Runs in Node.

import { EXIT, type ExitCode } from '../lib/exit-codes';

export { EXIT, type ExitCode };

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
