// k6 entry script "sweep": The context x concurrency grid of the reports: N simultaneous users per cell, several rounds
// each. Runs in k6 (bundled to dist/sweep.js).

import { entryScript } from '../lib/k6/entry';

const script = entryScript('sweep');

export const { options, setup, monitor, handleSummary } = script;
export default script.run;
