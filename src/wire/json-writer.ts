/**
 * JSON arrays and objects as `google.protobuf.Value` / `Struct` bytes, written back to front.
 *
 * Protobuf puts each nested message's length before its body, and a JSON value is messages nested
 * several deep (Value, Struct, entry, Value, ...). Written front to back, every body longer than
 * 127 bytes has to be moved once its length is known, at every level, and a size-first pass walks
 * the value twice. Written back to front, as upb does, each body is complete when its length is
 * due: one walk, no moves, and the only copy is the finished value's move down in the event
 * writer's buffer, from its end (where it is written) against the event's bytes.
 * Bytes are those protobuf-es writes: entries in the object's key order, minimal varints, the
 * empty key not written, `null` as an explicit null_value.
 *
 * Every value is checked as it is written, as `findJsonProblem` (src/model/json-problem.ts) checks
 * it, so that the binary encoder need not walk a value once to validate it and once more to write
 * it: a part that is not JSON (undefined, a function, NaN, an instance of a class, an empty array
 * slot, nesting past {@link MAX_JSON_DEPTH} levels, which a cycle reaches) stops the writing with
 * {@link NOT_JSON}, and the encoder lets the model judge the event (which words the error). The
 * writer accepts exactly what findJsonProblem accepts, so a validated value never stops it, and the
 * bound keeps the recursion bounded.
 *
 * @module
 */
import { isPlainObjectPrototype, MAX_JSON_DEPTH, type JsonValue } from "../model/json-problem.js";
import { varintSize, type Writer } from "./writer.js";

/** This realm's `Object.prototype`: the prototype of nearly every object written, tested first. */
const OBJECT_PROTOTYPE: object = Object.prototype;
/** Room the writer's buffer should have for a value before one is written (see begin()). */
const VALUE_ROOM = 16 * 1024;
/** Strings up to this many UTF-16 units are encoded by a loop; longer ones by `encodeInto`. */
const SHORT_STRING = 64;

const encoder = new TextEncoder();
/**
 * `String.prototype.charCodeAt`, called as `codeAt.call(s, i)`: a fixed function is inlined
 * whatever the string's representation, where `s.charCodeAt(i)` stops being inlined once its
 * lookup has met more than four kinds of strings (see the same constant in writer.ts). Declared
 * here rather than imported, so that it is a constant of this module.
 */
const codeAt = String.prototype.charCodeAt;

// The buffer written: the event writer's own, whose free space above what the event holds so far
// takes the value, written down from the buffer's end and then moved down against the event's
// bytes (one copyWithin: no scratch buffer to copy out of, which cost a view and a set() a value,
// 2-3 times the move). `floor` is where the event's bytes end: nothing is written below it.
// Encoding is synchronous and never re-entered. Writing moves down from the end: the functions
// below take the position before which they write and return the one they wrote down to, so that
// it stays in a register rather than in this module's context (a module variable is a memory load
// and store at every byte), and reload `buf` only after a call that may grow it.
let buf: Uint8Array = new Uint8Array(0);
let view: DataView = new DataView(buf.buffer);
let floor = 0;
// The event writer whose buffer `buf` is (grow() moves its bytes too).
let target: Writer | undefined;

/**
 * Thrown when a value being written is not JSON (see above): the writing is abandoned, and what was
 * written of it is never handed out. One object, as the encoder compares it by identity.
 */
export const NOT_JSON: Error = new Error("not a JSON value");

/**
 * Writes `v`, an array or an object, as the body of a `google.protobuf.Value` (the caller writes
 * tag and length) to `w`.
 */
export function writeCompositeValue(w: Writer, v: JsonValue[] | { readonly [key: string]: JsonValue }): void {
  moveDown(w, value(v, begin(w), 0));
}

/**
 * Writes `v`, an array or an object, as the length and body of a `google.protobuf.Value` field (the
 * caller writes the tag) to `w`.
 */
export function writeDelimitedComposite(w: Writer, v: JsonValue[] | { readonly [key: string]: JsonValue }): void {
  moveDown(w, lengthBefore(value(v, begin(w), 0)));
}

