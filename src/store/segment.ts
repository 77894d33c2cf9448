/**
 * An append's events kept as a segment: their frames back to back, their SSE text joined with
 * each event's `id:` line and kept as UTF-8, and where each event starts in both. The stores keep appends this way,
 * a few objects each rather than several per event, and read them back as `StoredEvents`.
 *
 * @module
 */
import { RunStoreError, type RunEvent, type RunWriter, type StoredEvents } from "./run-store.js";

/** Consecutive events of a run, with where each starts: what a store keeps of an append. */
export interface Segment {
  /** The seq of its first event. */
  readonly first: number;
  /** How many events. */
  readonly count: number;
  /** The events' frames, back to back, and where each starts (one more entry than events); when every event had one. */
  readonly frames: { readonly bytes: Uint8Array; readonly offsets: Uint32Array } | undefined;
  /**
   * The events' SSE text with their `id:` lines, as UTF-8, when every event had some; where each
   * starts is found when a read first needs it (most read whole appends).
   */
  readonly sse: { readonly bytes: Uint8Array; offsets: Uint32Array | undefined } | undefined;
  /** What it costs to keep: the frames' bytes and the SSE text's. */
  readonly size: number;
}

const utf8 = new TextEncoder();

/**
 * The method of a writer of this package's stores that takes an append as a segment its caller
 * made: the handlers' recorder encodes each event straight into one (its SSE text with its `id:`
 * line, or its frame), with no object per event and no second pass to join them. Internal to the
 * package: a store of another's gets `append` with its events.
 */
export const APPEND_SEGMENT: unique symbol = Symbol("agui-wire.append-segment");

/** A writer that takes segments (see {@link APPEND_SEGMENT}). Internal to the package. */
export interface SegmentWriter extends RunWriter {
  /**
   * Adds `segment`'s events to the run, as `append` adds events; its `first` must be the run's
   * next seq (the caller numbered its `id:` lines from it). Returns `undefined` when the events
   * are in the run already (a store in this process's memory): the caller then goes on at once,
   * without a promise to wait on.
   *
   * @throws {RunStoreError} (rejects) As `append`; `store_unavailable` when `first` is not the next seq.
   */
  [APPEND_SEGMENT](segment: Segment): Promise<void> | undefined;
}

/**
 * `writer` when it takes segments, else `undefined`. Never throws.
 */
export function segmentWriter(writer: RunWriter): SegmentWriter | undefined {
  return typeof (writer as Partial<SegmentWriter>)[APPEND_SEGMENT] === "function" ? (writer as SegmentWriter) : undefined;
}

/**
 * The error for a segment numbered from another seq than the run's next: the caller lost count
 * (it appended past a failure, say). Never throws.
 */
export function misnumbered(segment: Segment, next: number): RunStoreError {
  return new RunStoreError("store_unavailable", `could not append to the run: expected a segment numbered from its next event, ${next}, found one from ${segment.first}`);
}

/**
 * `frames` copied back to back into one buffer (out of the encoder's pool), with where each starts
 * (one more entry than frames, the last the total). `size`: their summed length, when the caller
 * kept it.
 *
 * @throws Never.
 */
export function packFrames(frames: readonly Uint8Array[], size?: number): NonNullable<Segment["frames"]> {
  const n = frames.length;
  if (size === undefined) {
    size = 0;
    for (let i = 0; i < n; i++) size += frames[i]!.length;
  }
  const offsets = new Uint32Array(n + 1);
  const bytes = new Uint8Array(size);
  let at = 0;
  for (let i = 0; i < n; i++) {
    offsets[i] = at;
    bytes.set(frames[i]!, at);
    at += frames[i]!.length;
  }
  offsets[n] = at;
  return { bytes, offsets };
}

/**
 * The events of one append, whose first is `first`, as a segment: the frames copied out of the
 * encoder's pool into one buffer, the SSE texts joined and encoded.
 *
 * @throws Never.
 */
export function segmentOf(first: number, events: readonly RunEvent[]): Segment {
  const n = events.length;
  const frames = events.every((e) => e.frame !== undefined) ? packFrames(events.map((e) => e.frame!)) : undefined;
  let sse: Segment["sse"];
  if (n > 0 && events.every((e) => e.sse !== undefined)) {
    const parts: string[] = new Array<string>(2 * n);
    for (let i = 0; i < n; i++) {
      parts[2 * i] = `id: ${first + i}\n`;
      parts[2 * i + 1] = events[i]!.sse!;
    }
    // Kept as UTF-8, which is what every SSE reader is sent: encoded once, copied out on each read,
    // and outside the JS heap, where the collector neither copies nor walks it (the text as a
    // string cost a store's SSE runs more in collection than in encoding). Joined, not appended one
    // by one: a string grown by `+=` is a rope as deep as it has events.
    sse = { bytes: utf8.encode(parts.join("")), offsets: undefined };
  }
  return { first, count: n, frames, sse, size: (frames?.bytes.length ?? 0) + (sse?.bytes.length ?? 0) };
}

/**
 * Where each event of SSE text starts (one more entry than events, the last its length), or
 * `undefined` when the bytes are not `id:` and `data:` lines and a blank line per event. No event
 * holds a blank line (JSON.stringify writes no raw line break), so the blank lines split them.
 */
function sseStarts(bytes: Uint8Array): number[] | undefined {
  const starts: number[] = [];
  let at = 0;
  while (at < bytes.length) {
    // "id: "
    if (bytes[at] !== 0x69 || bytes[at + 1] !== 0x64 || bytes[at + 2] !== 0x3a || bytes[at + 3] !== 0x20) return undefined;
    starts.push(at);
    let end = bytes.indexOf(0x0a, at);
    while (end >= 0 && bytes[end + 1] !== 0x0a) end = bytes.indexOf(0x0a, end + 1);
    if (end < 0) return undefined;
    at = end + 2;
  }
  starts.push(at);
  return starts;
}

/** The SSE offsets of a segment, found on first use. */
function sseOffsets(sse: NonNullable<Segment["sse"]>): Uint32Array {
  // A segment this module made holds such text: it is split as it was joined.
  return (sse.offsets ??= Uint32Array.from(sseStarts(sse.bytes)!));
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
 * A segment whose SSE text (UTF-8) is known but not where each event starts (a Redis stream entry
 * of a run kept as text). Returns `undefined` when the bytes are not events of `id:` and `data:`
 * lines and a blank line each, or its first `id:` is not the seq its count and `last` give.
 *
 * @param last - The seq of the last of the events.
 * @throws Never.
 */
export function segmentOfText(bytes: Uint8Array, last: number): Segment | undefined {
  const starts = sseStarts(bytes);
  if (starts === undefined || starts.length < 2) return undefined;
  const count = starts.length - 1;
  const first = last - count + 1;
  const id = utf8.encode(`id: ${first}\n`);
  for (let i = 0; i < id.length; i++) if (bytes[i] !== id[i]) return undefined;
  return { first, count, frames: undefined, sse: { bytes, offsets: Uint32Array.from(starts) }, size: bytes.length };
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
    sse: sse === undefined ? undefined : whole ? sse.bytes : sse.bytes.subarray(sseOffsets(sse)[start]!, sseOffsets(sse)[end]!),
  };
}
