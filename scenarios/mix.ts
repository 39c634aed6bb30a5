// k6 entry script "mix": Fixed input/output profiles (chatbot, RAG, agentic, tool calling and long-output variants) at
// rising concurrency. Runs in k6 (bundled to dist/mix.js).

import { entryScript } from '../lib/k6/entry';

const script = entryScript('mix');

export const { options, setup, monitor, handleSummary } = script;
export default script.run;
