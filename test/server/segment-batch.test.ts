/**
 * The recorder's segments (src/server/segment-batch.ts): what it encodes events into for this
 * package's stores is byte for byte what `segmentOf` makes of the same events, numbered on from
 * append to append; and a store refuses a segment numbered from another seq than its next.
 */
import { describe, expect, it } from "vitest";
import { encodeFrame, EventType, parseEvent, type AguiEvent } from "../../src/index.js";
import { encodeSSE } from "../../src/sse/encode.js";
import { SegmentBatch } from "../../src/server/segment-batch.js";
import { APPEND_SEGMENT, segmentOf, segmentWriter, storedFrom } from "../../src/store/segment.js";
import { memoryStore } from "../../src/store/memory.js";
import type { RunEvent } from "../../src/store/run-store.js";

const DELTAS = ["plain", "é", "日本語", "👋 emoji", "\ud800 lone surrogate", "x".repeat(300)];
const events: AguiEvent[] = [
  parseEvent({ type: EventType.RUN_STARTED, threadId: "t", runId: "r" }),
  ...DELTAS.map((delta) => parseEvent({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m", delta })),
  parseEvent({ type: EventType.RUN_FINISHED, threadId: "t", runId: "r" }),
];
const ACCESS = { owner: undefined, tokenHash: "segment-batch-token-digest-0123456789abcdefgh" };

describe("SegmentBatch", () => {
  for (const sse of [true, false]) {
    it(`makes the segments segmentOf makes, numbered on from one append to the next (${sse ? "SSE text" : "frames"})`, () => {
      const batch = new SegmentBatch(sse);
      const cut = 3;
      const records: RunEvent[] = events.map((event) => (sse ? { event, sse: encodeSSE(event) } : { event, frame: encodeFrame(event).slice() }));
      for (const e of events.slice(0, cut)) batch.add(e, Infinity);
      expect(batch.take()).toBe(cut);
      expect(batch.count).toBe(0);
      const a = batch.takeSegment()!;
      for (const e of events.slice(cut)) batch.add(e, Infinity);
      const b = batch.takeSegment()!;
      expect(batch.takeSegment()).toBeUndefined();
      // The first starts the run, the second ends it.
      expect([a.runEnded, b.runEnded]).toEqual([false, true]);
      const expected = [segmentOf(0, records.slice(0, cut)), segmentOf(cut, records.slice(cut))];
      for (const [got, want] of [
        [a.segment, expected[0]!],
        [b.segment, expected[1]!],
      ] as const) {
        expect([got.first, got.count, got.size]).toEqual([want.first, want.count, want.size]);
        const whole = storedFrom(got, got.first, got.count);
        const wanted = storedFrom(want, want.first, want.count);
        expect(whole.sse === undefined ? undefined : [...(whole.sse as Uint8Array)]).toEqual(wanted.sse === undefined ? undefined : [...(wanted.sse as Uint8Array)]);
        expect(whole.frames === undefined ? undefined : [...whole.frames]).toEqual(wanted.frames === undefined ? undefined : [...wanted.frames]);
        // A read from within the segment finds where each event starts.
        const tail = storedFrom(got, got.first + 1, got.count);
        const wantedTail = storedFrom(want, want.first + 1, want.count);
        expect(tail.sse === undefined ? undefined : [...(tail.sse as Uint8Array)]).toEqual(wantedTail.sse === undefined ? undefined : [...(wantedTail.sse as Uint8Array)]);
        expect(tail.frames === undefined ? undefined : [...tail.frames]).toEqual(wantedTail.frames === undefined ? undefined : [...wantedTail.frames]);
      }
    });
  }

  it("adds nothing of an event over the bound", () => {
    const batch = new SegmentBatch(true);
    expect(() => batch.add(events[6]!, 100)).toThrow(/maxEventBytes/);
    expect([batch.count, batch.pending, batch.size]).toEqual([0, 0, 0]);
    expect(batch.takeSegment()).toBeUndefined();
  });
});

describe("APPEND_SEGMENT", () => {
  it("is refused with store_unavailable for a segment numbered from another seq than the run's next", async () => {
    const store = memoryStore();
    const writer = segmentWriter(await store.create("run-1", ACCESS))!;
    expect(writer).toBeDefined();
    const batch = new SegmentBatch(true);
    batch.add(events[0]!, Infinity);
    const first = batch.takeSegment()!.segment;
    batch.add(events[1]!, Infinity);
    const second = batch.takeSegment()!.segment;
    await expect(writer[APPEND_SEGMENT](second)).rejects.toMatchObject({ code: "store_unavailable" });
    // In memory: in the run at once, nothing to wait for.
    expect(writer[APPEND_SEGMENT](first)).toBeUndefined();
    await writer[APPEND_SEGMENT](second);
    await writer.end();
    const reader = await store.read("run-1", -1, ACCESS);
    let text = "";
    for await (const stored of reader) text += new TextDecoder().decode(stored.sse as Uint8Array);
    expect(text).toBe(`id: 0\n${encodeSSE(events[0]!)}id: 1\n${encodeSSE(events[1]!)}`);
    await store.close();
  });
});
