// k6 entry script "gate": a short load gated by a use case's limits. Runs in k6 (bundled to dist/gate.js).
// The load is fixed and the limits are its thresholds. For pipelines: k6 exits 99 when they fail.

import { entryScript } from '../lib/k6/entry';

const script = entryScript('gate');

export const { options, setup, monitor, teardown, handleSummary } = script;
export default script.run;
