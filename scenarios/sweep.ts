// k6 entry script "sweep": the context x concurrency grid of the reports. Runs in k6 (bundled to dist/sweep.js).
// Each cell has N simultaneous users, several rounds each.

import { entryScript } from '../lib/k6/entry';

const script = entryScript('sweep');

export const { options, setup, monitor, teardown, handleSummary } = script;
export default script.run;
