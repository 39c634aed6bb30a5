// k6 entry script "rate": each use case at each offered rate, requests arriving on their own clock (open loop).
// Runs in k6 (bundled to dist/rate.js). One VU per cell sends its seeded arrival schedule (lib/k6/open-loop.ts).

import { entryScript } from '../lib/k6/entry';

const script = entryScript('rate');

export const { options, setup, monitor, teardown, handleSummary } = script;
export default script.run;
