// k6's execution segments: parsing, each segment's share of a number, and the k6-operator's flags. Runs in k6 and Node.
//
// k6 splits a test across n processes by giving each an execution segment of a sequence
// (`--execution-segment=1/4:2/4 --execution-segment-sequence=0,1/4,2/4,3/4,1`). Each process works out
// its own share of every scenario's VUs without talking to the others. This is a port of that
// arithmetic (go.k6.io/k6 lib/execution_segment.go, v1.8.1: NewExecutionSegmentSequenceWrapper's
// striping and ScaleInt64), so the suite can say before a run which runner sends which requests,
// which runner holds the 1-VU monitor, and how many requests each runner's share of a plan is. Its
// figures are checked against shares k6's own code computed (test/fixtures/k6-segments/, written by
// k6 v1.8.1's ExecutionTuple.ScaleInt64 when the project still built k6; k6's arithmetic is unchanged since).

/** A rational number in lowest terms with a positive denominator (k6 uses big.Rat). */
export interface Ratio {
  readonly num: number;
  readonly den: number;
}

/** An execution segment (from, to], 0 <= from < to <= 1. */
export interface Segment {
  readonly from: Ratio;
  readonly to: Ratio;
}

/** Bad segment text: the message names the value and says what is allowed. */
export class SegmentError extends Error {
  override name = 'SegmentError';
}

function gcd(a: number, b: number): number {
  let x = Math.abs(a);
  let y = Math.abs(b);
  while (y !== 0) [x, y] = [y, x % y];
  return x;
}

function ratio(num: number, den: number): Ratio {
  const g = gcd(num, den) || 1;
  return { num: num / g, den: den / g };
}

const compare = (a: Ratio, b: Ratio): number => a.num * b.den - b.num * a.den;

/** k6's spelling of a ratio (big.Rat RatString): "0", "1", "1/2". */
export function ratioText(r: Ratio): string {
  return r.den === 1 ? String(r.num) : `${r.num}/${r.den}`;
}

/** A percentage ("25%"), decimal ("0.25") or fraction ("1/4"), as k6's stringToRat reads them. */
export function parseRatio(text: string): Ratio {
  const t = text.trim();
  let m = /^(\d+)%$/.exec(t);
  if (m) return ratio(Number(m[1]), 100);
  m = /^(\d+)\/(\d+)$/.exec(t);
  if (m && Number(m[2]) > 0) return ratio(Number(m[1]), Number(m[2]));
  m = /^(\d*)\.?(\d*)$/.exec(t);
  if (m && t !== '' && t !== '.') {
    const decimals = m[2]!.length;
    return ratio(Number(`${m[1] || '0'}${m[2]}`), 10 ** decimals);
  }
  throw new SegmentError(`"${text}" is not a valid percentage, decimal or fraction (e.g. 25%, 0.25, 1/4)`);
}

function segment(from: Ratio, to: Ratio, text: string): Segment {
  if (compare(from, to) >= 0 || compare(to, { num: 1, den: 1 }) > 0) {
    throw new SegmentError(`execution segment "${text}" must have 0 <= start < end <= 1`);
  }
  return { from, to };
}

/** "1/4:2/4", or one value "1/4" meaning 0:1/4 (k6's NewExecutionSegmentFromString). */
export function parseSegment(text: string): Segment {
  const [a, b] = text.includes(':') ? text.split(':', 2) : ['0', text === '' ? '1' : text];
  return segment(parseRatio(a!), parseRatio(b!), text);
}

/** "0,1/4,2/4,3/4,1": consecutive segments without gaps (k6's NewExecutionSegmentSequenceFromString). */
export function parseSequence(text: string): Segment[] {
  const points = text.split(',').map(parseRatio);
  if (points.length < 2) throw new SegmentError(`execution segment sequence "${text}" needs at least 2 points`);
  return points.slice(1).map((to, i) => segment(points[i]!, to, text));
}

export function segmentText(s: Segment): string {
  return `${ratioText(s.from)}:${ratioText(s.to)}`;
}

export function sequenceText(sequence: readonly Segment[]): string {
  return [sequence[0]!.from, ...sequence.map((s) => s.to)].map(ratioText).join(',');
}

