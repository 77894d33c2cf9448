/**
 * A node:http response body as the Node HTTP clients read it (the client's Node transport,
 * client/platform-send.ts, and the proxy's upstream requests, proxy/node-send.ts): a reader whose
 * each read takes every byte that has arrived since the last, in one chunk.
 *
 * Why not the stream's own async iterator: a server that writes each event on its own (as
 * `@ag-ui/encoder`'s examples do) sends one HTTP chunk per event, and node:http hands each on as a
 * chunk of its own; the iterator's async generator then costs more per event than undici's fetch,
 * and the decoder is called once per event. Here chunks wait in a queue while nobody reads, and a
 * read joins them, so a reader that falls behind does fewer, larger reads. The queue is bounded:
 * past {@link HIGH_WATER_MARK} bytes the stream is paused, and resumed by the next read.
 *
 * @module
 */
import type { IncomingMessage } from "node:http";
import type { Readable } from "node:stream";
import type { BodyReader, BodyReadResult, IterableBody } from "../http/index.js";

/**
 * A response header's value as fetch's `Headers.get` gives it: `null` when absent, repeated ones
 * joined with ", ". Never throws.
 */
export function incomingHeader(message: IncomingMessage, name: string): string | null {
  const value = message.headers[name.toLowerCase()];
  return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
}

/** The most bytes queued before the response is paused (the socket then stops being read). */
export const HIGH_WATER_MARK = 64 * 1024;

type Result = BodyReadResult;

/** The error of a body whose stream closed before its end, as Node's own iterator reports it. */
function prematureClose(): Error {
  return Object.assign(new Error("Premature close"), { code: "ERR_STREAM_PREMATURE_CLOSE" });
}

/**
 * The body of `readable` (the response, or its decompressor), `destroy` letting go of it all.
 * `cutBy`, asked when `readable` ends, names the error that ended its input early: a decompressor
 * ended (flushed) when its response was cut, so that what the bytes before the cut held is read
 * before that error.
 *
 * @throws Never when made. Reads reject with the stream's error, `cutBy`'s, or a premature-close
 *   error when it closed before its end; after `cancel`, reads resolve as done.
 */
export function incomingBody(readable: Readable, destroy: () => void, cutBy?: () => Error | undefined): IterableBody {
  let queue: Buffer[] = [];
  let queued = 0;
  let ended = false;
  let cancelled = false;
  let failure: Error | undefined;
  let waiting: { resolve: (result: Result) => void; reject: (error: Error) => void } | undefined;

  /** Everything queued, as one plain Uint8Array (a view when it is one chunk, else a copy). */
  const take = (): Uint8Array => {
    const first = queue[0]!;
    let value: Uint8Array;
    if (queue.length === 1) {
      // A plain Uint8Array over the Buffer's bytes, as fetch gives: a Buffer's `slice` is a view
      // where a Uint8Array's is a copy, and what the client hands on of a chunk (an unknown
      // event's bytes, say) must behave as it does through fetch.
      value = new Uint8Array(first.buffer, first.byteOffset, first.byteLength);
    } else {
      value = new Uint8Array(queued);
      let at = 0;
      for (const chunk of queue) {
        value.set(chunk, at);
        at += chunk.byteLength;
      }
    }
    queue = [];
    queued = 0;
    return value;
  };

  /** Settles the waiting read, if any, with what there is now. */
  const wake = (): void => {
    const reader = waiting;
    if (reader === undefined) return;
    waiting = undefined;
    if (queued > 0) reader.resolve({ done: false, value: take() });
    else if (failure) reader.reject(failure);
    else reader.resolve({ done: true, value: undefined });
  };

  readable.on("data", (chunk: Buffer) => {
    if (cancelled) return;
    queue.push(chunk);
    queued += chunk.byteLength;
    if (waiting) wake();
    else if (queued >= HIGH_WATER_MARK) readable.pause();
  });
  readable.once("end", () => {
    const cut = cutBy?.();
    if (cut === undefined) ended = true;
    else failure ??= cut;
    wake();
  });
  readable.on("error", (error: Error) => {
    failure ??= error;
    wake();
  });
  readable.once("close", () => {
    if (!ended && !cancelled) failure ??= prematureClose();
    wake();
  });

  const read = (): Promise<Result> => {
    if (queued > 0) {
      const value = take();
      if (readable.isPaused() && !cancelled) readable.resume();
      return Promise.resolve({ done: false, value });
    }
    if (cancelled || ended) return Promise.resolve({ done: true, value: undefined });
    if (failure) return Promise.reject(failure);
    if (waiting) return Promise.reject(new TypeError("the body is being read already"));
    return new Promise<Result>((resolve, reject) => (waiting = { resolve, reject }));
  };
  const cancel = async (): Promise<void> => {
    if (cancelled) return;
    cancelled = true;
    queue = [];
    queued = 0;
    destroy();
    wake();
  };
  const reader: BodyReader = { read, cancel };
  const iterator: AsyncIterableIterator<Uint8Array> = {
    next: read as () => Promise<IteratorResult<Uint8Array>>,
    return: () => cancel().then(() => ({ done: true, value: undefined })),
    [Symbol.asyncIterator]: () => iterator,
  };
  return { [Symbol.asyncIterator]: () => iterator, getReader: () => reader, cancel };
}
