/**
 * The SSE keep-alive's clock: the streams waiting for their agent, each with when its silence
 * will have lasted the keep-alive interval, under one timer per interval rather than a timer (and
 * a promise racing it) per stream and per wait. With one interval the deadlines come in the order
 * the waits began, so an insertion-ordered Map is the queue: arming moves a stream to its end.
 *
 * @module
 */

/** A stream that can be told its silence lasted the whole interval. */
export interface Silent {
  /** The wait under way lasted the interval. Should not throw (see {@link Silences}). */
  silenceEnded(): void;
}

/** The waits of one keep-alive interval. Internal to the package. */
export class Silences {
  readonly #ms: number;
  /** Each waiting stream and its deadline (`performance.now()` ms), earliest first. */
  readonly #waiting = new Map<Silent, number>();
  /** Set for the earliest deadline or before (a later one never needs it moved). */
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** @param ms - The interval, a positive finite number of ms. */
  constructor(ms: number) {
    this.#ms = ms;
  }

  /**
   * Starts (or starts again) `stream`'s wait: its `silenceEnded` is called once the interval has
   * passed, unless {@link disarm} comes first. Never throws.
   */
  arm(stream: Silent): void {
    const waiting = this.#waiting;
    waiting.delete(stream);
    // Whole ms: a small integer is kept in the Map's entry itself, a fraction in a number object of its own.
    const at = Math.ceil(performance.now() + this.#ms);
    waiting.set(stream, at);
    if (this.#timer === undefined) this.#schedule(at);
  }

  /** Ends `stream`'s wait, if it has one. Never throws. */
  disarm(stream: Silent): void {
    const waiting = this.#waiting;
    if (!waiting.delete(stream) || waiting.size > 0) return;
    // Nothing left to wait for: no timer that would keep the process alive for nothing.
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(at: number): void {
    this.#timer = setTimeout(this.#fire, Math.max(1, Math.ceil(at - performance.now())));
  }

  /** Tells every stream whose deadline has come, then waits for the next deadline. */
  readonly #fire = (): void => {
    this.#timer = undefined;
    // A timer's ms clock may run a fraction ahead of performance.now(): within a ms counts as due.
    const now = performance.now() + 1;
    for (const [stream, at] of this.#waiting) {
      if (at > now) {
        this.#schedule(at);
        return;
      }
      this.#waiting.delete(stream);
      try {
        stream.silenceEnded();
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  };
}

/** One queue per interval in use (a handler's `keepAliveMs`; a few at most per process). */
const byInterval = new Map<number, Silences>();

/**
 * The shared waits of keep-alive interval `ms` (a positive finite number). Internal to the
 * package.
 *
 * @throws Never.
 */
export function silencesOf(ms: number): Silences {
  let silences = byInterval.get(ms);
  if (silences === undefined) byInterval.set(ms, (silences = new Silences(ms)));
  return silences;
}
