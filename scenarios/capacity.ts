// k6 entry script "capacity": finds each use case's capacity. Runs in k6 (bundled to dist/capacity.js).
// Per use case, steps of N users held in steady state (warm-up excluded) up to where a limit breaks, so the report can
// state each capacity limit.

import { entryScript } from '../lib/k6/entry';

const script = entryScript('capacity');

export const { options, setup, monitor, teardown, handleSummary } = script;
export default script.run;
