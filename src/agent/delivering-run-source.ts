/**
 * A run's source read by an object rather than through promises: the server's event stream, which
 * every open run holds, waits on its agent with no promise of its own. Apart from the client's
 * `RunSource`, so that browsers do not load it.
 *
 * @module
 */
import { PULL, type Pulled } from "./pull.js";
import { RunSource } from "./run-source.js";

/**
 * The key of {@link DeliveringRunSource}'s pull for a reader that is an object: a value the source
 * holds comes at once, as with {@link PULL}; one it waits for goes to the reader's methods.
 */
export const PULL_INTO: unique symbol = Symbol("agui-wire.pull-into");

/** A reader of {@link PULL_INTO}: told each outcome it waited for. Its methods should not throw. */
export interface PullReceiver<T> {
  /** The next result. */
  pulled(result: IteratorResult<T>): void;
  /** What the source failed with; the source is closed. */
  pullFailed(error: unknown): void;
}

/**
 * A {@link RunSource} that can also be read with {@link PULL_INTO}. A reader waiting on the agent
 * then holds the agent's own promise with this source's two handlers on it (made at the first
 * wait, once per run), where a reader of `PULL` holds a promise more, with two closures made per
 * wait.
 */
export class DeliveringRunSource<T> extends RunSource<T> {
  /** The reader of the PULL_INTO under way: set only within the call. */
  #into: PullReceiver<T> | undefined;
  /** The reader waiting for the source's promise. */
  #receiver: PullReceiver<T> | undefined;
  #onSettled: ((result: IteratorResult<unknown>) => void) | undefined;
  #onRejected: ((error: unknown) => void) | undefined;

  /**
   * {@link PULL} for a reader that waits without a promise: the next value at once when the
   * source holds it, else `undefined`, and the outcome goes to `receiver` later. One pull at a time.
   *
   * @throws As {@link PULL} does, when the outcome is known at once.
   */
  [PULL_INTO](receiver: PullReceiver<T>): IteratorResult<T> | undefined {
    let pulled: Pulled<T> | undefined;
    this.#into = receiver;
    try {
      pulled = this[PULL]();
    } finally {
      this.#into = undefined;
    }
    // Undefined: `waited` took the wait over.
    if (!(pulled instanceof Promise)) return pulled;
    // The first value, read after the agent's start (an async function): once per run.
    pulled.then(
      (result) => receiver.pulled(result),
      (error: unknown) => receiver.pullFailed(error),
    );
    return undefined;
  }

  protected override waited(pending: Promise<IteratorResult<unknown>>): Pulled<T> {
    const receiver = this.#into;
    if (receiver === undefined) return super.waited(pending);
    this.#into = undefined;
    this.#receiver = receiver;
    pending.then((this.#onSettled ??= (result) => this.#settled(result)), (this.#onRejected ??= (error) => this.#rejected(error)));
    // Seen only by PULL_INTO (and #settled), which this reader called.
    return undefined as never;
  }

  /** The source's promise gave `result`: read as PULL would, then handed to the reader. */
  #settled(result: IteratorResult<unknown>): void {
    const receiver = this.#receiver!;
    this.#receiver = undefined;
    let next: Pulled<T> | undefined;
    // A value skipped, and the next one awaited: the reader waits on (see `waited`).
    this.#into = receiver;
    try {
      next = this.read(result);
    } catch (error) {
      return receiver.pullFailed(error);
    } finally {
      this.#into = undefined;
    }
    if (next !== undefined) receiver.pulled(next as IteratorResult<T>);
  }

  /** The source's promise failed: the source is closed, and the reader told. */
  #rejected(error: unknown): void {
    const receiver = this.#receiver!;
    this.#receiver = undefined;
    void this.return();
    receiver.pullFailed(error);
  }
}
