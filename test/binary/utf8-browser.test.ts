// Browsers get src/wire/utf8.browser.ts in place of src/wire/utf8.ts (package.json's `browser`
// field): every string to the native decoder, no short-string decoder, no key cache. Both must give
// the same strings and refuse the same bytes, and the reader and the codec built on the browser
// variant must decode as they do in Node.
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import * as node from "../../src/wire/utf8.js";
import * as browser from "../../src/wire/utf8.browser.js";
import { validEvent } from "../fixtures/arbitraries-1.0.js";

// The reader (and the codec on it) as a browser bundle builds it.
vi.mock("../../src/wire/utf8.js", async () => await import("../../src/wire/utf8.browser.js"));
const { Reader } = await import("../../src/wire/reader.js");
const { decodeEvent, encodeEvent, parseEvent } = await import("../../src/index.js");
const { readStruct } = await import("../../src/wire/json-value.js");
const actual = await vi.importActual<typeof node>("../../src/wire/utf8.js");

/** What `decode` makes of `bytes`: the string, or "invalid" when it throws a TypeError. */
function verdict(decode: typeof node.decodeUtf8, bytes: Uint8Array): string {
  try {
    return decode(bytes, 0, bytes.length);
  } catch (err) {
    expect(err).toBeInstanceOf(TypeError);
    return "invalid";
  }
}

const bytes = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 80 }).map((text) => new TextEncoder().encode(text)),
  fc.uint8Array({ maxLength: 70 }),
  fc.array(fc.constantFrom(0x41, 0x7f, 0x80, 0xbf, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff), { maxLength: 70 }).map((b) => new Uint8Array(b)),
);

describe("src/wire/utf8.browser.ts", () => {
  it("exports what src/wire/utf8.ts exports", () => {
    expect(Object.keys(browser).sort()).toStrictEqual(Object.keys(actual).sort());
    expect(actual.decodeUtf8).not.toBe(browser.decodeUtf8);
  });

  it("decodes and refuses what the Node module does, keys as other strings", () => {
    fc.assert(
      fc.property(bytes, (b) => {
        const expected = verdict(actual.decodeUtf8, b);
        expect(verdict(browser.decodeUtf8, b)).toBe(expected);
        expect(verdict(browser.decodeKey, b)).toBe(expected);
        expect(verdict(actual.decodeKey, b)).toBe(expected);
      }),
      { numRuns: 5000 },
    );
  });

  it("backs a reader that reads strings and keys, and words a refusal, as in Node", () => {
    const field = (body: number[]) => new Uint8Array([body.length, ...body]);
    expect(new Reader(field([0x68, 0xc3, 0xa9])).string()).toBe("hé");
    expect(new Reader(field([0x6b])).key()).toBe("k");
    // A Struct with the same key twice (the Node reader answers the second from its cache).
    const entry = [0x0a, 0x07, 0x0a, 0x01, 0x6b, 0x12, 0x02, 0x20, 0x01];
    expect(readStruct(new Reader(new Uint8Array([...entry, ...entry])), 18, 0)).toStrictEqual({ k: true });
    expect(() => new Reader(new Uint8Array([0x03, 0x61, 0xff, 0x62])).string()).toThrow(/malformed protobuf event: invalid UTF-8 in the string at byte 1/);
  });

  it("backs a codec that decodes every event to what encodes to the same bytes", () => {
    fc.assert(
      fc.property(validEvent, (event) => {
        let valid;
        try {
          valid = parseEvent(event);
        } catch {
          return fc.pre(false);
        }
        // The encoder does not use the module: the bytes it writes again say every string came back.
        const bytes = encodeEvent(valid).slice();
        expect(encodeEvent(decodeEvent(bytes))).toStrictEqual(bytes);
      }),
      { numRuns: 300 },
    );
  });
});
