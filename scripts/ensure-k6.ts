// `npm run k6:ensure`: finds the k6 the bench would run (K6_BIN, else a k6 on PATH, else the cached upstream build),
// building upstream k6 into the cache first when there is none; prints its path, then its `k6 version` line.
// Runs in Node.

import { Command } from 'commander';
import { EXIT } from '../lib/exit-codes';
import { chooseEngine } from '../orchestrator/engine';
import { K6_VERSION, upstreamK6Path } from '../orchestrator/k6-install';
import { parseCommandLine, runMain } from './cli';

runMain('k6:ensure', async () => {
  const program = new Command('k6:ensure')
    .description(
      'Find a k6 >= 1.0 (K6_BIN, else PATH, else the cached upstream build) or build upstream k6 ' +
      `${K6_VERSION} into ${upstreamK6Path()} with go install; print its path and version.`,
    )
    .exitOverride()
    .configureOutput({ writeErr: () => undefined });
  if (!parseCommandLine(program)) return EXIT.ok;
  const engine = await chooseEngine((line) => process.stderr.write(line + '\n'));
  process.stdout.write(`${engine.command[0]}\n${engine.version}\n`);
  process.stderr.write(`k6:ensure: found via ${engine.source}\n`);
  return EXIT.ok;
});
