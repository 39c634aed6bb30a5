// splitCsvLine: plain fields, RFC 4180 quoting, and the broken quoting that makes a bad row. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { splitCsvLine } from '../../lib/trace/csv';

describe('splitCsvLine', () => {
  it('splits plain fields, keeping empty ones and spaces', () => {
    expect(splitCsvLine('0,ChatGPT,472,18,490,Conversation log'))
      .toEqual(['0', 'ChatGPT', '472', '18', '490', 'Conversation log']);
    expect(splitCsvLine('a,,c,')).toEqual(['a', '', 'c', '']);
    expect(splitCsvLine('')).toEqual(['']);
  });

  it('reads quoted fields with commas and doubled quotes', () => {
    expect(splitCsvLine('"a,b",c')).toEqual(['a,b', 'c']);
    expect(splitCsvLine('x,"say ""hi""",')).toEqual(['x', 'say "hi"', '']);
    expect(splitCsvLine('"",""')).toEqual(['', '']);
    expect(splitCsvLine('1,"GPT-4"')).toEqual(['1', 'GPT-4']);
  });

  it('keeps a quote inside an unquoted field as text', () => {
    expect(splitCsvLine('5 "inch",2')).toEqual(['5 "inch"', '2']);
  });

  it('gives null for an unclosed quote or text after a closing quote', () => {
    expect(splitCsvLine('"abc,1')).toBeNull();
    expect(splitCsvLine('"ab"c,1')).toBeNull();
  });
});
