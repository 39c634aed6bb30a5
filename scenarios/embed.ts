// k6 entry script "embed": embeddings or rerank requests at each input length, batch size and concurrency. Runs in k6
// (bundled to dist/embed.js). Each cell has N users in a closed loop: send a batch, wait for its answer, send again.

import { entryScript } from '../lib/k6/entry';

const script = entryScript('embed');

export const { options, setup, monitor, teardown, handleSummary } = script;
export default script.run;
