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
import { int } from "../../src/model/int.js";
import { array } from "../../src/model/array.js";
import { tagged } from "../../src/model/tagged.js";
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

/**
 * The event types with a required field of a form the generator does not compile: they always go
 * to zod. Since nested objects, arrays, unions and text-or-parts compile, there are none.
 */
const ZOD_ONLY_TYPES: string[] = [];

/**
 * Whether the fast path may pass `event`: of a type it covers, with no field it leaves to zod. The
 * one form left is an interrupt outcome, whose list of interrupts has a minimum length.
 */
const coverable = (event: { type: string } & Record<string, unknown>): boolean =>
  !ZOD_ONLY_TYPES.includes(event.type) && !(event.type === "RUN_FINISHED" && (event.outcome as { type?: unknown } | undefined)?.type === "interrupt");

describe("the generated event checks", () => {
  it("cover every event type whose required fields all have a plain form, and only those", () => {
    expect([...EXACT_EVENT_TYPES].sort()).toEqual(EVENT_TYPES.filter((t) => !ZOD_ONLY_TYPES.includes(t)).sort());
  });

  it("pass every full and minimal event that parseEvent returns unchanged, unless it has a field left to zod", () => {
    const passed: string[] = [];
    for (const event of [...Object.values(FULL_EVENTS), ...Object.values(MINIMAL_EVENTS)]) {
      const parsed = parseEvent(event);
      const unchanged = Object.keys(parsed).length === Object.keys(event).length;
      expect(isExactEvent(event), event.type).toBe(unchanged && coverable(event));
      if (isExactEvent(event)) passed.push(event.type);
    }
    // Every covered type passes at least its minimal event: the fast path is really taken.
    expect(new Set(passed)).toEqual(new Set(EXACT_EVENT_TYPES));
  });

  it("pass a TEXT_MESSAGE_START without role, since 1.0 fills in no default", () => {
    expect(isExactEvent(MINIMAL_EVENTS.TEXT_MESSAGE_START)).toBe(true);
    expect(isExactEvent(FULL_EVENTS.TEXT_MESSAGE_START)).toBe(true);
    expect(isExactEvent({ ...MINIMAL_EVENTS.TEXT_MESSAGE_START, role: "tool" })).toBe(false);
  });

  it("send an event with an input lacking its defaults, or an interrupt outcome, to zod, which judges it and copies it", () => {
    const withInput = { ...MINIMAL_EVENTS.RUN_STARTED, input: { threadId: "t", runId: "r", messages: [] } };
    expect(isExactEvent(withInput)).toBe(false);
    const copy = validEvent(withInput);
    expect(copy).not.toBe(withInput);
    // The echoed input gets 1.0's defaults, which only zod fills in.
    expect(copy).toEqual({ ...withInput, input: { ...withInput.input, tools: [], context: [] } });
    const complete = { ...MINIMAL_EVENTS.RUN_STARTED, input: { threadId: "t", runId: "r", messages: [], tools: [], context: [] } };
    expect(validEvent(complete)).toBe(complete);

    const interrupted = { ...MINIMAL_EVENTS.RUN_FINISHED, outcome: { type: "interrupt", interrupts: [{ id: "i", reason: "r" }] } };
    expect(isExactEvent(interrupted)).toBe(false);
    expect(validEvent(interrupted)).not.toBe(interrupted);
    expect(validEvent(interrupted)).toEqual(interrupted);
    expect(() => validEvent({ ...MINIMAL_EVENTS.RUN_FINISHED, outcome: { type: "interrupt", interrupts: [] } })).toThrow(
      "invalid RUN_FINISHED event: outcome.interrupts: expected at least one interrupt, found none",
    );
  });

  it("pass an exact outcome or usage, which the generated helpers check", () => {
    for (const event of [
      { ...MINIMAL_EVENTS.RUN_FINISHED, outcome: { type: "cancelled" } },
      { ...MINIMAL_EVENTS.RUN_FINISHED, outcome: { type: "success", pendingToolCallIds: ["a"] } },
      { ...MINIMAL_EVENTS.RUN_FINISHED, usage: [] },
      { ...MINIMAL_EVENTS.RUN_ERROR, usage: [{ inputTokens: 1 }] },
      { ...MINIMAL_EVENTS.SUBAGENT_FINISHED, outcome: { type: "success" } },
    ]) {
      expect(isExactEvent(event), event.type).toBe(true);
      expect(validEvent(event), event.type).toBe(event);
    }
    expect(isExactEvent({ ...MINIMAL_EVENTS.RUN_ERROR, usage: [{ inputTokens: -1 }] })).toBe(false);
    expect(isExactEvent({ ...MINIMAL_EVENTS.RUN_FINISHED, outcome: { type: "success", pendingToolCallIds: [1] } })).toBe(false);
  });

  it("refuse the forms 1.0 refuses in the base fields: null rawEvent, metadata that is not an object", () => {
    const base = { type: "STEP_STARTED", stepName: "s" };
    expect(isExactEvent({ ...base, rawEvent: { a: null }, metadata: { k: null } })).toBe(true);
    expect(isExactEvent({ ...base, rawEvent: null })).toBe(false);
    for (const metadata of [null, [], "m", 1]) expect(isExactEvent({ ...base, metadata }), JSON.stringify(metadata)).toBe(false);
    expect(isExactEvent({ type: "CUSTOM", name: "n" })).toBe(false);
    expect(isExactEvent({ type: "CUSTOM", name: "n", value: null })).toBe(true);
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
    const keys = [
      "type", "messageId", "delta", "role", "toolCallId", "toolCallName", "parentMessageId", "snapshot", "event", "source", "name",
      "value", "threadId", "runId", "message", "code", "stepName", "timestamp", "rawEvent", "metadata", "subagentRunId", "protocolVersion",
      "parentRunId", "input", "result", "outcome", "usage", "description", "parentSubagentRunId", "parentToolCallId", "content",
      "activityType", "replace", "patch", "subtype", "entityId", "encryptedValue", "extra", "__proto__", "constructor",
    ];
    const values = fc.oneof(
      fc.constantFrom<unknown>(undefined, null, "", "x", "assistant", "user", "developer", "tool", "reasoning", "message", "tool-call", 0, -0, 1.5, 2 ** 53, NaN, Infinity, true, false, [], {}, [1, "a"], { a: { b: [null] } }),
      fc.constantFrom<unknown>({ type: "success" }, { type: "interrupt", interrupts: [] }, { type: "suspended" }, [{ inputTokens: 1 }], [{ inputTokens: -1 }], { threadId: "t", runId: "r", messages: [] }, [{ type: "text", text: "t" }]),
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
    PLAIN: object({ type: z.literal("PLAIN"), id: z.string(), n: z.optional(int()), count: z.optional(int(0)) }),
    BOUNDED: object({ type: z.literal("BOUNDED"), id: z.string().check(z.maxLength(3)) }),
    LISTED: object({ type: z.literal("LISTED"), ids: z.array(z.string()) }),
    // zod's own int() is not the model's (src/model/int.ts): left to zod, like any number.
    FLOAT: object({ type: z.literal("FLOAT"), x: z.int() }),
  });

  it("compiles the plain forms it knows", () => {
    expect(source).toContain('case "PLAIN":');
    expect(source).toContain("if (!(typeof f_id === \"string\")) return false;");
    expect(source).toContain("if (f_n !== undefined) {\n    if (!(Number.isSafeInteger(f_n))) return false;");
    expect(source).toContain("if (f_count !== undefined) {\n    if (!(Number.isSafeInteger(f_count) && (f_count as number) >= 0)) return false;");
  });

  it("sends an event with an optional field of another form to zod whenever that field is present", () => {
    const optional = generate({ OPTLIST: object({ type: z.literal("OPTLIST"), ids: z.optional(z.array(z.string())) }) });
    expect(optional).toContain('case "OPTLIST":');
    expect(optional).toContain("if (f_ids !== undefined) {\n    if (!(false)) return false;");
  });

  it("compiles the model's nested objects, arrays and tagged unions into helpers of their own", () => {
    const item = object({ a: z.string() });
    const nested = generate({
      NESTED: object({
        type: z.literal("NESTED"),
        items: array(item),
        kind: tagged("k", [object({ k: z.literal("x") }), object({ k: z.literal("y"), n: int() })]),
      }),
    });
    expect(nested).toContain('case "NESTED":');
    expect(nested).toContain("function everyShape0(a: unknown, ordered: boolean): boolean {");
    expect(nested).toContain("if (!(everyShape0(f_items, ordered))) return false;");
    expect(nested).toContain('switch ((v as Record<string, unknown>).k) {\n    case "x":');
    expect(nested).toContain('const KEYS_Shape0: readonly string[] = ["a"];');
  });

  it("leaves to zod an array with a length check, a longer minimum length and zod's own arrays and objects", () => {
    const element = object({ a: z.string() });
    const refused = generate({
      OK: object({ type: z.literal("OK"), items: array(element) }),
      // Compiled after OK's array of the same element, whose helper it must not borrow.
      SHORT: object({ type: z.literal("SHORT"), items: array(element).check(z.minLength(1)) }),
      LONG: object({ type: z.literal("LONG"), items: array(element), s: z.string().check(z.minLength(2)) }),
      ZOD: object({ type: z.literal("ZOD"), o: z.object({ a: z.string() }) }),
    });
    expect(refused).toContain("Types without a fast check (a field of another form): SHORT, LONG, ZOD.");
    expect(refused).toContain('case "OK":');
  });

  it("leaves every other form to zod rather than guess its rules", () => {
    expect(source).toContain("Types without a fast check (a field of another form): BOUNDED, LISTED, FLOAT.");
    expect(source).not.toContain('case "BOUNDED":');
    expect(source).not.toContain('case "LISTED":');
    expect(source).not.toContain('case "FLOAT":');
  });
});
