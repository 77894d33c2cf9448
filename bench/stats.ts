/**
 * Summaries of hand-timed samples, for the suites that time whole runs themselves (http, proxy)
 * rather than through tinybench.
 */

/**
 * The q-quantile of `xs` (0 to 1), interpolated between neighbours; NaN for no samples.
 *
 * @throws Never.
 */
export function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const at = (s.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return s[lo]! + (s[hi]! - s[lo]!) * (at - lo);
}

/** The median of `xs` (the mean of the middle two for an even count). */
export const median = (xs: readonly number[]): number => quantile(xs, 0.5);

/**
 * The median and mean of timed samples in ms, and the relative margin of error of the mean (95%,
 * normal approximation), in percent, as tinybench reports its `rme`.
 *
 * @throws Never.
 */
export function timeStats(ms: readonly number[]): { medianMs: number; meanMs: number; rme: number } {
  const mean = ms.reduce((a, x) => a + x, 0) / ms.length;
  const sd = Math.sqrt(ms.reduce((a, x) => a + (x - mean) ** 2, 0) / Math.max(1, ms.length - 1));
  return { medianMs: median(ms), meanMs: mean, rme: ((1.96 * sd) / Math.sqrt(ms.length) / mean) * 100 };
}

/** A timed sample that knows its round, for {@link pairedRatio}. */
export interface RoundSample {
  round: number;
  ms: number;
}

/**
 * The median over the rounds both have of `a`'s ms over `b`'s: b's speed relative to a's, paired
 * round by round so that a slow spell of a shared machine, which hits both runs of a round, cancels
 * out instead of landing on one side of a ratio of medians. NaN when no round has both.
 *
 * @throws Never.
 */
export function pairedRatio(a: readonly RoundSample[], b: readonly RoundSample[]): number {
  const byRound = new Map(a.map((s) => [s.round, s.ms]));
  const ratios = b.flatMap((s) => (byRound.has(s.round) ? [byRound.get(s.round)! / s.ms] : []));
  return median(ratios);
}
