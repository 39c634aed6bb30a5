// k6 entry script "agentic": how many concurrent coding agents a deployment serves per SLO tier. Runs in k6 (bundled
// to dist/agentic.js). Steps of N agents, each running seeded sessions of tool loops, parallel tool calls and
// sub-agents over the chat API, every request built from the previous answer (plan field agentic,
// docs/guides/agentic.md).

import { entryScript } from '../lib/k6/entry';

const script = entryScript('agentic');

export const { options, setup, monitor, handleSummary } = script;
export default script.run;
