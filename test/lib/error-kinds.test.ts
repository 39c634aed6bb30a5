// The lists the TypeScript side shares with the measuring agent, held equal to what the real agent says of
// itself on GET /. Runs in Node (vitest).
//
// The agent (agent/kinds.go) classifies failures and cuts error messages; the scripts, the report and the
// dashboards read its error_kind tags and its messages with lib/record.ts ERROR_KINDS and lib/metrics.ts
// ERROR_MESSAGE_MAX. A kind added on one side only would be a tag nothing reads, or a kind never seen.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_MESSAGE_MAX } from '../../lib/metrics';
import { ERROR_KINDS } from '../../lib/record';
import type { AgentProcess } from '../../orchestrator/agent-process';
import { startTestAgent } from '../e2e/helpers';

interface About {
  readonly agent: string;
  readonly version: string;
  readonly errorKinds: readonly string[];
  readonly errorMessageMax: number;
  readonly kernelTimestamps: boolean;
  readonly goVersion: string;
}

let agent: AgentProcess;
let about: About;

beforeAll(async () => {
  // Built first when its sources changed (npm test builds it beforehand with npm run agent:build).
  agent = await startTestAgent();
  const res = await fetch(`${agent.url}/`);
  expect(res.status).toBe(200);
  about = (await res.json()) as About;
}, 300_000);

afterAll(async () => {
  await agent?.stop();
});

describe("the agent's GET / and the TypeScript side", () => {
  it('is the measuring agent', () => {
    expect(about.agent).toBe('k6-llm-capacity-agent');
    expect(about.version).toMatch(/^\d+$/);
    expect(about.goVersion).toMatch(/^go\d/);
    expect(typeof about.kernelTimestamps).toBe('boolean');
  });

  it('lists the error kinds of lib/record.ts ERROR_KINDS, in the same order', () => {
    expect(about.errorKinds).toEqual([...ERROR_KINDS]);
  });

  it('cuts error messages at lib/metrics.ts ERROR_MESSAGE_MAX characters', () => {
    expect(about.errorMessageMax).toBe(ERROR_MESSAGE_MAX);
  });
});
