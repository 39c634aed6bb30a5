// k6 entry script "sweep": The context x concurrency grid of the reports: N simultaneous users per cell, several rounds each. Runs in k6 (bundled to dist/sweep.js).

import type { Options } from 'k6/options';
import { createSuite, type SetupData } from '../lib/k6/suite';

const suite = createSuite('sweep');

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
