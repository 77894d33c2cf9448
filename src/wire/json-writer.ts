/**
 * JSON arrays and objects as `google.protobuf.Value` / `Struct` bytes, written back to front.
 *
 * Protobuf puts each nested message's length before its body, and a JSON value is messages nested
 * several deep (Value, Struct, entry, Value, ...). Written front to back, every body longer than
 * 127 bytes has to be moved once its length is known, at every level, and a size-first pass walks
 * the value twice. Written back to front, as upb does, each body is complete when its length is
 * due: one walk, no moves, and the only copy is the finished value's into the event's writer.
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
import { varintSize, writeUtf8, type Writer } from "./writer.js";

const INITIAL_SIZE = 16 * 1024;
// A scratch buffer grown past this by one large value is dropped afterwards, as the writer's pool is.
const KEEP_LIMIT = 1024 * 1024;
/** Strings up to this many UTF-16 units are copied by a loop; longer ones by `encodeInto`. */
const SHORT_STRING = 64;

const encoder = new TextEncoder();
/**
 * `String.prototype.charCodeAt`, called as `codeAt.call(s, i)`: a fixed function is inlined
 * whatever the string's representation, where `s.charCodeAt(i)` stops being inlined once its
 * lookup has met more than four kinds of strings (see the same constant in writer.ts). Declared
 * here rather than imported, so that it is a constant of this module.
 */
const codeAt = String.prototype.charCodeAt;

// The scratch buffer and the start of what is written in it (writing moves `pos` down). Encoding
// is synchronous and never re-entered, so one buffer serves every value.
let buf = new Uint8Array(INITIAL_SIZE);
let view = new DataView(buf.buffer);
let pos = buf.length;
// Arrays and objects enclosing the one being written.
let depth = 0;

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
  // A value abandoned with NOT_JSON leaves these where it stopped.
  pos = buf.length;
  depth = 0;
  top = 0;
  value(v);
  copyTo(w);
}

/** Writes the JSON object `v` as the body of a `google.protobuf.Struct` to `w`. */
export function writeStructBody(w: Writer, v: { readonly [key: string]: JsonValue }): void {
  pos = buf.length;
  depth = 0;
  top = 0;
  struct(v);
  copyTo(w);
}

/** Appends what the scratch buffer holds to `w`. */
function copyTo(w: Writer): void {
  const len = buf.length - pos;
  w.ensure(len);
  const out = w.buf;
  let at = w.pos;
  if (len <= 32) {
    // A call to set() costs more than the copy for a few bytes.
    for (let i = pos; i < buf.length; i++) out[at++] = buf[i]!;
  } else {
    out.set(buf.subarray(pos), at);
  }
  w.pos += len;
  if (buf.length > KEEP_LIMIT) {
    buf = new Uint8Array(INITIAL_SIZE);
    view = new DataView(buf.buffer);
  }
  pos = buf.length;
}

/** Makes room for `n` more bytes below `pos`, moving what is written to the end of a larger buffer. */
function room(n: number): void {
  if (pos >= n) return;
  const used = buf.length - pos;
  const size = Math.max(2 * buf.length, 2 * (used + n));
  const grown = new Uint8Array(size);
  grown.set(buf.subarray(pos), size - used);
  buf = grown;
  view = new DataView(grown.buffer);
  pos = size - used;
}

/** Writes the varint `len` before `pos`. The caller has made room for 5 bytes. */
function prefix(len: number): void {
  if (len < 0x80) {
    buf[--pos] = len;
    return;
  }
  pos -= varintSize(len);
  let p = pos;
  while (len > 0x7f) {
    buf[p++] = (len & 0x7f) | 0x80;
    len >>>= 7;
  }
  buf[p] = len;
}

/** Writes a `google.protobuf.Value` body holding `v`. @throws {@link NOT_JSON} for a part not JSON. */
function value(v: JsonValue): void {
  if (typeof v !== "object" || v === null) {
    room(typeof v === "string" ? 3 * v.length + 6 : 9);
    scalar(v);
    return;
  }
  // Marks count from the end of the buffer, which stays put when room() moves what is written.
  const end = buf.length - pos;
  if (Array.isArray(v)) {
    if (depth >= MAX_JSON_DEPTH) throw NOT_JSON;
    depth++;
    // An empty slot reads as undefined, which scalar() refuses (as an explicit undefined).
    for (let i = v.length - 1; i >= 0; i--) {
      const item = v[i]!;
      const itemEnd = buf.length - pos;
      if (typeof item !== "object" || item === null) {
        room(typeof item === "string" ? 3 * item.length + 12 : 15);
        scalar(item);
      } else {
        value(item);
        room(6);
      }
      prefix(buf.length - pos - itemEnd);
      buf[--pos] = 0x0a; // ListValue.values
    }
    depth--;
    room(6);
    prefix(buf.length - pos - end);
    buf[--pos] = 0x32; // 6: list_value
  } else {
    struct(v);
    room(6);
    prefix(buf.length - pos - end);
    buf[--pos] = 0x2a; // 5: struct_value
  }
}

/**
 * Writes a `google.protobuf.Value` body holding a string, number, boolean or null. The caller has
 * made room: 9 bytes, or for a string 3 per UTF-16 unit and 6.
 *
 * @throws {@link NOT_JSON} for anything else that is not an object (undefined, a function, a symbol,
 *   a bigint) and for a number that is not finite.
 */
