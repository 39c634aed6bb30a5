// k6 entry script "mix": fixed input/output profiles at rising concurrency. Runs in k6 (bundled to dist/mix.js).
// The profiles are chatbot, RAG, agentic, tool calling and long-output variants.

import { entryScript } from '../lib/k6/entry';

const script = entryScript('mix');

export const { options, setup, monitor, teardown, handleSummary } = script;
export default script.run;
