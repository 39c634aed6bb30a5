// What the report says about a part split across k6 processes: how it was merged, small cells, missing runners.
// Runs in Node (pure).

import type { Cell } from '../lib/plan';
import type { PartInput } from './inputs';
import type { SamplesData } from './read-samples';
import { plural } from './format';

/**
 * Cells with fewer users than runners: k6 gives each of their users to one of the first runners, the rest have none.
 */
function smallCells(cells: readonly Cell[], runners: number): string | null {
  const small = cells.filter((cell) => cell.concurrency < runners);
  if (small.length === 0) return null;
  const listed = small.slice(0, 6).map((cell) => `${cell.id} (${plural(cell.concurrency, 'user')})`).join(', ');
  const more = small.length > 6 ? `, … (${small.length - 6} more)` : '';
  return `${plural(small.length, 'cell')} had fewer users than runners and ran on the first runners only, ` +
    `one user each: ${listed}${more}.`;
}

/**
 * What a split part's merge leaves to say: run notes (how it was merged, cells with fewer users than runners) and
 * problems (each runner that is missing or did not finish: its share of the cells is missing).
 */
export function splitNotes(part: PartInput, data: SamplesData): { notes: string[]; problems: string[] } {
  if (!part.split || !data.split) return { notes: [], problems: [] };
  const { runners, merged, problems } = data.split;
  const notes = [
    `${part.name} ran split across ${plural(runners, 'k6 process', 'k6 processes')} (execution segments); ` +
      `${merged} of ${runners} runners' samples are merged, every figure is computed over their union, and k6's ` +
      `thresholds are judged again on the merged samples.`,
  ];
  const small = smallCells(part.plan.cells, runners);
  if (small) notes.push(`${part.name}: ${small}`);
  return { notes, problems: problems.map((problem) => `${part.name}: ${problem}.`) };
}