function scalar(v: string | number | boolean | null): void {
  switch (typeof v) {
    case "string":
      string(v);
      buf[--pos] = 0x1a; // 3: string_value
      return;
    case "number":
      if (!Number.isFinite(v)) throw NOT_JSON;
      pos -= 8;
      view.setFloat64(pos, v, true);
      buf[--pos] = 0x11; // 2: number_value
      return;
    case "boolean":
      buf[--pos] = v ? 1 : 0;
      buf[--pos] = 0x20; // 4: bool_value
      return;
    default:
      if (v !== null) throw NOT_JSON;
      buf[--pos] = 0; // 1: null_value, written explicitly so that null differs from absent
      buf[--pos] = 0x08;
  }
}

// Entries of the objects being written, pushed in key order by a for-in (the fastest way through
// an object's properties: V8 reads each from the enumeration cache, with no keyed lookup and no
// array made) and popped last first. Shared by the nested objects, each above its parent's.
const keyStack: string[] = [];
const valueStack: JsonValue[] = [];
let top = 0;

/** Writes a `google.protobuf.Struct` body holding `v`. @throws {@link NOT_JSON} as value() does. */
function struct(v: { readonly [key: string]: JsonValue }): void {
  if (depth >= MAX_JSON_DEPTH || !isPlainObjectPrototype(Object.getPrototypeOf(v) as object | null)) throw NOT_JSON;
  depth++;
  const base = top;
  for (const key in v) {
    keyStack[top] = key;
    valueStack[top++] = v[key]!;
  }
  while (top > base) {
    const i = --top;
    const entryEnd = buf.length - pos;
    const item = valueStack[i]!;
    const key = keyStack[i]!;
    // Room for the key with its length and tag, the value's and the entry's length and tag (and
    // for a scalar value, the value).
    if (typeof item !== "object" || item === null) {
      room(3 * key.length + (typeof item === "string" ? 3 * item.length + 24 : 27));
      scalar(item);
    } else {
      value(item);
      // Not kept alive by the stack once written.
      valueStack[i] = null;
      room(3 * key.length + 18);
    }
    prefix(buf.length - pos - entryEnd);
    buf[--pos] = 0x12; // FieldsEntry.value
    if (key !== "") {
      // An empty key is the proto3 default and is not written, as other encoders do. Keys repeat
      // (every element of a list of records has the same ones): their bytes come from a cache.
      let bytes = keyCache.get(key);
      if (bytes === undefined) bytes = cacheKey(key);
      const b = buf;
      let p = pos;
      for (let j = bytes.length - 1; j >= 0; j--) b[--p] = bytes[j]!;
      pos = p;
    }
    prefix(buf.length - pos - entryEnd);
    buf[--pos] = 0x0a; // Struct.fields
  }
  depth--;
}

// Encoded object keys: tag, length and UTF-8 bytes of the FieldsEntry.key field.
const keyCache = new Map<string, Uint8Array>();
const KEY_CACHE_SIZE = 4096;
const KEY_CACHE_MAX_LENGTH = 64;

/** The FieldsEntry.key field of `key`, cached when it is short. */
function cacheKey(key: string): Uint8Array {
  const saved = pos;
  const end = buf.length - pos;
  string(key);
  buf[--pos] = 0x0a;
  const bytes = buf.slice(pos, buf.length - end);
  pos = saved;
  if (key.length <= KEY_CACHE_MAX_LENGTH) {
    // Past its size the cache starts again rather than keep every key a stream ever had.
    if (keyCache.size >= KEY_CACHE_SIZE) keyCache.clear();
    keyCache.set(key, bytes);
  }
  return bytes;
}

/**
 * Writes `s` as UTF-8 with its length before it. Lone surrogates become U+FFFD, as `TextEncoder`
 * does. The caller has made room for a short string: 3 bytes per UTF-16 unit and 5.
 */
function string(s: string): void {
  const n = s.length;
  if (n <= SHORT_STRING) {
    const b = buf;
    const end = pos;
    // Keys and most short values are ASCII: copy those back to front, and let the first other
    // character send the rest to the general path.
    let p = end;
    let i = n - 1;
    for (; i >= 0; i--) {
      const c = codeAt.call(s, i);
      if (c >= 0x80) break;
      b[--p] = c;
    }
    if (i >= 0) {
      // s[i + 1..] is written; s[..i] goes before it.
      const len = utf8Length(s, i + 1);
      p -= len;
      writeUtf8(s, 0, b, p, i + 1);
    }
    const written = end - p;
    if (written < 0x80) {
      b[--p] = written;
      pos = p;
    } else {
      pos = p;
      prefix(written);
    }
    return;
  }
  // Long strings: the native encoder writes them at the bottom of a worst-case gap, and they are
  // moved up against what follows.
  const max = 3 * n;
  room(max + 5);
  const at = pos - max;
  const written = encoder.encodeInto(s, buf.subarray(at, pos)).written;
  buf.copyWithin(pos - written, at, at + written);
  pos -= written;
  prefix(written);
}

/**
 * UTF-8 bytes of `s` up to index `n` as {@link writeUtf8} writes them (a lone surrogate as the 3
 * bytes of U+FFFD).
 */
function utf8Length(s: string, n: number): number {
  let len = n;
  for (let i = 0; i < n; i++) {
    const c = codeAt.call(s, i);
    if (c < 0x80) continue;
    if (c < 0x800) {
      len += 1;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n && (codeAt.call(s, i + 1) & 0xfc00) === 0xdc00) {
      // A pair: two units, four bytes.
      len += 2;
      i++;
    } else {
      len += 2;
    }
  }
  return len;
}
