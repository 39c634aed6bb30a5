// Counts skipped rows by kind, keeping the first line of each. Runs in k6 and Node (pure).

import type { RowIssue } from './types';

export class IssueTally {
  private readonly byMessage = new Map<string, { count: number; firstLine: number }>();

  add(message: string, line: number): void {
    const seen = this.byMessage.get(message);
    if (seen === undefined) this.byMessage.set(message, { count: 1, firstLine: line });
    else {
      seen.count++;
      // Rows may be checked out of file order (parent links are checked in time order): keep the earliest line.
      if (line < seen.firstLine) seen.firstLine = line;
    }
  }

  /** One entry per kind, in file order of first appearance. */
  list(): RowIssue[] {
    return [...this.byMessage].map(([message, s]) => ({ message, count: s.count, firstLine: s.firstLine }))
      .sort((a, b) => a.firstLine - b.firstLine);
  }
}
