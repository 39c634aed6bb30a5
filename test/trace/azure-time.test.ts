// parseAzureTimestamp: Azure's seven fractional digits, offsets, and the texts that are not date-times.
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { parseAzureTimestamp } from '../../lib/trace/azure-time';

const second = (iso: string): number => Date.parse(iso);

describe('parseAzureTimestamp', () => {
  it('reads the 2023 trace form with 100 ns digits, as UTC', () => {
    const t = parseAzureTimestamp('2023-11-16 18:15:46.6805900')!;
    expect(t.secondMs).toBe(second('2023-11-16T18:15:46Z'));
    expect(t.fractionMs).toBeCloseTo(680.59, 9);
  });

  it('reads fewer digits, none, a T, and an offset', () => {
    const midnight = second('2024-05-10T00:00:00Z');
    expect(parseAzureTimestamp('2024-05-10 00:00:00')).toEqual({ secondMs: midnight, fractionMs: 0 });
    expect(parseAzureTimestamp('2024-05-10T00:00:01.5')!.fractionMs).toBe(500);
    expect(parseAzureTimestamp('2024-05-10 02:00:00.25+02:00')).toEqual({ secondMs: midnight, fractionMs: 250 });
    expect(parseAzureTimestamp('2024-05-09 21:30:00-0230')!.secondMs).toBe(midnight);
    expect(parseAzureTimestamp('2024-05-10 00:00:00Z')!.secondMs).toBe(midnight);
    expect(parseAzureTimestamp(' 2024-05-10 00:00:00 ')!.secondMs).toBe(midnight);
  });

  it.each(['', '18:15:46', '2023-11-16', '2023-02-30 00:00:00', '2023-13-01 00:00:00', '2023-11-16 24:00:00',
    '2023-11-16 18:60:00', '16/11/2023 18:15:46', '2023-11-16 18:15:46.', 'nan'])('rejects %j', (text) => {
    expect(parseAzureTimestamp(text)).toBeNull();
  });
});
