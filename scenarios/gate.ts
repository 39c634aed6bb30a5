// k6 entry script "gate": A short fixed load with a use case's limits as thresholds, for pipelines: k6 exits 99 when they fail. Runs in k6 (bundled to dist/gate.js).

import type { Options } from 'k6/options';
import { createSuite, type SetupData } from '../lib/k6/suite';

const suite = createSuite('gate');

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
