// k6 entry script "mix": Fixed input/output profiles (chatbot, RAG, agentic, tool calling and long-output variants) at rising concurrency. Runs in k6 (bundled to dist/mix.js).

import type { Options } from 'k6/options';
import { createSuite, type SetupData } from '../lib/k6/suite';

const suite = createSuite('mix');

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
