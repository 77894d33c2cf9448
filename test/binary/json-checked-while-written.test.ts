// encodeFrame leaves the walk of an event's JSON values to the JSON writer, which checks each value
// as it writes it (src/wire/json-writer.ts, exactEventDeferringJson in src/model/exact.ts). Held
// here: every JSON position of every event that has one refuses every kind of non-JSON with the
// error encodeSSE gives (the model's), the values at the edge of what JSON allows encode as the
// general path does, and a refused value leaves nothing behind for the next event.
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { encodeEvent, encodeFrame, encodeSSE, ValidationError, type AguiEventInput, type JsonValue } from "../../src/index.js";
import { exactEventDeferringJson } from "../../src/model/exact.js";
import { nested } from "../fixtures/corpus.js";

/** Events with `v` in one of their JSON positions each. */
function placements(v: unknown): { where: string; event: AguiEventInput }[] {
  const j = v as JsonValue;
  const place = (where: string, event: unknown) => ({ where, event: event as AguiEventInput });
  return [
    place("STATE_SNAPSHOT snapshot", { type: "STATE_SNAPSHOT", snapshot: { board: [1, { card: j }] } }),
    place("STATE_SNAPSHOT snapshot at the root", { type: "STATE_SNAPSHOT", snapshot: j }),
    place("STATE_DELTA value", { type: "STATE_DELTA", delta: [{ op: "add", path: "/a", value: 1 }, { op: "replace", path: "/b", value: { x: [j] } }] }),
    place("STATE_DELTA value at the root", { type: "STATE_DELTA", delta: [{ op: "add", path: "/a", value: j }] }),
    place("CUSTOM value", { type: "CUSTOM", name: "c", value: { deep: { er: j } } }),
    place("RAW event", { type: "RAW", event: [j] }),
    place("ACTIVITY_SNAPSHOT content", { type: "ACTIVITY_SNAPSHOT", messageId: "a", activityType: "t", content: { p: j } }),
    place("ACTIVITY_DELTA patch value", { type: "ACTIVITY_DELTA", messageId: "a", activityType: "t", patch: [{ op: "replace", path: "/p", value: [0, j] }] }),
    place("rawEvent", { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "d", rawEvent: { original: j } }),
    place("metadata", { type: "STEP_STARTED", stepName: "s", metadata: { m: j } }),
    place("RUN_FINISHED result", { type: "RUN_FINISHED", threadId: "t", runId: "r", result: { r: j } }),
  ];
}

class Point {
  x = 1;
}
const cycle: Record<string, unknown> = { a: 1 };
cycle.self = cycle;
// eslint-disable-next-line no-sparse-arrays
const sparse = [1, , 3];

const NOT_JSON: [string, unknown][] = [
  ["undefined", undefined],
  ["NaN", Number.NaN],
  ["Infinity", Number.POSITIVE_INFINITY],
  ["a function", () => 1],
  ["a symbol", Symbol("s")],
  ["a bigint", 10n],
  ["a Date", new Date(0)],
  ["a class instance", new Point()],
  ["a Map", new Map([["a", 1]])],
  ["an empty array slot", sparse],
  ["undefined in an array", [1, undefined]],
  ["a cycle", cycle],
  ["101 levels", nested(101)],
];

/** The error `encode` throws for `e`, or undefined. */
function errorOf(encode: (e: AguiEventInput) => unknown, e: AguiEventInput): ValidationError | undefined {
  try {
    encode(e);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");
/** encodeEvent's bytes behind a 4-byte big-endian length. */
function generalFrame(e: AguiEventInput): string {
  const body = encodeEvent(e).slice();
  const n = body.length;
  return hex(new Uint8Array([n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff, ...body]));
}

describe("JSON values checked while written", () => {
  for (const [what, value] of NOT_JSON) {
    it(`${what} is refused in every JSON position, with encodeSSE's error`, () => {
      for (const { where, event } of placements(value)) {
        const sse = errorOf(encodeSSE, event);
        // Some positions take some of these at their root as a missing field; either way the same.
        const frame = errorOf(encodeFrame, event);
        expect(frame?.code, `${what} in ${where}`).toBe(sse?.code);
        expect(frame?.message, `${what} in ${where}`).toBe(sse?.message);
        expect(frame, `${what} in ${where}`).toBeDefined();
      }
    });
  }

  it("a refused value leaves nothing behind: the next events encode as the general path does", () => {
    const valid = placements({ ok: [1, "two", null, true] }).map((p) => p.event);
    // These take the deferring path: their JSON values are counted, not walked, before the writer.
    for (const e of valid) expect(exactEventDeferringJson(e)).toBeGreaterThan(0);
    for (const [, value] of NOT_JSON) {
      for (const { event } of placements(value)) {
        expect(() => encodeFrame(event)).toThrow(ValidationError);
        for (const e of valid) expect(hex(encodeFrame(e))).toBe(generalFrame(e));
      }
    }
  });

  it("100 levels encode as the general path does, where the value is the field's (any wrapping adds levels)", () => {
    for (const { where, event } of placements(nested(100)).filter((p) => p.where.endsWith("at the root"))) {
      expect(hex(encodeFrame(event)), where).toBe(generalFrame(event));
    }
  });

  const EDGES: [string, unknown][] = [
    ["an object of another realm", runInNewContext('({ a: [1, { b: "c" }] })')],
    ["an object without a prototype", Object.assign(Object.create(null) as object, { a: 1, b: [null] })],
    ["an own __proto__ key", JSON.parse('{"before":1,"__proto__":{"x":true},"after":[null]}')],
    ["-0, the largest and the smallest doubles", [-0, Number.MAX_VALUE, Number.MIN_VALUE, -1e308]],
    ["an empty object and array", { a: {}, b: [] }],
  ];
  for (const [what, value] of EDGES) {
    it(`${what} encodes in every JSON position as the general path does`, () => {
      for (const { where, event } of placements(value)) {
        expect(hex(encodeFrame(event)), `${what} in ${where}`).toBe(generalFrame(event));
      }
    });
  }
});
