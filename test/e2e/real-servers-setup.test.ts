import { describe, expect, it } from 'vitest';
import { selectedServers } from './real-servers-setup';

const NAMES = ['vllm', 'sglang'];
const VITEST = ['/usr/bin/node', '/clone/node_modules/vitest/vitest.mjs', 'run'];

describe('the real servers the run starts as it begins', () => {
  it('are all of them for a run of the whole suite, its reporter options not taken for filters', () => {
    expect(selectedServers([...VITEST], NAMES)).toEqual(NAMES);
    expect(selectedServers([...VITEST, '--reporter=default', '--outputFile.json=out.json'], NAMES)).toEqual(NAMES);
  });

  it("are those whose file a filter names, as vitest matches a filter against a file's path", () => {
    expect(selectedServers([...VITEST, 'test/e2e/vllm-server.test.ts'], NAMES)).toEqual(['vllm']);
    expect(selectedServers([...VITEST, 'sglang'], NAMES)).toEqual(['sglang']);
    expect(selectedServers([...VITEST, 'e2e/'], NAMES)).toEqual(NAMES);
    expect(selectedServers([...VITEST, 'test/report'], NAMES)).toEqual([]);
  });
});
