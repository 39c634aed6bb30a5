// k6 entry script "sessions": how many people a use case serves, not how many requests. Runs in k6 (bundled to
// dist/sessions.js). Per use case, steps of N active users, each running conversations back to back: the whole history
// plus a new message every turn, a think time between turns (thresholds/sessions.ts, plan field sessions).

import { entryScript } from '../lib/k6/entry';

const script = entryScript('sessions');

export const { options, setup, monitor, handleSummary } = script;
export default script.run;
