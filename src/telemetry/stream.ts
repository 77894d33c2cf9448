/**
 * A response body, counted: its bytes as they are pulled, and its end (the last chunk pulled, or
 * the body aborted) told once.
 *
 * @module
 */

/** A body as the handlers make it (the server's `ChunkSource<Uint8Array>`). */
export interface ByteChunks {
  pull(): Promise<Uint8Array | undefined>;
  abort(): void;
}

/**
 * `body`, with `onEnd(bytes, aborted)` called once when it ends: its last chunk was pulled
 * (`aborted` false), or it was aborted first, or a pull rejected (`aborted` true).
 *
 * @throws Never at once; a pull rejects as `body`'s does.
 */
export function countedBody(body: ByteChunks, onEnd: (bytes: number, aborted: boolean) => void): ByteChunks {
  let bytes = 0;
  let ended = false;
  const end = (aborted: boolean): void => {
    if (ended) return;
    ended = true;
    onEnd(bytes, aborted);
  };
  return {
    async pull() {
      let chunk: Uint8Array | undefined;
      try {
        chunk = await body.pull();
      } catch (error) {
        end(true);
        throw error;
      }
      if (chunk === undefined) end(false);
      else bytes += chunk.byteLength;
      return chunk;
    },
    abort() {
      body.abort();
      end(true);
    },
  };
}
