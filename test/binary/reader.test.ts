// The reader decodes short strings itself rather than through TextDecoder. It must accept and
// refuse exactly what the native decoder in fatal mode does, at every length either side of the
// cut-over, for valid text and for every kind of broken sequence.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AguiWireError } from "../../src/util/errors.js";
import { Reader } from "../../src/wire/reader.js";

const native = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** A length-delimited field body: the varint length, then the bytes. */
function delimited(bytes: Uint8Array): Uint8Array {
  const out: number[] = [];
  let n = bytes.length;
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return new Uint8Array([...out, ...bytes]);
}

/** The reader's verdict on `bytes` as a string field, and the native decoder's. */
function both(bytes: Uint8Array): { ours: string | "invalid"; theirs: string | "invalid" } {
  let ours: string | "invalid";
  try {
    ours = new Reader(delimited(bytes)).string();
  } catch (err) {
    expect(err).toBeInstanceOf(AguiWireError);
    expect((err as AguiWireError).code).toBe("malformed_frame");
    ours = "invalid";
  }
  let theirs: string | "invalid";
  try {
    theirs = native.decode(bytes);
  } catch {
    theirs = "invalid";
  }
  return { ours, theirs };
}

// Bytes that make up UTF-8 and its edge cases: ASCII, every lead-byte range, continuation bytes
// at their bounds, and bytes that never appear in UTF-8.
const interesting = fc.constantFrom(
  0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee, 0xef,
  0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xf8, 0xfe, 0xff,
);

describe("Reader.string decodes as TextDecoder in fatal mode does", () => {
  it("on valid text of every length up to 80 UTF-16 units, ASCII to astral", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 80 }), (text) => {
        const { ours, theirs } = both(new TextEncoder().encode(text));
        expect(ours).toBe(theirs);
        expect(ours).toBe(text);
      }),
      { numRuns: 3000 },
    );
  });

  it("on byte sequences built from UTF-8's edge bytes, valid or not", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(interesting, fc.integer({ min: 0, max: 255 })), { maxLength: 70 }), (bytes) => {
        const { ours, theirs } = both(new Uint8Array(bytes));
        expect(ours).toBe(theirs);
      }),
      { numRuns: 20_000 },
    );
  });

  it("on each boundary of each sequence length", () => {
    const cases: number[][] = [
      [0xc2, 0x80], [0xdf, 0xbf], [0xc1, 0xbf],
      [0xe0, 0xa0, 0x80], [0xe0, 0x9f, 0xbf], [0xed, 0x9f, 0xbf], [0xed, 0xa0, 0x80], [0xef, 0xbf, 0xbf],
      [0xf0, 0x90, 0x80, 0x80], [0xf0, 0x8f, 0xbf, 0xbf], [0xf4, 0x8f, 0xbf, 0xbf], [0xf4, 0x90, 0x80, 0x80],
      [0xe1, 0x80], [0xf1, 0x80, 0x80], [0xc2], [0xc2, 0xc2, 0x80], [0xe1, 0x41, 0x80],
    ];
    for (const c of cases) {
      for (const pad of [0, 60, 62, 64]) {
        const bytes = new Uint8Array([...new Array<number>(pad).fill(0x61), ...c]);
        const { ours, theirs } = both(bytes);
        expect(ours, `${pad} + ${c.map((b) => b.toString(16)).join(" ")}`).toBe(theirs);
      }
    }
  });
});
