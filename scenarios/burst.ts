// k6 entry script "burst": N requests at once for queue depths up to 256: when to scale up, and the max safe queue
// depth. Runs in k6 (bundled to dist/burst.js).

import { entryScript } from '../lib/k6/entry';

const script = entryScript('burst');

export const { options, setup, monitor, teardown, handleSummary } = script;
export default script.run;