/** Writes the JSON object `v` as the length and body of a `google.protobuf.Struct` field to `w`. */
export function writeDelimitedStruct(w: Writer, v: { readonly [key: string]: JsonValue }): void {
  moveDown(w, lengthBefore(struct(v, begin(w), 0)));
}

/** Starts writing a value into `w`'s buffer; returns the position to write before (its end). */
function begin(w: Writer): number {
  // A value abandoned with NOT_JSON leaves the stack where it stopped.
  top = 0;
  // A value moved to a larger buffer midway is copied once more, and the buffer doubles: with
  // less room than this left, the writer starts a fresh pool now, taking only the event's bytes.
  w.ensure(VALUE_ROOM);
  const b = w.buf;
  if (b !== buf) {
    // Every buffer of the writer's is a whole ArrayBuffer (byteOffset 0).
    buf = b;
    view = new DataView(b.buffer);
  }
  target = w;
  floor = w.pos;
  return b.length;
}

/** Writes the length of the value written from `p` to the buffer's end before it; returns where it starts. */
function lengthBefore(p: number): number {
  if (p - floor < 5) p = grow(p, 5);
  const b = buf;
  const len = b.length - p;
  if (len < 0x80) b[--p] = len;
  else p = prefixLong(b, p, len);
  return p;
}

/** Moves the value written from `pos` to the end of `w`'s buffer down to the end of its bytes. */
function moveDown(w: Writer, pos: number): void {
  const b = buf;
  const at = w.pos;
  const end = b.length;
  if (end - pos <= 16) {
    // A call to copyWithin() costs more than the copy for a few bytes.
    let q = at;
    for (let i = pos; i < end; i++) b[q++] = b[i]!;
  } else {
    b.copyWithin(at, pos, end);
  }
  w.pos = at + end - pos;
}

/**
 * Makes room for `n` bytes below `pos` above the event's bytes: a larger buffer, with the event's
 * bytes at its start and what is written of the value at its end, becomes the writer's; returns
 * where the value starts there. Callers test `pos - floor < n` first, so that the common case is
 * no call.
 */
function grow(pos: number, n: number): number {
  const w = target!;
  const head = w.pos - w.start;
  const used = buf.length - pos;
  const size = Math.max(2 * buf.length, 2 * (head + used + n));
  const grown = new Uint8Array(size);
  grown.set(buf.subarray(w.start, w.pos));
  grown.set(buf.subarray(pos), size - used);
  w.buf = grown;
  w.start = 0;
  w.pos = head;
  buf = grown;
  view = new DataView(grown.buffer);
  floor = head;
  return size - used;
}

/** Writes the varint `len`, 0x80 or more, before `p` in `b`; returns where it starts. */
function prefixLong(b: Uint8Array, p: number, len: number): number {
  p -= varintSize(len);
  let q = p;
  while (len > 0x7f) {
    b[q++] = (len & 0x7f) | 0x80;
    len >>>= 7;
  }
  b[q] = len;
  return p;
}

/**
 * Writes before `p` the length of what was written since the mark `end` (counted from the
 * buffer's end, as value() marks it), then the field's `tag`; returns where the tag starts. The
 * caller has made room: 6 bytes.
 */
function lengthAndTag(p: number, end: number, tag: number): number {
  const b = buf;
  const len = b.length - p - end;
  if (len < 0x80) b[--p] = len;
  else p = prefixLong(b, p, len);
  b[--p] = tag;
  return p;
}

/**
 * Writes a `google.protobuf.Value` body holding `v` before `p`; returns where it starts. `depth`
 * counts the arrays and objects enclosing `v`. (Marks count from the end of the buffer, which
 * stays put when grow() moves what is written.)
 *
 * @throws {@link NOT_JSON} for a part not JSON.
 */