/** The sequence k6 plans with: the given one, or [segment], filled out with the missing pieces to 0 and 1. */
export function filledSequence(sequence: readonly Segment[] | null, own: Segment | null): Segment[] {
  const zero = { num: 0, den: 1 };
  const one = { num: 1, den: 1 };
  const whole = (s: Segment): boolean => compare(s.from, zero) === 0 && compare(s.to, one) === 0;
  let result: Segment[];
  if (sequence && sequence.length > 0) result = [...sequence];
  else result = own && !whole(own) ? [own] : [{ from: zero, to: one }];
  if (compare(result[0]!.from, zero) !== 0) result.unshift({ from: zero, to: result[0]!.from });
  if (compare(result[result.length - 1]!.to, one) !== 0) result.push({ from: result[result.length - 1]!.to, to: one });
  return result;
}

/**
 * k6's striping of a full sequence (NewExecutionSegmentSequenceWrapper): of every `lcd` consecutive
 * indexes (VUs, iterations), which ones each segment takes, as its first index and the gaps to the next.
 */
export class StripedSequence {
  readonly lcd: number;
  private readonly offsets: number[][];

  constructor(readonly segments: readonly Segment[]) {
    const lengths = segments.map((s) => ratio(s.to.num * s.from.den - s.from.num * s.to.den, s.to.den * s.from.den));
    this.lcd = lengths.reduce((acc, l) => (acc * l.den) / gcd(acc, l.den), 1);
    const norm = lengths.map((l) => l.num * (this.lcd / l.den));
    // Biggest segments choose first; a stable sort keeps equal ones in sequence order, as Go's SliceStable does.
    const order = norm.map((n, i) => ({ n, i })).sort((a, b) => b.n - a.n);
    this.offsets = segments.map(() => []);
    const prev = segments.map(() => 0);
    const chosen = order.map(() => 0);
    for (let i = 0; i < this.lcd; i++) {
      for (let s = 0; s < order.length; s++) {
        const num = chosen[s]! * this.lcd;
        const denom = order[s]!.n;
        const q = Math.floor(num / denom);
        if (i > q || (i === q && num % denom === 0)) {
          chosen[s]!++;
          const index = order[s]!.i;
          const own = this.offsets[index]!;
          own.push(i - prev[index]!);
          prev[index] = i;
          if (own.length === denom) own.push(own[0]! + this.lcd - i);
          break;
        }
      }
    }
  }

  /** The share of `value` (VUs of a scenario) that segment `index` gets; the shares add up to `value`. */
  share(index: number, value: number): number {
    if (this.segments.length === 1) return value;
    const [start, ...gaps] = this.offsets[index]!;
    let result = Math.floor(value / this.lcd) * gaps.length;
    const rest = value % this.lcd;
    for (let gi = 0, i = start!; i < rest; i += gaps[gi]!, gi++) result++;
    return result;
  }
}

/** Where one k6 process stands in a split run: its 0-based index among `count` segments. */
export interface SegmentPosition {
  readonly index: number;
  readonly count: number;
  readonly segment: string;
  readonly sequence: string;
  readonly striped: StripedSequence;
}

/**
 * The position of a process run with `--execution-segment` / `--execution-segment-sequence` (either may
 * be missing or empty, as in a run without them: then index 0 of 1).
 */
export function segmentPosition(segmentArg: string | null, sequenceArg: string | null): SegmentPosition {
  const own = segmentArg ? parseSegment(segmentArg) : null;
  const full = filledSequence(sequenceArg ? parseSequence(sequenceArg) : null, own);
  const wanted = own ?? full[0]!;
  const index = full.findIndex((s) => compare(s.from, wanted.from) === 0 && compare(s.to, wanted.to) === 0);
  if (index < 0) {
    throw new SegmentError(`execution segment "${segmentArg}" is not one of the sequence "${sequenceText(full)}"`);
  }
  const striped = new StripedSequence(full);
  return { index, count: full.length, segment: segmentText(full[index]!), sequence: sequenceText(full), striped };
}

/**
 * The k6-operator's flags for runner `i` of `n` (1-based), as its segmentation.NewCommandFragments
 * writes them: unreduced fractions, "0" and "1" at the edges (n = 4, i = 2: 1/4:2/4 in 0,1/4,2/4,3/4,1).
 */
export function operatorSegmentFlags(i: number, n: number): string[] {
  if (!(Number.isInteger(n) && n >= 1 && Number.isInteger(i) && i >= 1 && i <= n)) {
    throw new SegmentError(`runner ${i} of ${n}: need whole numbers with 1 <= runner <= runners`);
  }
  const point = (k: number): string => (k === 0 ? '0' : k === n ? '1' : `${k}/${n}`);
  const sequence = Array.from({ length: n + 1 }, (_, k) => point(k)).join(',');
  return [`--execution-segment=${point(i - 1)}:${point(i)}`, `--execution-segment-sequence=${sequence}`];
}
