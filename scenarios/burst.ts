// k6 entry script "burst": N requests at once for queue depths up to 256: when to scale up, and the max safe queue depth. Runs in k6 (bundled to dist/burst.js).

import type { Options } from 'k6/options';
import { createSuite, type SetupData } from '../lib/k6/suite';

const suite = createSuite('burst');

export const options: Options = suite.options as Options;

export function setup(): SetupData {
  return suite.setup();
}

export default async function (data: SetupData): Promise<void> {
  await suite.request(data);
}

export async function monitor(): Promise<void> {
  await suite.monitor();
}

export function handleSummary(data: unknown): Record<string, string> {
  return suite.handleSummary(data);
}
