// The generated check-only fast path (src/gen/model/event_checks.ts, through src/model/exact.ts)
// lets encoders and decoders skip zod's copy. These tests hold it to the schemas: whatever it
// passes, parseEvent returns unchanged; whatever it does not pass is judged by parseEvent alone.
import fc from "fast-check";
import * as z from "zod/mini";
import { describe, expect, it } from "vitest";
import { EVENT_TYPES, ValidationError, parseEvent } from "../../src/index.js";
import { EXACT_EVENT_TYPES, isExactEvent } from "../../src/gen/model/event_checks.js";
import { validEvent } from "../../src/model/exact.js";
import { object } from "../../src/model/object.js";
import { generate } from "../../tools/gen-event-checks.js";
import { CORPUS } from "../fixtures/corpus.js";
import { FULL_EVENTS, MINIMAL_EVENTS, Point } from "./helpers.js";

/** What parseEvent makes of `value`: its result, or its error's code and message. */
function verdict(fn: () => unknown): unknown {
  try {
    return { ok: fn() };
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    return { code: err.code, message: err.message };
  }
}

describe("the generated event checks", () => {
  it("cover every event type whose fields all have a plain form, and only those", () => {
    // STATE_DELTA (patch operations) and MESSAGES_SNAPSHOT (messages) hold arrays of unions.
    expect([...EXACT_EVENT_TYPES].sort()).toEqual(EVENT_TYPES.filter((t) => t !== "STATE_DELTA" && t !== "MESSAGES_SNAPSHOT").sort());
  });

  it("pass every full and minimal event that parseEvent returns unchanged, and no other", () => {
    for (const event of [...Object.values(FULL_EVENTS), ...Object.values(MINIMAL_EVENTS)]) {
      const parsed = parseEvent(event);
      const unchanged = EXACT_EVENT_TYPES.includes(event.type) && Object.keys(parsed).length === Object.keys(event).length;
      expect(isExactEvent(event), event.type).toBe(unchanged);
    }
  });

  it("pass no TEXT_MESSAGE_START without its role, which parseEvent fills in", () => {
    expect(isExactEvent(MINIMAL_EVENTS.TEXT_MESSAGE_START)).toBe(false);
    expect(isExactEvent(FULL_EVENTS.TEXT_MESSAGE_START)).toBe(true);
  });

  it("refuse an extra key, a key left undefined, a wrong literal and an inherited enumerable key", () => {
    const base = { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "d" };
    expect(isExactEvent(base)).toBe(true);
    expect(isExactEvent({ ...base, extra: 1 })).toBe(false);
    expect(isExactEvent({ ...base, timestamp: undefined })).toBe(false);
    expect(isExactEvent({ ...base, delta: "" })).toBe(false);
    expect(isExactEvent({ ...base, timestamp: 1.5 })).toBe(false);
    expect(isExactEvent({ ...base, timestamp: 2 ** 53 })).toBe(false);
    expect(isExactEvent({ ...base, rawEvent: { when: new Date(0) } })).toBe(false);
    expect(isExactEvent({ ...base, type: "TEXT_MESSAGE_END" })).toBe(false);
    expect(isExactEvent(Object.assign(Object.create({ inherited: true }) as object, base))).toBe(false);
  });

  it("agree with parseEvent on every corpus event", () => {
    for (const { name, event } of CORPUS) {
      const parsed = parseEvent(event);
      if (isExactEvent(event)) {
        expect(parsed, name).toEqual(event);
        expect(Object.keys(parsed).sort(), name).toEqual(Object.keys(event).sort());
      }
      expect(validEvent(event), name).toEqual(parsed);
    }
  });

  it("on mutated events: a passed event is one parseEvent returns unchanged, and validEvent judges as parseEvent does", () => {
    const keys = ["type", "messageId", "delta", "role", "toolCallId", "toolCallName", "parentMessageId", "snapshot", "event", "source", "name", "value", "threadId", "runId", "message", "code", "stepName", "timestamp", "rawEvent", "extra", "__proto__", "constructor"];
    const values = fc.oneof(
      fc.constantFrom<unknown>(undefined, null, "", "x", "assistant", "user", 0, -0, 1.5, 2 ** 53, NaN, Infinity, true, [], {}, [1, "a"], { a: { b: [null] } }),
      fc.constantFrom(...EVENT_TYPES, "NOT_AN_EVENT"),
      fc.constant(new Point()),
      fc.constant(new Date(0)),
      fc.string(),
      fc.integer(),
    );
    // Mostly the event's own keys, so that each field's edge values are tried on it often.
    const mutated = fc
      .constantFrom(...Object.values(FULL_EVENTS), ...Object.values(MINIMAL_EVENTS))
      .chain((original) =>
        fc.tuple(
          fc.constant(original),
          fc.array(
            fc.tuple(
              fc.oneof({ arbitrary: fc.constantFrom(...Object.keys(original)), weight: 3 }, { arbitrary: fc.constantFrom(...keys), weight: 1 }),
              fc.option(values, { nil: "delete" as const, freq: 4 }),
            ),
            { minLength: 1, maxLength: 3 },
          ),
        ),
      );
    fc.assert(
      fc.property(
        mutated,
        ([original, mutations]) => {
          const event: Record<string, unknown> = structuredClone(original);
          for (const [key, value] of mutations) {
            if (value === "delete") delete event[key];
            else Object.defineProperty(event, key, { value, enumerable: true, writable: true, configurable: true });
          }
          const expected = verdict(() => parseEvent(event));
          if (isExactEvent(event)) {
            expect(expected).toEqual({ ok: event });
            expect(Object.keys((expected as { ok: object }).ok).sort()).toEqual(Object.keys(event).sort());
          }
          expect(verdict(() => validEvent(event))).toEqual(expected);
        },
      ),
      { numRuns: 20_000 },
    );
  });
});

