/**
 * Protobuf wire reader used by the generated decoders. Every read is bounds-checked and fails with
 * a `malformed_frame` error rather than reading past the end or trusting a length it was given.
 *
 * @module
 */
import { AguiWireError } from "../util/index.js";

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const f64 = new Float64Array(1);
const f64bytes = new Uint8Array(f64.buffer);

/** Makes the `malformed_frame` error every decoding failure is reported as. */
export function malformed(message: string, cause?: unknown): AguiWireError {
  return new AguiWireError("malformed_frame", `malformed protobuf event: ${message}`, { cause });
}

// The key cache: direct-mapped by a hash of the bytes, shared by all readers (it holds no state
// that a reader could observe other than which string object comes back).
const KEY_CACHE_SIZE = 512;
const KEY_CACHE_MAX_LENGTH = 32;
const keyBytes: Uint8Array[] = new Array<Uint8Array>(KEY_CACHE_SIZE).fill(new Uint8Array(0));
const keyStrings: string[] = new Array<string>(KEY_CACHE_SIZE).fill("");

/** Strings up to this many bytes are decoded by {@link decodeShort}. */
const SHORT_STRING = 64;

/**
 * Decodes `buf[pos..end)` as UTF-8, or returns undefined when the bytes are not UTF-8 (a stray or
 * missing continuation byte, an overlong form, a surrogate, a code point past U+10FFFF): exactly
 * the bytes that the native decoder refuses in fatal mode.
 */
function decodeShort(buf: Uint8Array, pos: number, end: number): string | undefined {
  let s = "";
  // ASCII four bytes at a time: one call and one concatenation per four characters instead of
  // per character (1.5x the speed on ids and deltas). A block with another byte falls through.
  while (pos + 4 <= end) {
    const a = buf[pos]!;
    const b = buf[pos + 1]!;
    const c = buf[pos + 2]!;
    const d = buf[pos + 3]!;
    if ((a | b | c | d) >= 0x80) break;
    s += String.fromCharCode(a, b, c, d);
    pos += 4;
  }
  while (pos < end) {
    const b0 = buf[pos++]!;
    if (b0 < 0x80) {
      s += String.fromCharCode(b0);
    } else if (b0 < 0xc2 || b0 > 0xf4) {
      return undefined;
    } else if (b0 < 0xe0) {
      if (pos >= end) return undefined;
      const b1 = buf[pos++]!;
      if ((b1 & 0xc0) !== 0x80) return undefined;
      s += String.fromCharCode(((b0 & 0x1f) << 6) | (b1 & 0x3f));
    } else if (b0 < 0xf0) {
      if (pos + 2 > end) return undefined;
      const b1 = buf[pos]!;
      const b2 = buf[pos + 1]!;
      pos += 2;
      // After E0 the next byte is A0..BF (no overlong form); after ED, 80..9F (no surrogate).
      if ((b1 & 0xc0) !== 0x80 || (b2 & 0xc0) !== 0x80 || (b0 === 0xe0 && b1 < 0xa0) || (b0 === 0xed && b1 > 0x9f)) {
        return undefined;
      }
      s += String.fromCharCode(((b0 & 0x0f) << 12) | ((b1 & 0x3f) << 6) | (b2 & 0x3f));
    } else {
      if (pos + 3 > end) return undefined;
      const b1 = buf[pos]!;
      const b2 = buf[pos + 1]!;
      const b3 = buf[pos + 2]!;
      pos += 3;
      // After F0 the next byte is 90..BF (no overlong form); after F4, 80..8F (at most U+10FFFF).
      if (
        (b1 & 0xc0) !== 0x80 ||
        (b2 & 0xc0) !== 0x80 ||
        (b3 & 0xc0) !== 0x80 ||
        (b0 === 0xf0 && b1 < 0x90) ||
        (b0 === 0xf4 && b1 > 0x8f)
      ) {
        return undefined;
      }
      const cp = (((b0 & 0x07) << 18) | ((b1 & 0x3f) << 12) | ((b2 & 0x3f) << 6) | (b3 & 0x3f)) - 0x10000;
      s += String.fromCharCode(0xd800 | (cp >> 10), 0xdc00 | (cp & 0x3ff));
    }
  }
  return s;
}

const WIRE_TYPE_NAMES = ["varint", "fixed64", "length-delimited", "start-group", "end-group", "fixed32", "6", "7"];

/** Sequential reader over one encoded event. */
export class Reader {
  buf: Uint8Array;
  /** Next read position. */
  pos: number;
  /** End of the readable bytes. */
  end: number;
  /** Where the message starts; error messages give positions from here, not from the buffer. */
  base: number;
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
    return this.text(this.delimited());
  }

  /**
   * Reads a string field that is likely to repeat, such as an object key: short ASCII strings are
   * looked up in a small cache first, so a key seen before comes back as the same string without
   * building it again (and, used as a property key, without interning it again).
   *
   * @throws {AguiWireError} `malformed_frame`, as {@link Reader.string} does.
   */
  key(): string {
    const end = this.delimited();
    const buf = this.buf;
    const start = this.pos;
    const len = end - start;
    if (len > KEY_CACHE_MAX_LENGTH) return this.text(end);
    let hash = len;
    for (let i = start; i < end; i++) {
      const b = buf[i]!;
      if (b >= 0x80) return this.text(end);
      hash = (Math.imul(hash, 31) + b) | 0;
    }
    const slot = hash & (KEY_CACHE_SIZE - 1);
    const bytes = keyBytes[slot]!;
    if (bytes.length === len) {
      let i = 0;
      while (i < len && bytes[i] === buf[start + i]) i++;
      if (i === len) {
        this.pos = end;
        return keyStrings[slot]!;
      }
    }
    const s = this.text(end);
    keyBytes[slot] = buf.slice(start, end);
    keyStrings[slot] = s;
    return s;
  }

  /** Decodes the UTF-8 from the read position to `end`, and moves past it. */
  private text(end: number): string {
    const start = this.pos;
    if (end - start <= SHORT_STRING) {
      // Short strings (ids, deltas, keys) are decoded here: the native decoder's call and view
      // cost more than the decoding itself at these lengths.
      const s = decodeShort(this.buf, start, end);
      if (s !== undefined) {
        this.pos = end;
        return s;
      }
      // Not valid UTF-8: the native decoder below refuses it too, and its error is kept as cause.
    }
    let s: string;
    try {
      s = decoder.decode(this.buf.subarray(start, end));
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
        this.skipBytes(8);
        return;
      case 2:
        this.pos = this.delimited();
        return;
      case 5:
        this.skipBytes(4);
        return;
      default:
        throw malformed(`unsupported wire type ${WIRE_TYPE_NAMES[wireType]} at byte ${this.pos - this.base}`);
    }
  }

  private skipBytes(n: number): void {
    if (this.pos + n > this.end) throw malformed(`truncated field at byte ${this.pos - this.base}`);
    this.pos += n;
  }
}

/**
 * Skips a field the decoder did not match. A known field number arriving with the wrong wire type
 * is an error, not an unknown field; `known` is a bit set of the message's field numbers (< 32).
 */
export function skipField(r: Reader, tag: number, known: number, message: string): void {
  const no = tag >>> 3;
  if (no < 32 && known & (1 << no)) {
    throw malformed(`field ${no} of ${message} has wire type ${WIRE_TYPE_NAMES[tag & 7]}, which is not its type`);
  }
  r.skip(tag & 7);
}

/** The name of an enum number, or the number itself as a string when the schema has no such value. */
export function enumName(names: readonly string[], n: number): string {
  return names[n] ?? String(n);
}