function value(v: JsonValue, p: number, depth: number): number {
  if (typeof v !== "object" || v === null) {
    if (p - floor < 9) p = grow(p, 9);
    return scalar(v, p);
  }
  const end = buf.length - p;
  let tag: number;
  if (Array.isArray(v)) {
    if (depth >= MAX_JSON_DEPTH) throw NOT_JSON;
    // An empty slot reads as undefined, which scalar() refuses (as an explicit undefined).
    for (let i = v.length - 1; i >= 0; i--) {
      const item = v[i]!;
      const itemEnd = buf.length - p;
      if (typeof item === "string") {
        // Room below it for its tag, and the item's length and tag.
        p = string(item, p, 7);
        buf[--p] = 0x1a; // 3: string_value
      } else if (typeof item !== "object" || item === null) {
        if (p - floor < 15) p = grow(p, 15);
        p = scalar(item, p);
      } else if (!Array.isArray(item)) {
        // An object, the usual item of a list of records: its Struct written here rather than
        // through value(), one call fewer per item.
        p = struct(item, p, depth + 1);
        if (p - floor < 12) p = grow(p, 12);
        p = lengthAndTag(p, itemEnd, 0x2a); // 5: struct_value
      } else {
        p = value(item, p, depth + 1);
        if (p - floor < 6) p = grow(p, 6);
      }
      p = lengthAndTag(p, itemEnd, 0x0a); // ListValue.values
    }
    tag = 0x32; // 6: list_value
  } else {
    p = struct(v, p, depth);
    tag = 0x2a; // 5: struct_value
  }
  if (p - floor < 6) p = grow(p, 6);
  return lengthAndTag(p, end, tag);
}

/**
 * Writes a `google.protobuf.Value` body holding a string, number, boolean or null before `p`;
 * returns where it starts. The caller has made room: 9 bytes (a string makes its own).
 *
 * @throws {@link NOT_JSON} for anything else that is not an object (undefined, a function, a symbol,
 *   a bigint) and for a number that is not finite.
 */
function scalar(v: string | number | boolean | null, p: number): number {
  switch (typeof v) {
    case "string":
      p = string(v, p, 1);
      buf[--p] = 0x1a; // 3: string_value
      return p;
    case "number":
      if (!Number.isFinite(v)) throw NOT_JSON;
      p -= 8;
      view.setFloat64(p, v, true);
      buf[--p] = 0x11; // 2: number_value
      return p;
    case "boolean": {
      const b = buf;
      b[--p] = v ? 1 : 0;
      b[--p] = 0x20; // 4: bool_value
      return p;
    }
    default: {
      if (v !== null) throw NOT_JSON;
      const b = buf;
      b[--p] = 0; // 1: null_value, written explicitly so that null differs from absent
      b[--p] = 0x08;
      return p;
    }
  }
}

// Entries of the objects being written, pushed in key order by a for-in (the fastest way through
// an object's properties: V8 reads each from the enumeration cache, with no keyed lookup and no
// array made) and popped last first. Shared by the nested objects, each above its parent's
// unwritten entries.
const keyStack: string[] = [];
const valueStack: JsonValue[] = [];
let top = 0;

/**
 * Writes a `google.protobuf.Struct` body holding `v` before `p`; returns where it starts. `depth`
 * as for value().
 *
 * @throws {@link NOT_JSON} as value() does.
 */
function struct(v: { readonly [key: string]: JsonValue }, p: number, depth: number): number {
  if (depth >= MAX_JSON_DEPTH) throw NOT_JSON;
  const proto = Object.getPrototypeOf(v) as object | null;
  if (proto !== OBJECT_PROTOTYPE && !isPlainObjectPrototype(proto)) throw NOT_JSON;
  const ks = keyStack;
  const vs = valueStack;
  const base = top;
  let t = base;
  for (const key in v) {
    ks[t] = key;
    vs[t++] = v[key]!;
  }
  while (t > base) {
    const i = --t;
    const item = vs[i]!;
    const key = ks[i]!;
    const entryEnd = buf.length - p;
    // Room below the value for its tag (a string's), length and FieldsEntry.value tag; writeKey()
    // makes room for the key and the entry's length and tag. (A string's length is read once: its
    // property load sees every kind of string a server meets, a megamorphic load that costs
    // about 13 ns where a monomorphic one costs 2.)
    if (typeof item === "string") {
      p = string(item, p, 7);
      buf[--p] = 0x1a; // 3: string_value
    } else if (typeof item !== "object" || item === null) {
      if (p - floor < 15) p = grow(p, 15);
      p = scalar(item, p);
    } else {
      // The nested value's entries go above this object's unwritten ones.
      top = t;
      p = value(item, p, depth + 1);
      // Not kept alive by the stack once written.
      vs[i] = null;
      if (p - floor < 6) p = grow(p, 6);
    }
    p = lengthAndTag(p, entryEnd, 0x12); // FieldsEntry.value
    // An empty key is the proto3 default and is not written, as other encoders do.
    if (key !== "") p = writeKey(p, key, ((depth << 4) + i - base) & (KEY_SLOTS - 1));
    else if (p - floor < 6) p = grow(p, 6);
    p = lengthAndTag(p, entryEnd, 0x0a); // Struct.fields
  }
  top = base;
  return p;
}

