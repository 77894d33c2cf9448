/**
 * assignOwn: the shallow copy the reducer, the JSON Patch applier and the codec's adapters use
 * instead of object spreads (which V8 builds on a slow path when more properties follow).
 */
import { describe, expect, it } from "vitest";
import { assignOwn } from "../../src/util/copy.js";

describe("assignOwn", () => {
  it("copies own enumerable properties as data properties, later sources winning", () => {
    const target = assignOwn(assignOwn({} as Record<string, unknown>, { a: 1, b: [2] }), { b: 3, c: undefined });
    expect(target).toEqual({ a: 1, b: 3, c: undefined });
    expect(Object.keys(target)).toEqual(["a", "b", "c"]);
  });

  it("keeps an own __proto__ key a key, as JSON.parse makes it, without touching the prototype", () => {
    const source = JSON.parse('{"__proto__":{"polluted":true},"x":1}') as object;
    const copy = assignOwn({}, source) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.hasOwn(copy, "__proto__")).toBe(true);
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
    expect(copy.x).toBe(1);
  });

  it("leaves the target alone when there is no source, and skips inherited properties", () => {
    const target = { a: 1 };
    expect(assignOwn(target, undefined)).toBe(target);
    expect(assignOwn({}, Object.create({ inherited: 1 }) as object)).toEqual({});
  });
});
