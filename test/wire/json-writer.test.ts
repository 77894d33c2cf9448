/**
 * The back-to-front JSON value writer (src/wire/json-writer.ts) against protobuf-es: for any JSON
 * value, the bytes of `google.protobuf.Value` / `Struct` are the ones protobuf-es writes, including
 * where the writer's own machinery is at work (the buffer it writes in growing mid-value, the key cache
 * filling up and starting again, long and non-ASCII strings, lone surrogates, the empty key).
 */
import { fromJson, toBinary } from "@bufbuild/protobuf";
import { StructSchema, ValueSchema } from "@bufbuild/protobuf/wkt";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { JsonValue } from "../../src/index.js";
import { beginWrite, writeStructField, writeValue, writeValueField } from "../../src/wire/index.js";

/** Our bytes of a Value body holding `v` (a copy: the writer hands out views on its pool). */
function ours(v: JsonValue): Uint8Array {
  const w = beginWrite();
  writeValue(w, v);
  return w.finish().slice();
}

/**
 * A copy of `v` without empty keys: protobuf-es writes an empty map key as an explicit empty
 * field where we (and @ag-ui/proto) leave the proto3 default out; both read alike. The empty key
 * is tested on its own below.
 */
function withoutEmptyKeys(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(withoutEmptyKeys);
  if (v === null || typeof v !== "object") return v;
  const out: { [key: string]: JsonValue } = {};
  for (const [k, x] of Object.entries(v)) if (k !== "") out[k] = withoutEmptyKeys(x);
  return out;
}

/** protobuf-es's bytes of the same. */
function theirs(v: JsonValue): Uint8Array {
  return toBinary(ValueSchema, fromJson(ValueSchema, v));
}

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

/** The varint of `n`, in hex. */
function varint(n: number): string {
  const out: number[] = [];
  for (; n > 0x7f; n >>>= 7) out.push((n & 0x7f) | 0x80);
  out.push(n);
  return Buffer.from(out).toString("hex");
}