// Object keys repeat (every element of a list of records has the same ones), so their encoded
// FieldsEntry.key fields (tag, length, UTF-8) are cached, as words (see encodeKey()). Two levels:
// a slot per position in an object (its depth and the entry's index), which the same key at the
// same place hits with one comparison of two strings that are usually the same object; and behind
// it a map by key, a hash lookup that costs more than writing the key's bytes.
const KEY_SLOTS = 256;
const slotKeys: string[] = new Array<string>(KEY_SLOTS).fill("");
const slotWords: Int32Array[] = new Array<Int32Array>(KEY_SLOTS).fill(new Int32Array(2));
const keyCache = new Map<string, Int32Array>();
const KEY_CACHE_SIZE = 4096;
const KEY_CACHE_MAX_LENGTH = 64;

/**
 * Writes the FieldsEntry.key field of `key` before `p`, from the cache (`slot` is its place in the
 * first level); returns where it starts, with room before it for the entry's length and tag.
 */
function writeKey(p: number, key: string, slot: number): number {
  let words: Int32Array;
  if (slotKeys[slot] === key) {
    words = slotWords[slot]!;
  } else {
    // Room to encode the key, which encodeKey() needs (it must not grow the buffer under `p`).
    const units = key.length;
    if (p - floor < 3 * units + 12) p = grow(p, 3 * units + 12);
    words = keyCache.get(key) ?? encodeKey(key, p);
    if (units <= KEY_CACHE_MAX_LENGTH) {
      slotKeys[slot] = key;
      slotWords[slot] = words;
    }
  }
  const n = words[0]!;
  if (p - floor < n + 6) p = grow(p, n + 6);
  const b = buf;
  if (n >= 4) {
    // Whole words from the end, then the first four bytes over the start (overlapping what the
    // last word wrote when n is not a multiple of 4).
    const d = view;
    const start = p - n;
    for (let k = 2; k < words.length; k++) {
      p -= 4;
      d.setInt32(p, words[k]!, true);
    }
    d.setInt32(start, words[1]!, true);
    return start;
  }
  // Three bytes (the key is not empty): the tag, the length 1 and a one-byte key.
  const h = words[1]!;
  b[--p] = h >>> 16;
  b[--p] = (h >>> 8) & 0xff;
  b[--p] = h & 0xff;
  return p;
}

/**
 * The FieldsEntry.key field of `key` as words: its length n in bytes, then its first four bytes
 * (all of them when fewer, little-endian), then the words ending at n, n - 4, ... down to the
 * first that ends past byte 4. Kept in the map when the key is short. The bytes are written below
 * `p`, where the caller has made room, and left there to be overwritten.
 */
function encodeKey(key: string, p: number): Int32Array {
  const end = buf.length - p;
  let q = string(key, p, 1);
  buf[--q] = 0x0a;
  const bytes = buf.slice(q, buf.length - end);
  const n = bytes.length;
  const words = new Int32Array(n > 4 ? 2 + ((n - 1) >> 2) : 2);
  words[0] = n;
  let head = 0;
  for (let j = Math.min(n, 4) - 1; j >= 0; j--) head = (head << 8) | bytes[j]!;
  words[1] = head;
  const d = new DataView(bytes.buffer);
  let k = 2;
  for (let e = n; e > 4; e -= 4) words[k++] = d.getInt32(e - 4, true);
  if (key.length <= KEY_CACHE_MAX_LENGTH) {
    // Past its size the cache starts again rather than keep every key a stream ever had.
    if (keyCache.size >= KEY_CACHE_SIZE) keyCache.clear();
    keyCache.set(key, words);
  }
  return words;
}

