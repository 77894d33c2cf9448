/**
 * Segments, what the stores keep of an append: every slice of one gives back exactly the events
 * asked for, in frames and in SSE text, whatever characters the text holds.
 */
import { describe, expect, it } from "vitest";
import { encodeFrame, EventType, parseEvent, type AguiEvent } from "../../src/index.js";
import { encodeSSE } from "../../src/sse/encode.js";
import { segmentOf, segmentOfText, storedFrom } from "../../src/store/segment.js";
import type { RunEvent } from "../../src/store/run-store.js";

const DELTAS = ["plain", "é", "日本語", "👋 emoji", "mixed é 👋 日", "\ud800 lone surrogate", "", "x".repeat(300)];

const eventOf = (delta: string): AguiEvent => parseEvent({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m", delta: delta || "-" });

function runEvents(deltas: readonly string[], withFrames: boolean): RunEvent[] {
  return deltas.map((delta) => {
    const event = eventOf(delta);
    return { event, sse: encodeSSE(event), ...(withFrames ? { frame: encodeFrame(event) } : {}) };
  });
}

describe("segmentOf and storedFrom", () => {
  for (const withFrames of [true, false]) {
    it(`give back every range of an append's SSE text, multi-byte characters included${withFrames ? ", and its frames" : ""}`, () => {
      const first = 7;
      const events = runEvents(DELTAS, withFrames);
      const segment = segmentOf(first, events);
      const texts = events.map((e, i) => `id: ${first + i}\n${e.sse!}`);
      // What it keeps: the text as UTF-8 (what readers are sent), and the frames.
      expect(segment.size).toBe(Buffer.byteLength(texts.join("")) + (withFrames ? events.reduce((n, e) => n + e.frame!.length, 0) : 0));
      for (let from = first; from < first + events.length; from++) {
        for (const max of [1, 2, 3, events.length]) {
          const stored = storedFrom(segment, from, max);
          const end = Math.min(events.length, from - first + max);
          expect(stored.first).toBe(from);
          expect(stored.count).toBe(end - (from - first));
          expect(stored.sse).toBeInstanceOf(Uint8Array);
          expect(new TextDecoder().decode(stored.sse as Uint8Array)).toBe(texts.slice(from - first, end).join(""));
          if (withFrames) {
            const frames = events.slice(from - first, end).map((e) => [...e.frame!]);
            expect([...stored.frames!]).toEqual(frames.flat());
          } else {
            expect(stored.frames).toBeUndefined();
          }
        }
      }
    });
  }

  it("keeps no SSE text when an event has none, and the frames alone then", () => {
    const events = runEvents(["a", "b"], true);
    const segment = segmentOf(0, [events[0]!, { event: events[1]!.event, frame: events[1]!.frame }]);
    expect(segment.sse).toBeUndefined();
    expect(storedFrom(segment, 1, 5).sse).toBeUndefined();
    expect(segment.size).toBe(events[0]!.frame!.length + events[1]!.frame!.length);
  });

  it("reads a segment back from its SSE bytes alone (a Redis entry), numbered from its last event, and refuses bytes that are not its events", () => {
    const events = runEvents(DELTAS, false);
    const bytes = segmentOf(3, events).sse!.bytes;
    const back = segmentOfText(bytes, 3 + events.length - 1)!;
    expect([back.first, back.count]).toEqual([3, events.length]);
    for (let from = 3; from < 3 + events.length; from++) {
      expect(new TextDecoder().decode(storedFrom(back, from, 2).sse as Uint8Array)).toBe(new TextDecoder().decode(storedFrom(segmentOf(3, events), from, 2).sse as Uint8Array));
    }
    // Numbered otherwise than the entry says, cut short, or not SSE at all.
    expect(segmentOfText(bytes, 3 + events.length)).toBeUndefined();
    expect(segmentOfText(bytes.subarray(0, bytes.length - 1), 3 + events.length - 1)).toBeUndefined();
    expect(segmentOfText(new TextEncoder().encode("data: {}\n\n"), 0)).toBeUndefined();
    expect(segmentOfText(new Uint8Array(0), 0)).toBeUndefined();
  });
});