describe("validEvent", () => {
  it("returns an exact event itself and anything else as parseEvent's copy", () => {
    const exact = { type: "RUN_STARTED", threadId: "t", runId: "r" };
    expect(validEvent(exact)).toBe(exact);
    const extra = { ...exact, note: "dropped" };
    const copy = validEvent(extra);
    expect(copy).not.toBe(extra);
    expect(copy).toEqual(exact);
  });

  it("copies an instance of a class even when its fields are exact, so that no inherited toJSON comes along", () => {
    class Started {
      type = "RUN_STARTED";
      threadId = "t";
      runId = "r";
      toJSON(): unknown {
        return "not an event";
      }
    }
    const instance = new Started();
    const result = validEvent(instance);
    expect(result).not.toBe(instance);
    expect(JSON.stringify(result)).toBe('{"type":"RUN_STARTED","threadId":"t","runId":"r"}');
  });

  it("throws parseEvent's errors, for a type that names a property of Object.prototype too", () => {
    expect(() => validEvent({ type: "constructor" })).toThrow(expect.objectContaining({ code: "unknown_event_type" }));
    expect(() => validEvent(null)).toThrow(expect.objectContaining({ code: "invalid_event" }));
    expect(() => validEvent({ type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "" })).toThrow(
      "invalid TEXT_MESSAGE_CONTENT event: delta: expected a non-empty string, found an empty one",
    );
  });
});

describe("tools/gen-event-checks.ts", () => {
  const source = generate({
    PLAIN: object({ type: z.literal("PLAIN"), id: z.string(), n: z.optional(z.int()) }),
    BOUNDED: object({ type: z.literal("BOUNDED"), id: z.string().check(z.maxLength(3)) }),
    LISTED: object({ type: z.literal("LISTED"), ids: z.array(z.string()) }),
    FLOAT: object({ type: z.literal("FLOAT"), x: z.number() }),
  });

  it("compiles the plain forms it knows", () => {
    expect(source).toContain('case "PLAIN":');
    expect(source).toContain("Number.isSafeInteger(f_n)");
  });

  it("leaves every other form to zod rather than guess its rules", () => {
    expect(source).toContain("Types without a fast check (a field of another form): BOUNDED, LISTED, FLOAT.");
    expect(source).not.toContain('case "BOUNDED":');
    expect(source).not.toContain('case "LISTED":');
    expect(source).not.toContain('case "FLOAT":');
  });
});
