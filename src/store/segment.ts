/**
 * An append's events kept as a segment: their frames back to back, their SSE text joined with
 * each event's `id:` line, and where each event starts in both. The stores keep appends this way,
 * a few objects each rather than several per event, and read them back as `StoredEvents`.
 *
 * @module
 */
import type { RunEvent, StoredEvents } from "./run-store.js";

/** Consecutive events of a run, with where each starts: what a store keeps of an append. */
export interface Segment {
  /** The seq of its first event. */
  readonly first: number;
  /** How many events. */
  readonly count: number;
  /** The events' frames, back to back, and where each starts (one more entry than events); when every event had one. */
  readonly frames: { readonly bytes: Uint8Array; readonly offsets: Uint32Array } | undefined;
  /** The events' SSE text with their `id:` lines, and where each starts; when every event had some. */
  readonly sse: { readonly text: string; readonly offsets: Uint32Array } | undefined;
  /** What it costs to keep: the frames' bytes and the SSE text's UTF-16 units. */
  readonly size: number;
}

/**
 * The events of one append, whose first is `first`, as a segment: the frames copied out of the
 * encoder's pool into one buffer, the SSE texts joined.
 *
 * @throws Never.
 */
export function segmentOf(first: number, events: readonly RunEvent[]): Segment {
  const n = events.length;
  let frames: Segment["frames"];
  if (events.every((e) => e.frame !== undefined)) {
    const offsets = new Uint32Array(n + 1);
    let size = 0;
    for (let i = 0; i < n; i++) {
      offsets[i] = size;
      size += events[i]!.frame!.length;
    }
    offsets[n] = size;
    const bytes = new Uint8Array(size);
    for (let i = 0; i < n; i++) bytes.set(events[i]!.frame!, offsets[i]!);
    frames = { bytes, offsets };
  }
  let sse: Segment["sse"];
  if (n > 0 && events.every((e) => e.sse !== undefined)) {
    const offsets = new Uint32Array(n + 1);
    const parts: string[] = new Array<string>(2 * n);
    let length = 0;
    for (let i = 0; i < n; i++) {
      offsets[i] = length;
      const id = `id: ${first + i}\n`;
      const sse = events[i]!.sse!;
      parts[2 * i] = id;
      parts[2 * i + 1] = sse;
      length += id.length + sse.length;
    }
    offsets[n] = length;
    // Joined, not appended one by one: a string grown by `+=` is a rope as deep as it has events,
    // which every later slice of it walks (slicing a segment cost more than encoding its events).
    sse = { text: parts.join(""), offsets };
  }
  return { first, count: n, frames, sse, size: (frames?.bytes.length ?? 0) + (sse?.text.length ?? 0) };
}

/**
 * A segment whose frames are known but not where each starts (a Redis stream entry): walks their
 * length prefixes. Returns `undefined` when the lengths do not tile `frames` exactly.
 *
 * @param last - The seq of the last of the frames.
 * @throws Never.
 */
export function segmentOfFrames(frames: Uint8Array, last: number): Segment | undefined {
  const view = new DataView(frames.buffer, frames.byteOffset, frames.byteLength);
  const starts: number[] = [];
  let at = 0;
  while (at + 4 <= frames.length) {
    starts.push(at);
    at += 4 + view.getUint32(at);
  }
  if (at !== frames.length || starts.length === 0) return undefined;
  starts.push(at);
  const count = starts.length - 1;
  return { first: last - count + 1, count, frames: { bytes: frames, offsets: Uint32Array.from(starts) }, sse: undefined, size: frames.length };
}

/**
 * A segment whose SSE text is known but not where each event starts (a Redis stream entry of a run
 * kept as text): its events are `id:` and `data:` lines and a blank line each, and no event holds a
 * blank line (JSON.stringify writes no raw line break), so the blank lines split it. Returns
 * `undefined` when the text is not such events, or its first `id:` is not the seq its count and
 * `last` give.
 *
 * @param last - The seq of the last of the events.
 * @throws Never.
 */
export function segmentOfText(text: string, last: number): Segment | undefined {
  const starts: number[] = [];
  let at = 0;
  while (at < text.length) {
    if (!text.startsWith("id: ", at)) return undefined;
    const end = text.indexOf("\n\n", at);
    if (end < 0) return undefined;
    starts.push(at);
    at = end + 2;
  }
  const count = starts.length;
  if (count === 0) return undefined;
  const first = last - count + 1;
  if (!text.startsWith(`id: ${first}\n`)) return undefined;
  starts.push(at);
  return { first, count, frames: undefined, sse: { text, offsets: Uint32Array.from(starts) }, size: text.length };
}

/**
 * The events of `segment` from seq `from` on, at most `max` of them, as a store gives them back
 * (views of the segment, no copy).
 *
 * @throws Never, for `from` within the segment.
 */
export function storedFrom(segment: Segment, from: number, max: number): StoredEvents {
  const { first, frames, sse } = segment;
  const start = from - first;
  const end = Math.min(segment.count, start + max);
  const whole = start === 0 && end === segment.count;
  return {
    first: from,
    count: end - start,
    frames: frames === undefined ? undefined : frames.bytes.subarray(frames.offsets[start]!, frames.offsets[end]!),
    sse: sse === undefined ? undefined : whole ? sse.text : sse.text.slice(sse.offsets[start]!, sse.offsets[end]!),
  };
}
