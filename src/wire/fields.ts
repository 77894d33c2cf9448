/**
 * A table-driven reader for the protobuf messages that are rare in a run (run lifecycle, steps,
 * subagents, activity snapshots, tool results, the echoed request, interrupts, usage, content
 * parts): the generated code gives each one a small table of its fields (`FieldSpec`) instead of
 * a reader of its own, which keeps the browser bundle small. The messages a run sends per token or
 * in bulk (deltas, chunks, snapshots, chat messages) keep their specialised generated readers,
 * which are faster; buf.gen.yaml lists those under `specialize`.
 *
 * What is read is exactly what a specialised reader reads: the same wire types, the same element
 * checks (src/wire/element-checks.ts), the same errors.
 *
 * @module
 */
import { readStruct, readValue } from "./json-value.js";
import { skipField, type Reader } from "./reader.js";

/** A string field (wire type 2). */
export const STRING = 0;
/** An int64 field read as a safe integer (wire type 0). */
export const INT64 = 1;
/** A bool field (wire type 0). */
export const BOOL = 2;
/** A `google.protobuf.Value`: any JSON value. */
export const VALUE = 3;
/** A `google.protobuf.Struct`: a JSON object. */
export const STRUCT = 4;
/** A message field, read by the spec's reader. */
export const MESSAGE = 5;
/** A repeated message field: each element read by the spec's reader, then checked. */
export const LIST = 6;
/** A repeated string field. */
export const STRINGS = 7;

/** Reads the body of a nested message ending at `end`. */
export type BodyReader = (r: Reader, end: number) => unknown;
/** Checks one element of a repeated field as it is read (src/wire/element-checks.ts). */
export type ElementCheck = (r: Reader, item: never, keep: boolean) => unknown;

/**
 * One field of a table-read message: its tag (field number and wire type, as on the wire), its key
 * on the object, its kind, and for messages the body reader (and for lists the element check).
 */
export type FieldSpec = readonly [tag: number, key: string, kind: number, read?: BodyReader, check?: ElementCheck];

/** Reads the value of one field of `spec`'s kind at the reader. */
function readOne(r: Reader, spec: FieldSpec): unknown {
  switch (spec[2]) {
    case STRING:
      return r.string();
    case INT64:
      return r.int64();
    case BOOL:
      return r.uint32() !== 0;
    case VALUE:
      return readValue(r, r.delimited(), 0);
    case STRUCT:
      return readStruct(r, r.delimited(), 0);
    default:
      return spec[3]!(r, r.delimited());
  }
}

/** Reads an event's flattened BaseEvent (ending at `end`) onto `v`, checking that its type is `expected`. */
export type BaseReader<T> = (r: Reader, end: number, v: T, expected: number) => void;

/**
 * Reads the fields of a message ending at `end` into `v` (already holding its defaults) by the
 * table `fields`, skipping unknown fields. Field 1 is the event's flattened BaseEvent when
 * `base` is given: `base(r, end, v, expected)` reads it onto `v` and checks its type.
 *
 * @param known - Bit mask of the message's field numbers, for the wrong-wire-type check.
 * @param label - What errors call the message.
 * @param expected - The number of the event's type, for `base` to check.
 * @throws {AguiWireError} `malformed_frame` on any wire-level fault, a missing BaseEvent, or an
 *   error of a nested reader.
 */
export function readFields<T extends object>(
  r: Reader,
  end: number,
  v: T,
  fields: readonly FieldSpec[],
  known: number,
  label: string,
  base?: BaseReader<T>,
  expected = 0,
): T {
  const o = v as Record<string, unknown>;
  let hasBase = false;
  while (r.pos < end) {
    const tag = r.tag();
    if (tag === 0x0a && base) {
      base(r, r.delimited(), v, expected);
      hasBase = true;
      continue;
    }
    let spec: FieldSpec | undefined;
    for (let i = 0; i < fields.length; i++) {
      if (fields[i]![0] === tag) {
        spec = fields[i];
        break;
      }
    }
    if (spec === undefined) {
      skipField(r, tag, known, label);
      continue;
    }
    const key = spec[1];
    if (spec[2] === LIST) {
      const keep = r.keeping;
      const item = spec[4]!(r, spec[3]!(r, r.delimited()) as never, keep);
      if (keep) ((o[key] ??= []) as unknown[]).push(item);
    } else if (spec[2] === STRINGS) {
      ((o[key] ??= []) as unknown[]).push(r.string());
    } else {
      o[key] = readOne(r, spec);
    }
  }
  if (base) r.endEvent(end, label, hasBase);
  else r.checkEnd(end, label);
  return v;
}
