/**
 * Protobuf wire reader used by the generated decoders. Every read is bounds-checked and fails with
 * a `malformed_frame` error rather than reading past the end or trusting a length it was given.
 *
 * @module
 */
import { AguiWireError } from "../util/index.js";
import { decodeKey, decodeUtf8 } from "./utf8.js";

const f64 = new Float64Array(1);
const f64bytes = new Uint8Array(f64.buffer);

/** Makes the `malformed_frame` error every decoding failure is reported as. */
export function malformed(message: string, cause?: unknown): AguiWireError {
  return new AguiWireError("malformed_frame", `malformed protobuf event: ${message}`, { cause });
}

const WIRE_TYPE_NAMES = ["varint", "fixed64", "length-delimited", "start-group", "end-group", "fixed32", "6", "7"];

/** Sequential reader over one encoded event. */
export class Reader {
  // The four `declare`d fields are assigned by the constructor and by reset: a class field would only
  // add a definition to every bundle. (They now follow the initialised fields in the object's
  // shape, which does not change the cost of reading them.)
  declare buf: Uint8Array;
  /** Next read position. */
  declare pos: number;
  /** End of the readable bytes. */
  declare end: number;
  /** Where the message starts; error messages give positions from here, not from the buffer. */
  declare base: number;
  /**
   * Whether elements of repeated fields are still stored. Cleared once enough invalid elements are
   * stored for the error to report (see src/wire/element-checks.ts): the event will be rejected, so later
   * elements are read and checked but not built into it.
   */
  keeping = true;
  /** How many invalid elements have been stored (kept for the error to report). */
  invalid = 0;
  /** Problems found in elements that were read but not stored, for the error's count. */
  omitted = 0;
  /**
   * Whether the event is read for a tolerant judge (AG-UI 1.1's processing model): a nested union
   * with only an arm this schema lacks is read as a member of unknown kind, for the judge to strip,
   * rather than failing the frame; see src/wire/element-checks.ts.
   */
  tolerant = false;
  /** How many stored elements only a tolerant judge accepts (they hold a member of unknown kind). */
  strippable = 0;
  /** When tolerant: the first field skipped as unknown (`field 9 of agui.wire.v1.…`), for a warning. */
  skipped = "";

  /** Reads `buf` from `start` to `end` (the whole array by default) without copying it. */
  constructor(buf: Uint8Array, start = 0, end = buf.length) {
    this.buf = buf;
    this.pos = start;
    this.end = end;
    this.base = start;
  }

  /** Points the reader at other bytes, as the constructor does, so that one reader can be reused. */
  reset(buf: Uint8Array, start: number, end: number): void {
    this.buf = buf;
    this.pos = start;
    this.end = end;
    this.base = start;
    this.keeping = true;
    this.invalid = 0;
    this.omitted = 0;
    this.strippable = 0;
    this.skipped = "";
  }

  /** Reads a field tag (field number << 3 | wire type). */
  tag(): number {
    const t = this.uint32();
    if (t >>> 3 === 0) throw malformed(`field number 0 at byte ${this.pos - this.base}`);
    return t;
  }

  /** Reads a varint as an unsigned 32-bit number; higher bits of a longer varint are dropped. */
  uint32(): number {
    const buf = this.buf;
    let pos = this.pos;
    if (pos < this.end && buf[pos]! < 0x80) {
      this.pos = pos + 1;
      return buf[pos]!;
    }
    let result = 0;
    for (let shift = 0; shift < 70; shift += 7) {
      if (pos >= this.end) throw malformed(`truncated varint at byte ${this.pos - this.base}`);
      const b = buf[pos++]!;
      if (shift < 32) result |= (b & 0x7f) << shift;
      if (b < 0x80) {
        this.pos = pos;
        return result >>> 0;
      }
    }
    throw malformed(`varint longer than 10 bytes at byte ${this.pos - this.base}`);
  }

  /**
   * Reads an int64 varint as a number.
   *
   * @throws {AguiWireError} `malformed_frame` if the value is not a safe integer.
   */
  int64(): number {
    const start = this.pos;
    let lo = 0;
    let hi = 0;
    let pos = this.pos;
    const buf = this.buf;
    for (let i = 0; ; i++) {
      if (i === 10) throw malformed(`varint longer than 10 bytes at byte ${start - this.base}`);
      if (pos >= this.end) throw malformed(`truncated varint at byte ${start - this.base}`);
      const b = buf[pos++]!;
      if (i < 4) lo |= (b & 0x7f) << (7 * i);
      else if (i === 4) {
        lo |= (b & 0x0f) << 28;
        hi |= (b & 0x7f) >>> 4;
      } else hi |= (b & 0x7f) << (7 * i - 32);
      if (b < 0x80) break;
    }
    this.pos = pos;
    lo >>>= 0;
    hi >>>= 0;
    let value: number;
    if (hi & 0x80000000) {
      // Negative: undo the two's complement on the halves.
      const nlo = (~lo + 1) >>> 0;
      const nhi = (~hi + (nlo === 0 ? 1 : 0)) >>> 0;
      value = -(nhi * 4294967296 + nlo);
    } else value = hi * 4294967296 + lo;
    if (!Number.isSafeInteger(value)) throw malformed(`int64 at byte ${start - this.base} is outside the safe integer range`);
    return value;
  }

