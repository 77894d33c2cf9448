/**
 * The pull protocol agui-wire's own iterators share: `PULL` gives the next result at once when the
 * iterator holds it already, a promise of it otherwise; `next()` is the same wrapped in a promise.
 * One base, so that the run's iterators (the decoders', a resumable run's, a local run's, a
 * `RunStream`'s) carry the protocol once rather than each its own copy.
 *
 * @module
 */

/**
 * The key of an iterator's method that gives the next result at once when it has it, and a
 * promise of it otherwise (see {@link PullIterator}). Internal to agui-wire: readers look for it
 * and fall back to `next()`.
 */
export const PULL = Symbol("agui-wire.pull");

/** A next result: at once when it is known, else a promise. */
export type Pulled<T> = IteratorResult<T> | Promise<IteratorResult<T>>;

/** An iterator that can give its next result at once when it has it (see {@link PULL}). */
export interface Pullable<T> {
  [PULL](): Pulled<T>;
}

/** The result of an iteration that is over. Never throws. */
export function done(): IteratorReturnResult<undefined> {
  return { value: undefined, done: true };
}

/**
 * An async iterator whose `next()` is its {@link PULL} as a promise: subclasses write `PULL` and
 * `return` only.
 */
export abstract class PullIterator<T> implements AsyncIterableIterator<T>, Pullable<T> {
  /** The next result, at once when it is held already. May throw (`next()` then rejects). */
  abstract [PULL](): Pulled<T>;

  /** Leaves early; must never reject. */
  abstract return(): Promise<IteratorResult<T>>;

  [Symbol.asyncIterator](): this {
    return this;
  }

  /**
   * The next result, as {@link PULL} gives it, as a promise. Not an async function: returning
   * PULL's promise from one would cost two more microtasks per result.
   *
   * @throws Never; what PULL throws, it rejects with.
   */
  next(): Promise<IteratorResult<T>> {
    try {
      const result = this[PULL]();
      return result instanceof Promise ? result : Promise.resolve(result);
    } catch (error) {
      return Promise.reject(error);
    }
  }
}

/**
 * A {@link PullIterator} of two closures, for iterators whose state lives in a function's scope.
 *
 * @throws Never.
 */
export function pullIterator<T>(pull: () => Pulled<T>, leave: () => Promise<IteratorResult<T>>): PullIterator<T> {
  return Object.assign(Object.create(PullIterator.prototype) as PullIterator<T>, { [PULL]: pull, return: leave });
}
