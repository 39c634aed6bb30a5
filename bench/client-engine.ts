// The client side every benchmark prepares the same way: the bundles and the agent built when asked, then the k6 to
// run them on (K6_BIN, PATH, else the cached upstream build). Runs in Node.

import { ensureAgent } from '../orchestrator/agent-build';
import { buildBundles } from '../orchestrator/bundles';
import { chooseEngine, type Engine } from '../orchestrator/engine';

/** `tool` prefixes each progress line on stderr ("soak: building..."). */
export async function prepareClient(tool: string, build: boolean): Promise<Engine> {
  const log = (line: string): void => void process.stderr.write(`${tool}: ${line}\n`);
  if (build) {
    log('building the bundles and the agent...');
    await buildBundles();
    await ensureAgent(log);
  }
  return chooseEngine(log);
}
