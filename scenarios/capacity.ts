// k6 entry script "capacity": Per use case, rising concurrency until the limits break, so the report can state each capacity limit. Runs in k6 (bundled to dist/capacity.js).

import type { Options } from 'k6/options';
import { createSuite, type SetupData } from '../lib/k6/suite';

const suite = createSuite('capacity');

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
