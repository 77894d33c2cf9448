/**
 * parsePartialJson: what a streaming tool call's arguments read as so far (`partialToolCallArgs`).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parsePartialJson } from "../../src/client/partial-json.js";

describe("parsePartialJson", () => {
  it("reads a whole JSON text as JSON.parse does, and any prefix of one without throwing", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), (value, cut) => {
        const text = JSON.stringify(value);
        expect(parsePartialJson(text)).toEqual(JSON.parse(text));
        const partial = parsePartialJson(text.slice(0, cut % (text.length + 1)));
        expect(partial === undefined).toBe(false);
      }),
      { numRuns: 2000, seed: 7 },
    );
  });

  it("closes open strings, arrays and objects, and leaves out what has not begun", () => {
    const cases: [string, unknown][] = [
      ["", {}],
      ["{", {}],
      ['{"city', {}],
      ['{"city":', {}],
      ['{"city": "Lis', { city: "Lis" }],
      ['{"city":"Lisbon","days":[1,2', { city: "Lisbon", days: [1, 2] }],
      ['{"city":"Lisbon","days":[1,2],', { city: "Lisbon", days: [1, 2] }],
      ['{"a":{"b":[{"c":"d', { a: { b: [{ c: "d" }] } }],
      ['{"q":"say \\"hi', { q: 'say "hi' }],
      ['{"q":"line\\', { q: "line" }],
      ['{"ok":tr', {}],
      ['{"ok":true,"n":-', { ok: true }],
      ["[1,2,3", [1, 2, 3]],
    ];
    for (const [text, expected] of cases) expect({ text, value: parsePartialJson(text) }).toEqual({ text, value: expected });
  });

  it("gives the fallback for what is not the start of a JSON text", () => {
    expect(parsePartialJson("not json")).toEqual({});
    expect(parsePartialJson("}{", null)).toBe(null);
  });
});
