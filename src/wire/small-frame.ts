/**
 * Frames of small string-only events (a text or tool-call delta, a step, a message's start or end)
 * written in one pass, with no nested writers: what most events of an LLM's stream are.
 *
 * The general path writes an event as nested messages (the Event's arm, its BaseEvent, its fields),
 * each opened and closed by the writer (fork/join), through a writer method per byte, and fills the
 * frame's length in afterwards. An event of a few short strings has one layout: 4-byte frame
 * length, the arm's tag, the arm's length, the BaseEvent (`0a 02 08 <type>`, or `0a 00` for type
 * 0), then each string field as tag, one-byte length, UTF-8. The generated `frameSmallEvent`
 * (src/gen/agui/wire/v1/events_frame.ts) checks that an event has it (no base field but its type,
 * at most {@link SMALL_STRING_UNITS} UTF-16 units a string) and writes it with these functions;
 * the bytes are those of the general path.
 *
 * Encoder-only: the decoder reaches it only through wire/index.ts's re-export, which a bundler
 * drops when nothing calls it (the client bundle does not grow).
 *
 * @module
 */
import { beginWrite, writeUtf8, type Writer } from "./writer.js";

/**
 * The most UTF-16 units a string field of a small frame may hold: at 3 bytes a unit at most, its
 * length is one byte. (A UUID is 36; most deltas of a token stream are a few.)
 */
export const SMALL_STRING_UNITS = 42;

/**
 * The most string fields a small frame's event has (the generator holds the events to it), which
 * bounds the frame: 4 + 2 (tag) + 2 (arm length) + 4 (BaseEvent) + 6 * (2 + 3 * 42) bytes.
 */
const MAX_FRAME = 4 + 2 + 2 + 4 + 6 * (2 + 3 * SMALL_STRING_UNITS);

/** `String.prototype.charCodeAt` called as a fixed function: see the same constant in writer.ts. */
const codeAt = String.prototype.charCodeAt;

// Where the frame being written starts in the writer's buffer. Encoding is synchronous and never
// re-entered, so one frame is open at a time.
let frameStart = 0;

/**
 * Opens a small frame in the shared pool: frame length and arm length left to
 * {@link closeSmallFrame}, the arm's tag (`tag`, one or two bytes, low byte first) and the
 * BaseEvent of event type `type` written. Returns the writer, whose `pos` the puts advance.
 *
 * @throws Never.
 */
export function openSmallFrame(tag: number, type: number): Writer {
  const w = beginWrite();
  w.ensure(MAX_FRAME);
  const buf = w.buf;
  let pos = w.pos;
  frameStart = pos;
  pos += 4;
  buf[pos++] = tag & 0xff;
  if (tag > 0xff) buf[pos++] = tag >>> 8;
  // The arm's length, filled in when it is closed: one byte is kept, the usual case.
  pos++;
  buf[pos++] = 0x0a;
  if (type === 0) {
    // Type 0 is proto3's default and is not written; the BaseEvent is still there, empty.
    buf[pos++] = 0;
  } else {
    buf[pos++] = 2;
    buf[pos++] = 0x08;
    buf[pos++] = type;
  }
  w.pos = pos;
  return w;
}

/**
 * Writes the string field whose tag is `tag` (one byte) holding `s`, of at most
 * {@link SMALL_STRING_UNITS} units. Lone surrogates become U+FFFD, as `TextEncoder` does.
 *
 * @throws Never.
 */
export function putSmallString(w: Writer, tag: number, s: string): void {
  const buf = w.buf;
  let pos = w.pos;
  buf[pos] = tag;
  const lenAt = pos + 1;
  pos += 2;
  const n = s.length;
  let i = 0;
  // Ids and deltas are mostly ASCII: a tight loop copies those, the first other unit hands the
  // rest to the general one.
  for (; i < n; i++) {
    const c = codeAt.call(s, i);
    if (c >= 0x80) break;
    buf[pos++] = c;
  }
  if (i < n) pos = writeUtf8(s, i, buf, pos);
  buf[lenAt] = pos - lenAt - 1;
  w.pos = pos;
}

/**
 * Fills in the arm's and the frame's lengths of the frame opened by {@link openSmallFrame} and
 * returns it, as a view on the pool (see `Writer.finish`).
 *
 * @throws Never.
 */
export function closeSmallFrame(w: Writer, tag: number): Uint8Array {
  const buf = w.buf;
  const at = frameStart;
  // The arm's length sits after the 4-byte frame length and the tag's one or two bytes.
  const lenAt = at + (tag > 0xff ? 6 : 5);
  const body = w.pos - lenAt - 1;
  if (body < 0x80) {
    buf[lenAt] = body;
  } else {
    // Two bytes (the body is under 16 KiB): the body moves one byte up to make room.
    buf.copyWithin(lenAt + 2, lenAt + 1, w.pos);
    buf[lenAt] = (body & 0x7f) | 0x80;
    buf[lenAt + 1] = body >>> 7;
    w.pos++;
  }
  const len = w.pos - at - 4;
  buf[at] = 0;
  buf[at + 1] = 0;
  buf[at + 2] = len >>> 8;
  buf[at + 3] = len & 0xff;
  return w.finish();
}