describe("JSON values as google.protobuf.Value, written back to front", () => {
  it("match protobuf-es for arbitrary JSON", () => {
    const json = fc.jsonValue({ maxDepth: 6, noUnicodeString: false }).map((v) => withoutEmptyKeys(JSON.parse(JSON.stringify(v)) as JsonValue));
    fc.assert(
      fc.property(json, (v) => {
        expect(hex(ours(v))).toBe(hex(theirs(v)));
      }),
      { numRuns: 500 },
    );
  });

  it("match protobuf-es on the awkward cases", () => {
    const cases: JsonValue[] = [
      { a: "", b: null, c: [], d: {} },
      { "Zürich": "Genève — 東京 😀", ["k".repeat(70)]: "v".repeat(70), ["é".repeat(65)]: "ü".repeat(200) },
      { lone: "a\ud800b", tail: "x\udc00", pair: "😀abc", end: "abc😀" },
      { n: [0, -0.5, 1e300, -1e-300, 2 ** 53, 123456.789, -1] },
      // Lengths at the varint boundaries: 127, 128, 16383 and 16384 bytes.
      ["a".repeat(125), "b".repeat(126), "c".repeat(16381), "d".repeat(16382)],
      { list: Array.from({ length: 130 }, (_, i) => i) },
    ];
    for (const v of cases) expect(hex(ours(v)), JSON.stringify(v).slice(0, 60)).toBe(hex(theirs(v)));
  });

  it("grow the buffer in the middle of a value without losing what is written", () => {
    // Nested lists and objects whose total is many times the writer's 64 KiB pool.
    const v: JsonValue = {
      rows: Array.from({ length: 400 }, (_, i) => ({ id: `row-${i}`, text: "é".repeat(i % 90), nested: { deep: [i, { s: "x".repeat(i) }] } })),
      big: "y".repeat(300_000),
      after: { ok: true },
    };
    expect(hex(ours(v))).toBe(hex(theirs(v)));
    // And the writer is still right afterwards, with its buffer back to the small size.
    expect(hex(ours({ a: [1, "b"] }))).toBe(hex(theirs({ a: [1, "b"] })));
  });

  it("grow the buffer at any write: a short string, a cached or new key, a number, a list item", () => {
    // The value is written back to front from the end of the writer's buffer (a fresh 64 KiB
    // pool after the value over 1 MiB before each, which the writer drops), the filler list (the
    // last entry) first: it fills most of the pool (numbers, 11 bytes each, leave little room) by
    // an amount that steps byte by byte (the tail string), and the entries before it cross the
    // room's end at every point.
    for (let count = 5940; count < 5960; count++) {
      for (let tail = 0; tail < 11; tail++) {
        ours({ reset: "r".repeat(400_000) });
        const v: JsonValue = {
          first: "short é",
          [`new-${count}-${tail}-ü`]: [1.5, "Genève — x", true, { k: "v", [`n${tail}`]: null }],
          again: { first: "abcdefgh", again: -2 },
          filler: [...Array.from({ length: count }, (_, i) => i + 0.5), "y".repeat(tail)],
        };
        expect(hex(ours(v)), `${count} ${tail}`).toBe(hex(theirs(v)));
      }
    }
  });

  it("keep writing the right keys past the key cache's size", () => {
    const many: { [key: string]: JsonValue } = {};
    for (let i = 0; i < 5000; i++) many[`key-${i}`] = i;
    for (let round = 0; round < 2; round++) expect(hex(ours(many))).toBe(hex(theirs(many)));
  });

  it("write every key length right, from the cache as at first, whichever keys share a place", () => {
    // Keys cached as words (1 to 9 and more bytes, so every remainder of 4), non-ASCII keys, and
    // objects that put different keys at the same depth and index, one after the other.
    const keys = ["a", "ab", "abc", "abcd", "abcde", "abcdefg", "abcdefgh", "abcdefghi", "é", "Zürich", "东京", "😀", "k".repeat(64), "k".repeat(65), "lone\ud800"];
    const rows: JsonValue[] = [];
    for (let i = 0; i < keys.length; i++) {
      rows.push({ [keys[i]!]: i, [keys[(i + 1) % keys.length]!]: { [keys[(i + 2) % keys.length]!]: [keys[i]!] } });
      rows.push({ [keys[(i + 3) % keys.length]!]: "x", [keys[i]!]: null });
    }
    for (let round = 0; round < 3; round++) expect(hex(ours({ rows }))).toBe(hex(theirs({ rows })));
  });

  it("leave an empty key out of its entry, as @ag-ui/proto does", () => {
    // Struct { fields: { "": 1 } } with the entry's key field, the proto3 default, not written.
    expect(hex(ours({ "": 1 }))).toBe("2a0d0a0b120911000000000000f03f");
  });

  it("write a field's length and body, the length as long as the body needs", () => {
    // Scalars (fork and join), and arrays and objects whose bodies take 1, 2 and 3 bytes of length.
    const cases: JsonValue[] = ["s", "é".repeat(100), 1.5, true, null, [1], { a: "x".repeat(200) }, ["y".repeat(20_000)]];
    for (const v of cases) {
      const w = beginWrite();
      writeValueField(w, v);
      const body = theirs(v);
      expect(hex(w.finish()), JSON.stringify(v).slice(0, 40)).toBe(varint(body.length) + hex(body));
    }
    const objects: { [key: string]: JsonValue }[] = [{}, { k: 1 }, { k: "z".repeat(300) }, { b: 1, a: { c: [null, true, "s"] }, "Zürich": "k" }];
    for (const v of objects) {
      const w = beginWrite();
      writeStructField(w, v);
      const body = toBinary(StructSchema, fromJson(StructSchema, v));
      expect(hex(w.finish())).toBe(varint(body.length) + hex(body));
    }
  });

  it("keep the event's bytes before a value whose writing grows the writer's buffer", () => {
    // The value is written in the writer's buffer above the event's bytes so far: when it needs a
    // larger buffer, those bytes go with it. Values from a few bytes to a few times the pool,
    // after events of several sizes have moved the pool's start on.
    const head = Array.from({ length: 300 }, (_, i) => (i * 7) & 0xff);
    for (const size of [10, 1_000, 30_000, 70_000, 200_000]) {
      for (const before of [0, 1, 299, 300]) {
        const v: JsonValue = { rows: Array.from({ length: Math.ceil(size / 40) }, (_, i) => ({ id: `r${i}`, n: i })) };
        ours({ skip: "s".repeat(before) });
        const w = beginWrite();
        w.ensure(before);
        for (let i = 0; i < before; i++) w.byte(head[i]!);
        writeValueField(w, v);
        const body = theirs(v);
        const out = hex(w.finish());
        expect(out.slice(0, 2 * before), `${size} ${before}`).toBe(hex(Uint8Array.from(head.slice(0, before))));
        expect(out.slice(2 * before), `${size} ${before}`).toBe(varint(body.length) + hex(body));
      }
    }
  });
});