  /** Reads a little-endian IEEE 754 double. */
  double(): number {
    if (this.pos + 8 > this.end) throw malformed(`truncated double at byte ${this.pos - this.base}`);
    for (let i = 0; i < 8; i++) f64bytes[i] = this.buf[this.pos + i]!;
    this.pos += 8;
    return f64[0]!;
  }

  /** Reads a length prefix and returns where the delimited bytes end. */
  delimited(): number {
    const at = this.pos;
    const len = this.uint32();
    const end = this.pos + len;
    if (end > this.end) throw malformed(`length ${len} at byte ${at - this.base} runs past the end (${this.end - this.pos} bytes left)`);
    return end;
  }

  /** Reads a length-prefixed UTF-8 string. */
  string(): string {
    return this.#text(this.delimited(), false);
  }

  /**
   * Reads a string field that is likely to repeat, such as an object key: in Node, short ASCII
   * strings are looked up in a small cache first (see src/wire/utf8.ts).
   *
   * @throws {AguiWireError} `malformed_frame`, as {@link Reader.string} does.
   */
  key(): string {
    return this.#text(this.delimited(), true);
  }

  /** Decodes the UTF-8 from the read position to `end` (as a likely repeated `key`), and moves past it. */
  #text(end: number, key: boolean): string {
    const start = this.pos;
    let s: string;
    try {
      s = key ? decodeKey(this.buf, start, end) : decodeUtf8(this.buf, start, end);
    } catch (err) {
      throw malformed(`invalid UTF-8 in the string at byte ${start - this.base}`, err);
    }
    this.pos = end;
    return s;
  }

  /**
   * Checks that a message's fields ended exactly at its declared end. A nested length or a
   * scalar that ran past its parent's end is caught here rather than read as the parent's data.
   */
  checkEnd(end: number, message: string): void {
    if (this.pos !== end) throw malformed(`the fields of ${message} run ${this.pos - end} bytes past its length`);
  }

  /**
   * Checks that an event message's fields ended at `end` and that it held its BaseEvent (field 1):
   * the tail of every generated event reader, kept here once.
   *
   * @throws {AguiWireError} `malformed_frame` when either does not hold.
   */
  endEvent(end: number, type: string, hasBase: boolean): void {
    this.checkEnd(end, type);
    if (!hasBase) throw malformed(`${type} event has no BaseEvent (field 1)`);
  }

  /** Skips the value of a field of the given wire type. */
  skip(wireType: number): void {
    switch (wireType) {
      case 0:
        this.uint32();
        return;
      case 1:
        this.#skipBytes(8);
        return;
      case 2:
        this.pos = this.delimited();
        return;
      case 5:
        this.#skipBytes(4);
        return;
      default:
        throw malformed(`unsupported wire type ${WIRE_TYPE_NAMES[wireType]} at byte ${this.pos - this.base}`);
    }
  }

  #skipBytes(n: number): void {
    if (this.pos + n > this.end) throw malformed(`truncated field at byte ${this.pos - this.base}`);
    this.pos += n;
  }
}

/**
 * Skips a field the decoder did not match. A known field number arriving with the wrong wire type
 * is an error, not an unknown field; `known` is a bit set of the message's field numbers (< 32).
 * A tolerant reader notes the first unknown field for its warning, unless it is a union's `arm`.
 *
 * @throws {AguiWireError} `malformed_frame` for a known field of the wrong wire type, or bytes
 *   that end inside the field.
 */
export function skipField(r: Reader, tag: number, known: number, message: string, arm = false): void {
  const no = tag >>> 3;
  if (no < 32 && known & (1 << no)) {
    throw malformed(`field ${no} of ${message} has wire type ${WIRE_TYPE_NAMES[tag & 7]}, which is not its type`);
  }
  // A newer peer's field: skipped, which strips it, as over SSE; a tolerant reader warns of it. A
  // union's unknown arm is a member of unknown kind instead, which its reader reports.
  if (r.tolerant && !arm) r.skipped ||= `field ${no} of ${message}`;
  r.skip(tag & 7);
}

/** The name of an enum number, or the number itself as a string when the schema has no such value. */
export function enumName(names: readonly string[], n: number): string {
  return names[n] ?? String(n);
}
