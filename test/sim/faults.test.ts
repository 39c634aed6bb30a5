// Unit tests of fault specs: parsing, errors, picking by probability, fault points. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { faultPoint, parseFaultSpec, pickFaults } from '../../sim/faults';

describe('parseFaultSpec', () => {
  it('parses kinds with parameters and defaults', () => {
    expect(parseFaultSpec('stall;ms=2000;after=3, no-done')).toEqual([
      { kind: 'stall', status: 500, afterTokens: 3, stallMs: 2000, probability: 1 },
      { kind: 'no-done', status: 500, afterTokens: null, stallMs: 2000, probability: 1 },
    ]);
    expect(parseFaultSpec('error-status;status=503;p=0.25')[0]).toMatchObject({
      kind: 'error-status', status: 503, probability: 0.25,
    });
    expect(parseFaultSpec('')).toEqual([]);
  });

  it('names what is wrong', () => {
    expect(() => parseFaultSpec('explode')).toThrow(/"explode" is not one of/);
    expect(() => parseFaultSpec('stall;ms')).toThrow(/key=number/);
    expect(() => parseFaultSpec('stall;speed=3')).toThrow(/unknown parameter "speed"/);
    expect(() => parseFaultSpec('error-status;status=200')).toThrow(/400\.\.599/);
    expect(() => parseFaultSpec('no-done;p=2')).toThrow(/0\.\.1/);
  });
});

describe('pickFaults and faultPoint', () => {
  it('draws server-wide faults by probability and always keeps header faults', () => {
    const server = parseFaultSpec('no-done;p=0.5,no-usage');
    const header = parseFaultSpec('stall');
    expect(pickFaults(server, header, () => 0.4).map((f) => f.kind)).toEqual(['no-done', 'no-usage', 'stall']);
    expect(pickFaults(server, header, () => 0.6).map((f) => f.kind)).toEqual(['no-usage', 'stall']);
  });

  it('resets half-way by default, other stream faults after the first token, capped at the content', () => {
    expect(faultPoint(parseFaultSpec('reset-mid-stream')[0]!, 10)).toBe(5);
    expect(faultPoint(parseFaultSpec('stall')[0]!, 10)).toBe(1);
    expect(faultPoint(parseFaultSpec('stall;after=50')[0]!, 10)).toBe(10);
  });
});