/**
 * Writes `s` as UTF-8 with its length before `end`; returns where it starts, with room for `extra`
 * more bytes before it. Lone surrogates become U+FFFD, as `TextEncoder` does.
 */
function string(s: string, end: number, extra: number): number {
  const n = s.length;
  let p = end;
  if (n <= SHORT_STRING) {
    if (p - floor < 3 * n + 5 + extra) p = end = grow(p, 3 * n + 5 + extra);
    // One pass from the last character to the first, each written as it is read (UTF-8 read
    // backwards: a pair is met low surrogate first).
    const b = buf;
    let i = n - 1;
    if (i >= 3) {
      // ASCII four characters at a time, one store of a word for the four.
      const d = view;
      do {
        const c0 = codeAt.call(s, i);
        const c1 = codeAt.call(s, i - 1);
        const c2 = codeAt.call(s, i - 2);
        const c3 = codeAt.call(s, i - 3);
        if ((c0 | c1 | c2 | c3) >= 0x80) break;
        p -= 4;
        d.setInt32(p, c3 | (c2 << 8) | (c1 << 16) | (c0 << 24), true);
        i -= 4;
      } while (i >= 3);
      if (i >= 0 && i < 3) {
        // One to three characters left, and all after them ASCII: the first four as a word, over
        // the start of what is written (the same bytes), rather than one by one.
        const c0 = codeAt.call(s, 0);
        const c1 = codeAt.call(s, 1);
        const c2 = codeAt.call(s, 2);
        const c3 = codeAt.call(s, 3);
        if ((c0 | c1 | c2 | c3) < 0x80) {
          p -= i + 1;
          d.setInt32(p, c0 | (c1 << 8) | (c2 << 16) | (c3 << 24), true);
          i = -1;
        }
      }
    }
    for (; i >= 0; i--) {
      const c = codeAt.call(s, i);
      if (c < 0x80) {
        b[--p] = c;
      } else if (c < 0x800) {
        b[--p] = 0x80 | (c & 0x3f);
        b[--p] = 0xc0 | (c >> 6);
      } else if (c < 0xd800 || c > 0xdfff) {
        b[--p] = 0x80 | (c & 0x3f);
        b[--p] = 0x80 | ((c >> 6) & 0x3f);
        b[--p] = 0xe0 | (c >> 12);
      } else {
        const high = i > 0 ? codeAt.call(s, i - 1) : 0;
        if (c >= 0xdc00 && high >= 0xd800 && high <= 0xdbff) {
          const cp = 0x10000 + ((high - 0xd800) << 10) + (c - 0xdc00);
          i--;
          b[--p] = 0x80 | (cp & 0x3f);
          b[--p] = 0x80 | ((cp >> 6) & 0x3f);
          b[--p] = 0x80 | ((cp >> 12) & 0x3f);
          b[--p] = 0xf0 | (cp >> 18);
        } else {
          // A lone surrogate (a high one met here never has its low one after it: that one would
          // have taken it).
          b[--p] = 0xbd;
          b[--p] = 0xbf;
          b[--p] = 0xef;
        }
      }
    }
    const written = end - p;
    if (written < 0x80) b[--p] = written;
    else p = prefixLong(b, p, written);
    return p;
  }
  // Long strings: the native encoder writes them at the bottom of a worst-case gap, and they are
  // moved up against what follows.
  const max = 3 * n;
  if (p - floor < max + 5 + extra) p = grow(p, max + 5 + extra);
  const b = buf;
  const at = p - max;
  const written = encoder.encodeInto(s, b.subarray(at, p)).written;
  b.copyWithin(p - written, at, at + written);
  p -= written;
  if (written < 0x80) b[--p] = written;
  else p = prefixLong(b, p, written);
  return p;
}
