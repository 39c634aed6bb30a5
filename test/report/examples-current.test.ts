// The committed example reports are what the current report code writes from their committed samples: a change to
// the report code that changes an example fails here until `npm run examples` remakes it (and the diff is reviewed).
// Runs in Node (vitest), on the real committed files.

import { describe, expect, it } from 'vitest';
import { checkExample, exampleNames, partsWithoutSamples } from '../../scripts/example-reports';

describe('committed example reports', () => {
  const names = exampleNames();

  it('are there, each with the samples of every part it ran', () => {
    expect(names.length).toBeGreaterThanOrEqual(5);
    expect(names.map((name) => [name, partsWithoutSamples(name)])).toEqual(names.map((name) => [name, []]));
  });

  it.each(names)('%s is what the report code renders from its samples', async (name) => {
    expect(await checkExample(name)).toEqual([]);
  }, 120_000);
});
