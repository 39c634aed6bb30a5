// The agentic generator and its cache arithmetic: seeded sessions drawn exactly, ideal cache hits, compaction, size
// classes, and tools folded into the chat template. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import {
  contextClass, idealCachedTokens, loopCalls, needsCompaction, planSession, toolWaitMs,
} from '../../lib/agentic';
import { foldTools, renderChatMl, type ApiMessage, type ToolSpec } from '../../lib/chat-template';
import { mulberry32 } from '../../lib/random';
import { DEFAULT_AGENT, type AgentModel } from '../../thresholds/agentic';

/** Hands out the listed draws in order and fails the test when the generator asks for more. */
function scripted(draws: readonly number[]): () => number {
  let i = 0;
  return () => {
    if (i >= draws.length) throw new Error(`draw ${i + 1} asked for, only ${draws.length} scripted`);
    return draws[i++]!;
  };
}

const model: AgentModel = {
  ...DEFAULT_AGENT,
  turns: 1,
  toolLoopDepth: { min: 1, max: 2 },
  parallelToolCalls: { min: 1, max: 3 },
  tools: 4,
  toolLatency: { distribution: 'constant', seconds: 0.5 },
  thinkTime: { distribution: 'constant', seconds: 2 },
  subAgents: { probability: 0.5, count: { min: 2, max: 2 }, toolLoopDepth: { min: 1, max: 1 } },
};

describe('planSession', () => {
  it('draws a session exactly from its draws: depth, fan-out, parallel tools, sub-agents', () => {
    // Worked by hand: depth 1 + floor(0.7 x 2) = 2; step 1 spawns nothing (0.9 >= 0.5), calls 1 + floor(0.5 x 3) =
    // 2 of tools floor(0.1 x 3) = 0 and floor(0.99 x 3) = 2; step 2 spawns (0.2 < 0.5) 2 + floor(0.3 x 1) = 2
    // sub-agents of the last tool, one of one call to tool 1, one of three calls to tools 0, 1, 2.
    const draws = [0.7, 0.9, 0.5, 0.1, 0.99, 0.2, 0.3, 0.4, 0.1, 0, 0.5, 0.6, 0.1, 0.7, 0, 0.34, 0.67];
    const tool = (t: number) => ({ tool: t, latencyMs: 500, subAgent: null });
    expect(planSession(model, scripted(draws))).toEqual({
      turns: [{
        loop: {
          steps: [
            [tool(0), tool(2)],
            [
              { tool: 3, latencyMs: 0, subAgent: { steps: [[tool(1)]] } },
              { tool: 3, latencyMs: 0, subAgent: { steps: [[tool(0), tool(1), tool(2)]] } },
            ],
          ],
        },
        thinkMs: 2000,
      }],
    });
  });

  it('counts the model calls of a loop, its sub-agents included, and waits for the slowest tool', () => {
    const session = planSession(model, scripted([0.7, 0.9, 0.5, 0.1, 0.99, 0.2, 0.3, 0.4, 0.1, 0, 0.5, 0.6, 0.1, 0.7,
      0, 0.34, 0.67]));
    // Two tool-calling calls and the answer, and two sub-agents of a call and an answer each.
    expect(loopCalls(session.turns[0]!.loop)).toBe(7);
    expect(toolWaitMs([{ tool: 0, latencyMs: 120, subAgent: null }, { tool: 1, latencyMs: 450, subAgent: null }]))
      .toBe(450);
  });

  it('gives the same sessions for the same seed and others for another', () => {
    const a = planSession(DEFAULT_AGENT, mulberry32(42));
    expect(planSession(DEFAULT_AGENT, mulberry32(42))).toEqual(a);
    expect(planSession(DEFAULT_AGENT, mulberry32(43))).not.toEqual(a);
    expect(a.turns).toHaveLength(DEFAULT_AGENT.turns);
  });
});

describe('idealCachedTokens', () => {
  const fresh = { freshTokens: 32, messageTokens: 8, cold: false };
  it('serves a continued conversation its previous prompt and answer', () => {
    expect(idealCachedTokens(1200, { inputTokens: 1000, outputTokens: 100 }, fresh)).toBe(1100);
    // Never more than the prompt itself.
    expect(idealCachedTokens(1050, { inputTokens: 1000, outputTokens: 100 }, fresh)).toBe(1050);
  });

  it('serves a new conversation the shared prefix, and the cold first request nothing', () => {
    expect(idealCachedTokens(909, null, fresh)).toBe(869);
    expect(idealCachedTokens(909, null, { ...fresh, cold: true })).toBe(0);
  });
});

describe('needsCompaction and contextClass', () => {
  it('compacts once the last call reached the limit', () => {
    expect(needsCompaction(model, { inputTokens: 32_668, outputTokens: 100 })).toBe(true);
    expect(needsCompaction(model, { inputTokens: 32_667, outputTokens: 100 })).toBe(false);
    expect(needsCompaction(model, null)).toBe(false);
    expect(needsCompaction({ compaction: null }, { inputTokens: 1e6, outputTokens: 1 })).toBe(false);
  });

  it('classes prompts by the power of two at or above them', () => {
    expect([1, 1024, 1025, 5000, 131_072].map(contextClass)).toEqual(['1k', '1k', '2k', '8k', '128k']);
  });
});

describe('foldTools', () => {
  const tools: ToolSpec[] = [{ type: 'function', function: { name: 'grep', description: 'd', parameters: {} } }];
  const call = { id: 'c1', type: 'function' as const, function: { name: 'grep', arguments: '{"input":"x"}' } };
  const messages: ApiMessage[] = [
    { role: 'system', content: 'S' },
    { role: 'user', content: 'U' },
    { role: 'assistant', content: 'A', tool_calls: [call, { ...call, id: 'c2' }] },
    { role: 'tool', tool_call_id: 'c1', content: 'R1' },
    { role: 'tool', tool_call_id: 'c2', content: 'R2' },
  ];

  it("writes the catalog, the calls and the results as Qwen3's template does", () => {
    const callText = '<tool_call>\n{"name": "grep", "arguments": {"input":"x"}}\n</tool_call>';
    expect(renderChatMl(foldTools(messages, tools))).toBe(
      '<|im_start|>system\nS\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
      'You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n' +
      JSON.stringify(tools[0]) + '\n</tools>\n\nFor each function call, return a json object with function name and ' +
      'arguments within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": ' +
      '<args-json-object>}\n</tool_call><|im_end|>\n' +
      '<|im_start|>user\nU<|im_end|>\n' +
      `<|im_start|>assistant\nA\n${callText}\n${callText}<|im_end|>\n` +
      '<|im_start|>user\n<tool_response>\nR1\n</tool_response>\n<tool_response>\nR2\n</tool_response><|im_end|>\n' +
      '<|im_start|>assistant\n',
    );
  });

  it('leaves messages without tools as they are', () => {
    const plain: ApiMessage[] = [{ role: 'user', content: 'U' }];
    expect(foldTools(plain, null)).toEqual(plain);
  });
});
