/**
 * The shape of a response body as the client reads it when it is not a `ReadableStream`: a reader
 * and `cancel`. Declared here, structurally and apart from node:http (incoming-body.ts makes
 * one), so that a browser project's types reach these without `@types/node`, and a Node project's
 * without the DOM lib's `ReadableStreamReadResult`.
 *
 * @module
 */

/** One read of a {@link BodyReader}: what `ReadableStreamDefaultReader.read()` resolves with. */
export type BodyReadResult = { done: false; value: Uint8Array } | { done: true; value?: Uint8Array | undefined };

/** A reader of a body: what the client uses of a `ReadableStreamDefaultReader`. */
export interface BodyReader {
  read(): Promise<BodyReadResult>;
  cancel(reason?: unknown): Promise<void>;
}

/** A body that is not a `ReadableStream`: async iterable, with a reader and `cancel`. */
export interface IterableBody extends AsyncIterable<Uint8Array> {
  getReader(): BodyReader;
  /** Lets go of the rest of the body. Never rejects. */
  cancel(reason?: unknown): Promise<void>;
}
