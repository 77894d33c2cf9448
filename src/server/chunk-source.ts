/**
 * The handlers' response bodies before any runtime sees them: sources of chunks pulled one at a
 * time. The Node adapter writes a source straight into the response, and only the fetch-style
 * adapters wrap it in a `ReadableStream`: a stream, its controller and its reader cost every run
 * a few microseconds to make and about a kilobyte to keep, for a body that has one reader.
 *
 * @module
 */

/**
 * A body as the handlers' cores make it: chunks pulled one at a time, nothing read ahead.
 */
export interface ChunkSource<T> {
  /**
   * The next chunk, or `undefined` once the body has ended: its last chunk was pulled, or
   * {@link abort} stopped it (a pull under way when it did resolves `undefined` then). One pull at
   * a time: the next only after the last one settled.
   *
   * @throws (rejects) Only for a source that wraps another and fails itself (a compressor); the
   *   event sources end every failure with a RUN_ERROR chunk instead.
   */
  pull(): Promise<T | undefined>;
  /**
   * Stops the body because nobody will read the rest (the client went away): the source lets go
   * of what it reads from and stops what produces it. Idempotent; a no-op once it has ended.
   */
  abort(): void;
  /**
   * {@link pull} without a promise, offered by sources whose pull never rejects (the agent's, a stored run's replay):
   * the next chunk, or `undefined` at the end, goes to `receiver`, within this call when the source
   * has it at once, else later. A reader waiting with it holds no promise, only its receiver.
   * Only the Node handler's writer reads with it, and only writes the chunks to its socket: a
   * source may hand it views of bytes it keeps (a stored run's replay does), which it must neither
   * change nor transfer.
   */
  pullInto?(receiver: ChunkReceiver<T>): void;
}

/**
 * A reader of {@link ChunkSource.pullInto}: an object with a method rather than a callback, so
 * that a reader needs no closure of its own for it.
 */
export interface ChunkReceiver<T> {
  /** The pulled chunk, or `undefined` at the end. Should not throw. */
  chunkPulled(chunk: T | undefined): void;
}

/**
 * A `ReadableStream` of `source`, for the fetch-style adapters: no read-ahead (`highWaterMark` 0),
 * a pull per read, cancel aborting the source.
 *
 * @throws Never at once; the stream errors if the source's pull rejects.
 */
export function readableOf<T>(source: ChunkSource<T>): ReadableStream<T> {
  return new ReadableStream<T>(
    {
      // Not an async function: a stream waiting on its agent holds this promise, not a suspended call.
      pull(controller) {
        return source.pull().then((chunk) => {
          if (chunk === undefined) controller.close();
          else controller.enqueue(chunk);
        });
      },
      cancel() {
        source.abort();
      },
    },
    { highWaterMark: 0 },
  );
}
