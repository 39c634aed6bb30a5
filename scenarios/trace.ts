// k6 entry script "trace": a production trace replayed at each speed, every row at its own time, input and output
// length, its prompt's blocks shared where the trace's hash ids are. Runs in k6 (bundled to dist/trace.js).
// One VU per cell sends the rows (lib/k6/open-loop.ts), as the rate script sends its arrivals.

import { entryScript } from '../lib/k6/entry';

const script = entryScript('trace');

export const { options, setup, monitor, teardown, handleSummary } = script;
export default script.run;
