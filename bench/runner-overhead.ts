// Alias kept for `npm run bench:runner-overhead`: bench/engine-overhead.ts with only the local runner on k6/x/sse, writing its table into runner/README.md. Runs in Node.
//
// The method (simulator and client pinned to separate cores, ground-truth comparison) is described
// in bench/engine-overhead.ts, which measures every engine.
// Usage: npm run bench:runner-overhead [-- --levels 1,16,64 --tokens 300 --no-readme]
import { main } from './engine-overhead';

const argv = process.argv.slice(2);
const noReadme = argv.includes('--no-readme');
process.argv = [...process.argv.slice(0, 2), '--engines', 'runner-sse', '--no-build', ...(noReadme ? [] : ['--readme-block', 'runner-overhead']), ...argv.filter((a) => a !== '--no-readme')];
main().catch((e: unknown) => {
  process.stderr.write(`runner-overhead: ${(e as Error).message}\n`);
  process.exit(1);
});
