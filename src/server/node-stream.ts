/**
 * Writing an event stream into a node:http response: chunks pulled from the body's source one at
 * a time, back-pressure honoured, the run stopped when the client leaves. Only types from Node.
 *
 * @module
 */
import type { ServerResponse } from "node:http";
import type { ChunkReceiver } from "./chunk-source.js";
import type { StreamResult } from "./responses.js";

/**
 * Writes `result`'s stream into `res`, honouring back-pressure: after `res.write` returns false
 * the next chunk is pulled only on 'drain'. The response closing first (the client went away)
 * aborts the run. Returns at once: the writing goes on in callbacks, so that a response waiting on
 * its agent holds its writer's pending pull and nothing more (no suspended async function).
 * Internal to the package.
 *
 * @throws Never: a failure to write ends the response (destroyed) and aborts the run.
 */
export function writeStream(result: StreamResult, res: ServerResponse): void {
  new StreamWriter(result, res).start(result);
}

/**
 * One response's writing (see {@link writeStream}). Every open stream holds one: its only closure
 * is the response's 'close' listener ('drain''s is made when a write first waits), and the source
 * gives it chunks by calling its method.
 */
class StreamWriter implements ChunkReceiver<Uint8Array> {
  /** Taken from the answer, which is let go once its head is written. */
  readonly #body: StreamResult["body"];
  readonly #res: ServerResponse;
  #clientGone = false;
  /** Waiting for 'drain'. */
  #draining = false;
  /** Within the source's pullInto (see #next). */
  #pulling = false;
  /** A chunk came within pullInto and the next one is wanted. */
  #again = false;
  /** The head's own flush, while it waits for the first chunk (see `StreamResult.headWithFirstChunk`). */
  #headFlush: ReturnType<typeof setImmediate> | undefined;
  /** The 'drain' listener, made at the first write that waits for it. */
  #onDrain: (() => void) | undefined;

  constructor(result: StreamResult, res: ServerResponse) {
    this.#body = result.body;
    this.#res = res;
  }

  start(result: StreamResult): void {
    const res = this.#res;
    res.on("close", this.#onClose);
    try {
      res.writeHead(result.status, result.headers);
      // The client learns the run started before the agent's first event, however long that takes
      // (with the first chunk when that is about to come, or by the loop's next turn).
      // (A closure made only then: most streams are not the proxy's.)
      if (result.headWithFirstChunk === true) this.#headFlush = setImmediate(() => this.#flushHead());
      else res.flushHeaders();
    } catch (error) {
      return this.#fail(error);
    }
    this.#next();
  }

  #next(): void {
    const body = this.#body;
    if (body.pullInto === undefined) {
      // A source that wraps another (a compressor, telemetry's): closures per pull cost little beside it.
      body.pull().then(
        (chunk) => this.chunkPulled(chunk),
        (error: unknown) => this.#fail(error),
      );
      return;
    }
    // A chunk the source has at once comes within pullInto, and its write asks for the next one:
    // a loop here rather than a recursion as deep as the chunks an agent has ready.
    if (this.#pulling) {
      this.#again = true;
      return;
    }
    this.#pulling = true;
    do {
      this.#again = false;
      body.pullInto(this);
    } while (this.#again);
    this.#pulling = false;
  }

  /** Sends the head on its own: no chunk came in time to carry it. */
  #flushHead(): void {
    this.#headFlush = undefined;
    const res = this.#res;
    // (`headersSent` is true from writeHead on, sent or not: no chunk came, so the head waits still.)
    if (this.#clientGone || res.destroyed) return;
    try {
      res.flushHeaders();
    } catch (error) {
      this.#fail(error);
    }
  }

  /** Writes the pulled chunk (see `ChunkSource.pullInto`), or ends the response. */
  chunkPulled(chunk: Uint8Array | undefined): void {
    if (this.#headFlush !== undefined) {
      clearImmediate(this.#headFlush);
      this.#headFlush = undefined;
    }
    // abort() (the client left) ends the source: an empty pull then means there is no one to
    // end the response for.
    if (this.#clientGone) return this.#finish();
    const res = this.#res;
    try {
      if (chunk === undefined) {
        res.end();
        return this.#finish();
      }
      if (res.write(chunk)) return this.#next();
    } catch (error) {
      return this.#fail(error);
    }
    this.#draining = true;
    res.on("drain", (this.#onDrain ??= () => this.#drained()));
  }

  #drained(): void {
    this.#draining = false;
    this.#res.off("drain", this.#onDrain!);
    this.#next();
  }

  readonly #onClose = (): void => {
    if (this.#res.writableFinished) return;
    this.#clientGone = true;
    this.#body.abort();
    // A closed response never drains: the pull that waits would never come.
    if (this.#draining) {
      this.#draining = false;
      this.#res.off("drain", this.#onDrain!);
      this.#finish();
    }
  };

  /** Only a compressor fails a pull (or a broken response a write); the response must not stay open. */
  #fail(_error: unknown): void {
    if (!this.#clientGone) {
      this.#body.abort();
      this.#res.destroy();
    }
    this.#finish();
  }

  #finish(): void {
    if (this.#headFlush !== undefined) {
      clearImmediate(this.#headFlush);
      this.#headFlush = undefined;
    }
    this.#res.off("close", this.#onClose);
    // Tells the body's source that nobody reads it any more, also when the client left while a
    // write waited for 'drain' (a wrapper such as the proxy's finishes its run on abort).
    if (this.#clientGone) this.#body.abort();
  }
}

/**
 * Resolves on 'drain', or on 'close' (a closed response never drains). Internal to the package
 * (not exported from `agui-wire/server`); the benchmarks' reference server and the tests use it.
 */
export function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}
