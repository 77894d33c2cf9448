/**
 * `google.protobuf.Value` (with `Struct` and `ListValue`) written straight from JSON values and
 * read straight back into them, with no intermediate message objects.
 *
 * @module
 */
import { MAX_JSON_DEPTH, type JsonValue } from "../model/json-problem.js";
import { malformed, skipField, type Reader } from "./reader.js";
import { NOT_JSON, writeCompositeValue, writeDelimitedComposite, writeDelimitedStruct } from "./json-writer.js";
import type { Writer } from "./writer.js";

// JSON values (fields of Value or Struct type) written since resetJsonValuesWritten().
let written = 0;

/**
 * Starts counting the JSON values written: the binary encoder, which leaves checking them to this
 * writer, makes sure afterwards that it wrote as many as the event holds.
 *
 * @throws Never.
 */
export function resetJsonValuesWritten(): void {
  written = 0;
}

/** The JSON values written since {@link resetJsonValuesWritten}. @throws Never. */
export function jsonValuesWritten(): number {
  return written;
}

/**
 * Writes the body of a `google.protobuf.Value` holding `v` (the caller writes tag and length),
 * checking that it is JSON as it goes (see json-writer.ts).
 *
 * @throws {@link NOT_JSON} for a part of `v` that is not JSON; what was written is then abandoned.
 */
export function writeValue(w: Writer, v: JsonValue): void {
  written++;
  switch (typeof v) {
    case "string":
      w.ensure(1);
      w.byte(0x1a); // 3: string_value
      w.string(v);
      return;
    case "number":
      if (!Number.isFinite(v)) throw NOT_JSON;
      w.ensure(1);
      w.byte(0x11); // 2: number_value
      w.double(v);
      return;
    case "boolean":
      w.ensure(2);
      w.byte(0x20); // 4: bool_value
      w.byte(v ? 1 : 0);
      return;
    default:
      if (v === null) {
        w.ensure(2);
        w.byte(0x08); // 1: null_value, written explicitly so that null differs from absent
        w.byte(0x00);
      } else if (typeof v !== "object") {
        // undefined, a function, a symbol, a bigint.
        throw NOT_JSON;
      } else {
        // Arrays and objects are messages nested in messages: written back to front (see there).
        writeCompositeValue(w, v);
      }
  }
}

/**
 * Writes the length and body of a `google.protobuf.Value` field holding `v` (the caller writes the
 * tag): for an array or object, the length the JSON writer knows once it has written the body, so
 * that the body is not moved to make room for a length of more than one byte.
 *
 * @throws {@link NOT_JSON} as {@link writeValue} does.
 */
export function writeValueField(w: Writer, v: JsonValue): void {
  if (typeof v === "object" && v !== null) {
    written++;
    writeDelimitedComposite(w, v);
    return;
  }
  const m = w.fork();
  writeValue(w, v);
  w.join(m);
}

/**
 * Writes the length and body of a `google.protobuf.Struct` field holding the JSON object `v` (the
 * caller writes the tag), as {@link writeValueField} does.
 *
 * @throws {@link NOT_JSON} as {@link writeValue} does.
 */
export function writeStructField(w: Writer, v: { readonly [key: string]: JsonValue }): void {
  written++;
  writeDelimitedStruct(w, v);
}

const VALUE_FIELDS = 0b1111110;
const LIST_FIELDS = 0b10;
const STRUCT_FIELDS = 0b10;
const ENTRY_FIELDS = 0b110;

/**
 * Reads a `google.protobuf.Value` body ending at `end`. `depth` counts the arrays and objects that
 * enclose it; one more than {@link MAX_JSON_DEPTH} is an error, which also bounds the recursion.
 *
 * @throws {AguiWireError} `malformed_frame` on a Value with no kind, a non-finite number, nesting
 *   deeper than the bound, or any wire-level fault.
 */
export function readValue(r: Reader, end: number, depth: number): JsonValue {
  let value: JsonValue | undefined;
  while (r.pos < end) {
    const tag = r.tag();
    switch (tag) {
      case 0x08:
        r.uint32();
        value = null;
        break;
      case 0x11: {
        const n = r.double();
        if (!Number.isFinite(n)) throw malformed(`number_value ${n} is not a JSON number`);
        value = n;
        break;
      }
      case 0x1a:
        value = r.string();
        break;
      case 0x20:
        value = r.uint32() !== 0;
        break;
      case 0x2a:
        value = readStruct(r, r.delimited(), depth);
        break;
      case 0x32:
        value = readList(r, r.delimited(), depth);
        break;
      default:
        skipField(r, tag, VALUE_FIELDS, "google.protobuf.Value");
    }
  }
  r.checkEnd(end, "google.protobuf.Value");
  if (value === undefined) throw malformed("google.protobuf.Value has no kind set");
  return value;
}

function enter(depth: number): void {
  if (depth >= MAX_JSON_DEPTH) {
    throw malformed(`JSON value nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
}

function readList(r: Reader, end: number, depth: number): JsonValue[] {
  enter(depth);
  const out: JsonValue[] = [];
  while (r.pos < end) {
    const tag = r.tag();
    if (tag === 0x0a) out.push(readValue(r, r.delimited(), depth + 1));
    else skipField(r, tag, LIST_FIELDS, "google.protobuf.ListValue");
  }
  r.checkEnd(end, "google.protobuf.ListValue");
  return out;
}

/**
 * Reads a `google.protobuf.Struct` body ending at `end` as a JSON object; `depth` as for
 * {@link readValue}.
 *
 * @throws {AguiWireError} `malformed_frame` on an entry without a value, nesting deeper than the
 *   bound, or any wire-level fault.
 */
export function readStruct(r: Reader, end: number, depth: number): { [key: string]: JsonValue } {
  enter(depth);
  const out: { [key: string]: JsonValue } = {};
  while (r.pos < end) {
    const tag = r.tag();
    if (tag !== 0x0a) {
      skipField(r, tag, STRUCT_FIELDS, "google.protobuf.Struct");
      continue;
    }
    const entryEnd = r.delimited();
    let key = "";
    let value: JsonValue | undefined;
    while (r.pos < entryEnd) {
      const t = r.tag();
      if (t === 0x0a) key = r.key();
      else if (t === 0x12) value = readValue(r, r.delimited(), depth + 1);
      else skipField(r, t, ENTRY_FIELDS, "google.protobuf.Struct.FieldsEntry");
    }
    r.checkEnd(entryEnd, "google.protobuf.Struct.FieldsEntry");
    if (value === undefined) throw malformed(`google.protobuf.Struct entry ${JSON.stringify(key)} has no value`);
    if (key === "__proto__") {
      // A plain assignment would replace the object's prototype instead of adding the key.
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    } else out[key] = value;
  }
  r.checkEnd(end, "google.protobuf.Struct");
  return out;
}
