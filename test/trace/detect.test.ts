// detectTraceFormat: each format from its first line, and the one-line errors for anything else. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { detectTraceFormat, TraceError } from '../../lib/trace/index';

describe('detectTraceFormat', () => {
  it.each([
    ['{"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": [1]}', 'mooncake'],
    ['{"timestamp": 0, "input_length": 10, "output_length": 5}', 'mooncake'],
    ['{"chat_id": 1, "parent_chat_id": -1, "timestamp": 0.5, "input_length": 10, "output_length": 5}', 'bailian'],
    ['TIMESTAMP,ContextTokens,GeneratedTokens', 'azure'],
    ['TIMESTAMP,ContextTokens,GeneratedTokens,NumImages', 'azure'],
    ['\uFEFFtimestamp, contexttokens, generatedtokens\r', 'azure'],
    ['Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type', 'burstgpt'],
    ['Timestamp,Session ID,Elapsed time,Model,Request tokens,Response tokens,Total tokens,Log Type', 'burstgpt'],
  ])('%s -> %s', (first, format) => {
    expect(detectTraceFormat(`${first}\nwhatever follows`)).toBe(format);
  });

  it('skips leading blank lines', () => {
    expect(detectTraceFormat('\n  \r\nTIMESTAMP,ContextTokens,GeneratedTokens\n')).toBe('azure');
  });

  it.each([
    ['', 'the trace is empty'],
    ['\n \n', 'the trace is empty'],
    ['{"timestamp": 0,', 'unknown trace format: the first line starts with "{" but is not JSON'],
    ['{"id": 1, "conversations": []}', 'unknown trace format: the first JSON row has keys id, conversations'],
    ['time,prompt,completion', 'unknown trace format: the first line is neither a JSON object nor a known CSV header'],
  ])('%j is a TraceError: %s', (text, message) => {
    let error: unknown;
    try {
      detectTraceFormat(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TraceError);
    expect((error as Error).message.startsWith(message)).toBe(true);
    expect((error as Error).message).not.toContain('\n');
  });
});
