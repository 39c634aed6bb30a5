// Globals k6 provides that @types/k6 leaves to the DOM library, which the k6 code must not see.
interface K6Console {
  log(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
  debug(...args: unknown[]): void;
}
declare const console: K6Console;
