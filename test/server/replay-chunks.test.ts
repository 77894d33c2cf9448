/**
 * A stored run's chunks (src/server/replay.ts): `pull` hands out copies, which a reader may change
 * without touching the store; `pullInto`, the Node handler's, hands out the store's own bytes.
 */
import { describe, expect, it } from "vitest";
import { EventType, parseEvent } from "../../src/index.js";
import { SSE_MEDIA_TYPE } from "../../src/protocol/index.js";
import { replayStream } from "../../src/server/replay.js";
import { SegmentBatch } from "../../src/server/segment-batch.js";
import { memoryStore } from "../../src/store/memory.js";
import { APPEND_SEGMENT, segmentWriter } from "../../src/store/segment.js";

const ACCESS = { owner: undefined, tokenHash: "replay-chunks-token-digest-0123456789abcdefgh" };

async function storedRun() {
  const store = memoryStore();
  const writer = segmentWriter(await store.create("run-1", ACCESS))!;
  const batch = new SegmentBatch(true);
  batch.add(parseEvent({ type: EventType.RUN_STARTED, threadId: "t", runId: "run-1" }), Infinity);
  batch.add(parseEvent({ type: EventType.RUN_FINISHED, threadId: "t", runId: "run-1" }), Infinity);
  await writer[APPEND_SEGMENT](batch.takeSegment()!.segment);
  await writer.end();
  const replay = async () => {
    const stop = new AbortController();
    return replayStream({ reader: await store.read("run-1", -1, ACCESS, stop.signal), stop, contentType: SSE_MEDIA_TYPE, keepAliveMs: 0, maxEventBytes: Infinity, onError: () => {} });
  };
  return { store, replay };
}

const pulledInto = (source: { pullInto?(r: { chunkPulled(c: Uint8Array | undefined): void }): void }): Promise<Uint8Array | undefined> =>
  new Promise((resolve) => source.pullInto!({ chunkPulled: resolve }));

describe("replayStream's chunks", () => {
  it("are copies when pulled, which a reader may change without changing what the store gives the next", async () => {
    const { store, replay } = await storedRun();
    const first = (await (await replay()).pull())!;
    const text = new TextDecoder().decode(first);
    expect(text.startsWith("id: 0\ndata: ")).toBe(true);
    first.fill(0x21);
    const again = (await (await replay()).pull())!;
    expect(new TextDecoder().decode(again)).toBe(text);
    await store.close();
  });

  it("are the store's own bytes when pulled into the Node handler's writer", async () => {
    const { store, replay } = await storedRun();
    const a = (await pulledInto(await replay()))!;
    const b = (await pulledInto(await replay()))!;
    expect(new TextDecoder().decode(a).startsWith("id: 0\ndata: ")).toBe(true);
    // Two readers of the same stored bytes: one buffer, not a copy each.
    expect(a.buffer).toBe(b.buffer);
    await store.close();
  });
});
