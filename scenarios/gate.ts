// k6 entry script "gate": A short fixed load with a use case's limits as thresholds, for pipelines: k6 exits 99 when
// they fail. Runs in k6 (bundled to dist/gate.js).

import { entryScript } from '../lib/k6/entry';

const script = entryScript('gate');

export const { options, setup, monitor, handleSummary } = script;
export default script.run;
