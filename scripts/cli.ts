// Shared plumbing of the Node command-line entry points: one-line errors, exit codes from one table. Runs in Node.

import { InvalidArgumentError, type Command } from 'commander';
import { EXIT, UserError, type ExitCode } from '../lib/exit-codes';
import { PlanError } from '../lib/plan';
import { parseCountList } from '../lib/env';

export { UserError };

/** The one line printed for an error: the message's first line, never a stack trace. */
export function errorLine(command: string, e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  return `${command}: ${message.split('\n')[0]}`;
}

export function exitCodeOf(e: unknown): ExitCode {
  if (e instanceof UserError) return e.exitCode;
  if (e instanceof PlanError) return EXIT.badInput;
  if (e instanceof Error && (e as { code?: string }).code === 'commander.error') return EXIT.usage;
  return EXIT.internal;
}

/** Runs a command's main function; errors become one line on stderr and an exit code. */
export function runMain(command: string, main: () => Promise<number | void>): void {
  main().then(
    (code) => {
      process.exitCode = code ?? EXIT.ok;
    },
    (e: unknown) => {
      process.stderr.write(errorLine(command, e) + '\n');
      process.exitCode = exitCodeOf(e);
    },
  );
}

/**
 * Parses the command line with a commander program made with exitOverride(): false when it printed its help or
 * version (the command is done), a usage error as a one-line UserError.
 */
export function parseCommandLine(program: Command): boolean {
  try {
    program.parse();
    return true;
  } catch (e) {
    const err = e as { code?: string; message: string };
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return false;
    throw new UserError(err.message.replace(/^error: /, ''), EXIT.usage);
  }
}

/** Parses "1024,8k,1.5k" into token counts, as CONTEXTS does in k6 (lib/env.ts). */
export function parseTokenList(value: string, flag: string): number[] {
  try {
    return parseCountList(value, flag);
  } catch (e) {
    throw new UserError((e as Error).message, EXIT.usage);
  }
}

/** A commander argument parser for a number that `ok` accepts; a refused value names the flag and what it wants. */
export function numberArg(flag: string, ok: (n: number) => boolean, want: string) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !ok(n)) throw new InvalidArgumentError(`${flag} must be ${want}, got "${value}"`);
    return n;
  };
}

/** A commander argument parser for a comma-separated list of numbers that `ok` accepts each. */
export function numberListArg(flag: string, ok: (n: number) => boolean, want: string) {
  const one = numberArg(flag, ok, want);
  return (value: string): number[] => value.split(',').map((part) => one(part.trim()));
}

export const positive = (n: number): boolean => n > 0 && isFinite(n);
