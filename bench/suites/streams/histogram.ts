/**
 * A histogram of delays in ms that a client process fills and the bench merges: fixed buckets, so
 * that a million samples cost a few hundred kB once and travel as a short sparse list.
 */

/** Bucket width under {@link FINE_LIMIT_MS}: 0.01 ms, finer than any delay worth telling apart. */
const FINE_MS = 0.01;
/** Up to here buckets are {@link FINE_MS} wide; above, 1 ms wide. */
const FINE_LIMIT_MS = 100;
const FINE_BUCKETS = Math.round(FINE_LIMIT_MS / FINE_MS);
/** Delays above this land in the last bucket (its true value is kept by `max`). */
const COARSE_LIMIT_MS = 120_000;
const BUCKETS = FINE_BUCKETS + (COARSE_LIMIT_MS - FINE_LIMIT_MS) + 1;

/** A histogram as it crosses the process boundary (JSON). */
export interface HistogramData {
  /** `[bucket, count]` pairs of the non-empty buckets. */
  buckets: [number, number][];
  count: number;
  sum: number;
  min: number;
  max: number;
  /** Samples below 0 (clocks of two processes disagreeing), counted in the first bucket. */
  negative: number;
}

function bucketOf(ms: number): number {
  if (ms < FINE_LIMIT_MS) return ms <= 0 ? 0 : Math.floor(ms / FINE_MS);
  return Math.min(BUCKETS - 1, FINE_BUCKETS + Math.floor(ms - FINE_LIMIT_MS));
}

/** The upper edge of a bucket, ms: what a quantile that falls in it reads as. */
function upperOf(bucket: number): number {
  return bucket < FINE_BUCKETS ? (bucket + 1) * FINE_MS : FINE_LIMIT_MS + (bucket - FINE_BUCKETS) + 1;
}

/** Delays in ms, in fixed buckets (0.01 ms up to 100 ms, then 1 ms up to 120 s). */
export class DelayHistogram {
  private readonly counts = new Uint32Array(BUCKETS);
  count = 0;
  sum = 0;
  min = Infinity;
  max = -Infinity;
  negative = 0;

  /** Adds one delay. Never throws; NaN is ignored. */
  record(ms: number): void {
    if (Number.isNaN(ms)) return;
    this.counts[bucketOf(ms)]!++;
    this.count++;
    this.sum += ms;
    if (ms < this.min) this.min = ms;
    if (ms > this.max) this.max = ms;
    if (ms < 0) this.negative++;
  }

  /** Adds every sample of `data` (another process's histogram). Never throws. */
  merge(data: HistogramData): void {
    // An empty one's min and max went through JSON as null.
    if (data.count === 0) return;
    for (const [bucket, n] of data.buckets) this.counts[bucket]! += n;
    this.count += data.count;
    this.sum += data.sum;
    this.min = Math.min(this.min, data.min);
    this.max = Math.max(this.max, data.max);
    this.negative += data.negative;
  }

  /**
   * The q-quantile (0 to 1), as the upper edge of its bucket (so at most 0.01 ms high under
   * 100 ms), capped by the largest sample; NaN when empty. Never throws.
   */
  quantile(q: number): number {
    if (this.count === 0) return NaN;
    const rank = Math.max(1, Math.ceil(q * this.count));
    let seen = 0;
    for (let b = 0; b < BUCKETS; b++) {
      seen += this.counts[b]!;
      if (seen >= rank) return Math.min(upperOf(b), this.max);
    }
    return this.max;
  }

  /** The histogram as JSON-ready data. Never throws. */
  toJSON(): HistogramData {
    const buckets: [number, number][] = [];
    for (let b = 0; b < BUCKETS; b++) if (this.counts[b]! > 0) buckets.push([b, this.counts[b]!]);
    return { buckets, count: this.count, sum: this.sum, min: this.min, max: this.max, negative: this.negative };
  }
}
