import { EventSchema as CoreEventSchema, RunAgentInputSchema as CoreRunAgentInputSchema } from "@ag-ui/core/schemas";
import { describe, expect, it } from "vitest";
import {
  EventSchema,
  JsonObjectSchema,
  JsonValueSchema,
  MAX_JSON_DEPTH,
  RunAgentInputSchema,
  findJsonProblem,
  formatPath,
  parseEvent,
  parseRunAgentInput,
} from "../../src/model/index.js";
import {
  NON_JSON_LEAVES,
  Point,
  expectInvalid,
  nestArrays,
  nestMixed,
  nestObjects,
  richJson,
  selfArray,
  selfObject,
  validInput,
  validationError,
} from "./helpers.js";

const DEPTH_MSG = "expected JSON nested at most 100 levels deep, found deeper nesting";
const CYCLE_MSG = "expected a JSON value, found a circular reference";

describe("MAX_JSON_DEPTH", () => {
  it("is 100", () => {
    expect(MAX_JSON_DEPTH).toBe(100);
  });
});

describe("findJsonProblem: JSON values", () => {
  it.each([
    ["null", null],
    ["true", true],
    ["false", false],
    ["0", 0],
    ["-0", -0],
    ["a negative float", -1.5e-300],
    ["Number.MAX_VALUE", Number.MAX_VALUE],
    ["MAX_SAFE_INTEGER + 2 (a float)", Number.MAX_SAFE_INTEGER + 2],
    ["an empty string", ""],
    ["a string with a lone surrogate", "\ud800"],
    ["an empty array", []],
    ["an empty object", {}],
    ["a rich value", richJson()],
    ["an object without prototype", Object.assign(Object.create(null) as object, { a: 1 })],
    ["a frozen object", Object.freeze({ a: Object.freeze([1]) })],
    ["an array with a null slot", [null, null]],
    ["an object with a null value", { a: null }],
    ["an object with an own __proto__ key", JSON.parse('{"__proto__": {"x": 1}}') as unknown],
    ["what JSON.parse returns", JSON.parse('{"a":[1,2,{"b":null}],"c":"d"}') as unknown],
  ])("accepts %s", (_name, value) => {
    expect(findJsonProblem(value)).toBeUndefined();
    expect(JsonValueSchema.safeParse(value).success).toBe(true);
  });

  it("accepts the same object referenced twice (shared, not circular)", () => {
    const shared = { x: [1] };
    const value = { a: shared, b: shared, list: [shared, shared] };
    expect(findJsonProblem(value)).toBeUndefined();
  });

  it("ignores symbol-keyed properties, as JSON.stringify does", () => {
    expect(findJsonProblem({ a: 1, [Symbol("s")]: undefined })).toBeUndefined();
  });

  it("JsonValueSchema returns the very same value", () => {
    const value = richJson();
    expect(JsonValueSchema.parse(value)).toBe(value);
  });
});

describe("findJsonProblem: values that are not JSON", () => {
  it.each(NON_JSON_LEAVES)("rejects $name at the root", ({ make, message, rootMessage }) => {
    expect(findJsonProblem(make())).toEqual({ path: [], message: rootMessage ?? message });
  });

  it.each(NON_JSON_LEAVES)("rejects $name inside an object, with the path to it", ({ make, message }) => {
    expect(findJsonProblem({ ok: 1, a: { b: make() } })).toEqual({ path: ["a", "b"], message });
  });

  it.each(NON_JSON_LEAVES)("rejects $name inside an array, with the index", ({ make, message }) => {
    expect(findJsonProblem([0, "x", make()])).toEqual({ path: [2], message });
  });

  it.each(NON_JSON_LEAVES)("rejects $name deep inside, with the full path", ({ make, message }) => {
    expect(findJsonProblem({ a: [0, { b: [null, { "c d": make() }] }] })).toEqual({
      path: ["a", 1, "b", 1, "c d"],
      message,
    });
  });

  it("reports the first problem only", () => {
    expect(findJsonProblem({ a: NaN, b: undefined })).toEqual({
      path: ["a"],
      message: "expected a finite number, found NaN",
    });
  });

  it.each([
    ["a hole in the middle", [1, , 3], [1]],
    ["a hole at the start", [, 1], [0]],
    ["a hole at the end", [1, ,], [1]],
    ["new Array(2)", new Array(2), [0]],
    ["a deleted element", (() => { const a = [1, 2, 3]; delete a[1]; return a; })(), [1]],
    ["a length set past the end", (() => { const a = [1]; a.length = 3; return a; })(), [1]],
  ])("rejects a sparse array: %s", (_name, value, path) => {
    expect(findJsonProblem({ list: value })).toEqual({
      path: ["list", ...path],
      message: "expected a JSON value, found an empty array slot",
    });
  });

  it("rejects an explicit undefined element (not a hole)", () => {
    expect(findJsonProblem([1, undefined])).toEqual({ path: [1], message: "expected a JSON value, found undefined" });
  });

  it("rejects a getter that returns undefined", () => {
    const value = Object.defineProperty({}, "g", { get: () => undefined, enumerable: true });
    expect(findJsonProblem(value)).toEqual({ path: ["g"], message: "expected a JSON value, found undefined" });
  });
});

describe("findJsonProblem: cycles", () => {
  it("rejects an object that contains itself", () => {
    const problem = findJsonProblem(selfObject());
    expect(problem?.message).toBe(CYCLE_MSG);
    expect(problem?.path).toEqual(Array(MAX_JSON_DEPTH).fill("self"));
  });

  it("rejects an array that contains itself", () => {
    const problem = findJsonProblem(selfArray());
    expect(problem?.message).toBe(CYCLE_MSG);
    expect(problem?.path).toEqual(Array(MAX_JSON_DEPTH).fill(0));
  });

  it("rejects an indirect cycle through objects and arrays", () => {
    const a: Record<string, unknown> = {};
    const b = [a];
    a.b = { list: b };
    const problem = findJsonProblem({ root: a });
    expect(problem?.message).toBe(CYCLE_MSG);
    expect(problem?.path.slice(0, 4)).toEqual(["root", "b", "list", 0]);
  });

  it("rejects a cycle nested below valid data", () => {
    const problem = findJsonProblem({ ok: [1, 2], bad: [0, selfObject()] });
    expect(problem?.message).toBe(CYCLE_MSG);
    expect(problem?.path.slice(0, 3)).toEqual(["bad", 1, "self"]);
  });
});

describe("findJsonProblem: nesting depth", () => {
  it.each([
    ["arrays", nestArrays],
    ["objects", nestObjects],
    ["mixed objects and arrays", nestMixed],
  ] as const)("accepts exactly MAX_JSON_DEPTH levels of %s", (_name, nest) => {
    expect(findJsonProblem(nest(MAX_JSON_DEPTH))).toBeUndefined();
    expect(findJsonProblem(nest(MAX_JSON_DEPTH, "leaf"))).toBeUndefined();
    expect(findJsonProblem(nest(MAX_JSON_DEPTH - 1, []))).toBeUndefined();
    expect(findJsonProblem(nest(MAX_JSON_DEPTH - 1, {}))).toBeUndefined();
  });

  it.each([
    ["arrays", nestArrays],
    ["objects", nestObjects],
    ["mixed objects and arrays", nestMixed],
  ] as const)("rejects MAX_JSON_DEPTH + 1 levels of %s", (_name, nest) => {
    for (const value of [nest(MAX_JSON_DEPTH + 1), nest(MAX_JSON_DEPTH, []), nest(MAX_JSON_DEPTH, {})]) {
      const problem = findJsonProblem(value);
      expect(problem?.message).toBe(DEPTH_MSG);
      expect(problem?.path).toHaveLength(MAX_JSON_DEPTH);
    }
  });

  it("gives the path to the too-deep container", () => {
    expect(findJsonProblem(nestArrays(101))?.path).toEqual(Array(100).fill(0));
    expect(findJsonProblem(nestObjects(101))?.path).toEqual(Array(100).fill("a"));
  });

  it("rejects very deep nesting without overflowing the stack", () => {
    const problem = findJsonProblem(nestArrays(100_000));
    expect(problem?.message).toBe(DEPTH_MSG);
  });

  it("counts depth along one branch, not across siblings", () => {
    const wide = { a: nestArrays(MAX_JSON_DEPTH - 1), b: nestArrays(MAX_JSON_DEPTH - 1) };
    expect(findJsonProblem(wide)).toBeUndefined();
    expect(findJsonProblem({ a: nestArrays(MAX_JSON_DEPTH - 1), b: nestArrays(MAX_JSON_DEPTH) })?.path).toEqual([
      "b",
      ...Array(MAX_JSON_DEPTH - 1).fill(0),
    ]);
  });
});

describe("JsonValueSchema and JsonObjectSchema", () => {
  it.each(NON_JSON_LEAVES)("JsonValueSchema rejects $name with a custom issue at its path", ({ make, message }) => {
    const result = JsonValueSchema.safeParse({ a: [make()] });
    expect(result.success).toBe(false);
    expect(result.error?.issues).toHaveLength(1);
    expect(result.error?.issues[0]).toMatchObject({ code: "custom", path: ["a", 0], message });
  });

  it.each([
    [{}],
    [{ type: "object", properties: { a: { type: "number", default: 1.5 } } }],
    [Object.create(null) as object],
    [richJson()],
    [nestObjects(MAX_JSON_DEPTH)],
  ])("JsonObjectSchema accepts %j", (value) => {
    expect(JsonObjectSchema.parse(value)).toBe(value);
  });

  it.each([
    [[], "an array"],
    [[{}], "an array"],
    [null, "null"],
    [undefined, "nothing"],
    ["{}", '"{}"'],
    [1, "1"],
    [NaN, "NaN"],
    [true, "boolean"],
    [() => ({}), "a function"],
  ])("JsonObjectSchema rejects the non-object %j (found %s)", (value, found) => {
    const result = JsonObjectSchema.safeParse(value);
    expect(result.success).toBe(false);
    expect(result.error?.issues).toHaveLength(1);
    expect(result.error?.issues[0]).toMatchObject({ path: [], message: `expected a JSON object, found ${found}` });
  });

  it.each([
    [new Date(0), "expected a plain object, found an instance of Date"],
    [new Map(), "expected a plain object, found an instance of Map"],
    [new Point(), "expected a plain object, found an instance of Point"],
  ])("JsonObjectSchema rejects the non-plain object %s", (value, message) => {
    expect(JsonObjectSchema.safeParse(value).error?.issues[0]).toMatchObject({ path: [], message });
  });

  it("JsonObjectSchema rejects non-JSON inside, with the path", () => {
    expect(JsonObjectSchema.safeParse({ a: { b: [Infinity] } }).error?.issues[0]).toMatchObject({
      path: ["a", "b", 0],
      message: "expected a finite number, found Infinity",
    });
  });

  it("JsonObjectSchema rejects nesting deeper than MAX_JSON_DEPTH", () => {
    expect(JsonObjectSchema.safeParse(nestObjects(MAX_JSON_DEPTH + 1)).error?.issues[0]?.message).toBe(DEPTH_MSG);
  });
});

// ---------------------------------------------------------------------------------------------
// Every "any JSON" field of the model, checked with every kind of non-JSON value.
// ---------------------------------------------------------------------------------------------

/**
 * The three kinds of JSON field in AG-UI 1.0: any value (`null` included), any value but `null`
 * (optional fields that are absent or a value: rawEvent, result, tool parameters, a resume
 * payload, a content part's metadata), and a JSON object (metadata, activity content, an
 * interrupt's response schema).
 */
type JsonKind = "any" | "nonNull" | "object";

interface JsonField {
  name: string;
  /** Builds the whole value to validate, with `v` placed in the field. */
  build: (v: unknown) => unknown;
  /** Path from the root of the validated value to the field. */
  at: readonly (string | number)[];
  parse: (value: unknown) => unknown;
  code: "invalid_event" | "invalid_input";
  prefix: string;
  kind: JsonKind;
  /** The field may be absent. */
  optional?: boolean;
  /** Another way to validate the same value, for EventSchema / RunAgentInputSchema agreement. */
  schema: { safeParse: (v: unknown) => { success: boolean; error?: { issues: { path: PropertyKey[] }[] } } };
  /** The same field checked by `@ag-ui/core/schemas` 1.0, which must agree on null and non-objects. */
  core: { safeParse: (v: unknown) => { success: boolean } };
}

const input = (patch: Record<string, unknown>) => ({ ...validInput(), ...patch });
const op = (o: string) => (v: unknown) => ({ type: "STATE_DELTA", delta: [{ op: "remove", path: "/x" }, { op: o, path: "/a", value: v }] });

/** A field of an event: `fields` besides the one under test, which is `at` (a top-level key or a path). */
function eventField(
  name: string,
  kind: JsonKind,
  type: string,
  build: (v: unknown) => Record<string, unknown>,
  at: readonly (string | number)[],
  optional = false,
): JsonField {
  return {
    name,
    build: (v) => ({ type, ...build(v) }),
    at,
    parse: parseEvent,
    code: "invalid_event",
    prefix: `invalid ${type} event: `,
    kind,
    optional,
    schema: EventSchema,
    core: CoreEventSchema,
  };
}

function inputField(name: string, kind: JsonKind, patch: (v: unknown) => Record<string, unknown>, at: readonly (string | number)[], optional = false): JsonField {
  return {
    name,
    build: (v) => input(patch(v)),
    at,
    parse: parseRunAgentInput,
    code: "invalid_input",
    prefix: "invalid RunAgentInput: ",
    kind,
    optional,
    schema: RunAgentInputSchema,
    core: CoreRunAgentInputSchema,
  };
}

const INTERRUPTED = (interrupt: Record<string, unknown>) => ({
  threadId: "t",
  runId: "r",
  outcome: { type: "interrupt", interrupts: [{ id: "i0", reason: "r" }, { id: "i1", reason: "r", ...interrupt }] },
});

const JSON_FIELDS: readonly JsonField[] = [
  eventField("STATE_SNAPSHOT snapshot", "any", "STATE_SNAPSHOT", (v) => ({ snapshot: v }), ["snapshot"]),
  eventField("rawEvent (on RUN_STARTED)", "nonNull", "RUN_STARTED", (v) => ({ threadId: "t", runId: "r", rawEvent: v }), ["rawEvent"], true),
  eventField("rawEvent (on TEXT_MESSAGE_CONTENT)", "nonNull", "TEXT_MESSAGE_CONTENT", (v) => ({ messageId: "m", delta: "d", rawEvent: v }), ["rawEvent"], true),
  eventField("metadata (on STEP_FINISHED)", "object", "STEP_FINISHED", (v) => ({ stepName: "s", metadata: v }), ["metadata"], true),
  eventField("RAW event", "any", "RAW", (v) => ({ event: v, source: "s" }), ["event"]),
  eventField("CUSTOM value", "any", "CUSTOM", (v) => ({ name: "n", value: v }), ["value"]),
  ...(["add", "replace", "test"] as const).map((o) => eventField(`STATE_DELTA ${o} value`, "any", "STATE_DELTA", (v) => op(o)(v), ["delta", 1, "value"])),
  eventField("ACTIVITY_DELTA add value", "any", "ACTIVITY_DELTA", (v) => ({ messageId: "a", activityType: "p", patch: [{ op: "add", path: "/a", value: v }] }), ["patch", 0, "value"]),
  eventField("ACTIVITY_SNAPSHOT content", "object", "ACTIVITY_SNAPSHOT", (v) => ({ messageId: "a", activityType: "p", content: v }), ["content"]),
  eventField("RUN_FINISHED result", "nonNull", "RUN_FINISHED", (v) => ({ threadId: "t", runId: "r", result: v }), ["result"], true),
  eventField("SUBAGENT_FINISHED result", "nonNull", "SUBAGENT_FINISHED", (v) => ({ subagentRunId: "s", result: v }), ["result"], true),
  eventField("interrupt responseSchema", "object", "RUN_FINISHED", (v) => INTERRUPTED({ responseSchema: v }), ["outcome", "interrupts", 1, "responseSchema"], true),
  eventField("interrupt metadata", "object", "RUN_FINISHED", (v) => INTERRUPTED({ metadata: v }), ["outcome", "interrupts", 1, "metadata"], true),
  eventField("message metadata", "object", "MESSAGES_SNAPSHOT", (v) => ({ messages: [{ id: "1", role: "reasoning", content: "", metadata: v }] }), ["messages", 0, "metadata"], true),
  eventField("activity message content", "object", "MESSAGES_SNAPSHOT", (v) => ({ messages: [{ id: "1", role: "activity", activityType: "p", content: v }] }), ["messages", 0, "content"]),
  eventField(
    "tool call metadata",
    "object",
    "MESSAGES_SNAPSHOT",
    (v) => ({ messages: [{ id: "1", role: "assistant", toolCalls: [{ id: "c", type: "function", function: { name: "f", arguments: "" }, metadata: v }] }] }),
    ["messages", 0, "toolCalls", 0, "metadata"],
    true,
  ),
  eventField("content part metadata", "nonNull", "TOOL_CALL_RESULT", (v) => ({ messageId: "m", toolCallId: "t", content: [{ type: "text", text: "", metadata: v }] }), ["content", 0, "metadata"], true),
  inputField("RunAgentInput state", "any", (v) => ({ state: v }), ["state"], true),
  inputField("RunAgentInput forwardedProps", "any", (v) => ({ forwardedProps: v }), ["forwardedProps"], true),
  inputField("tool parameters", "nonNull", (v) => ({ tools: [{ name: "a", description: "b" }, { name: "n", description: "d", parameters: v }] }), ["tools", 1, "parameters"], true),
  inputField("tool metadata", "object", (v) => ({ tools: [{ name: "n", description: "d", metadata: v }] }), ["tools", 0, "metadata"], true),
  inputField("resume payload", "nonNull", (v) => ({ resume: [{ interruptId: "i", status: "resolved", payload: v }] }), ["resume", 0, "payload"], true),
  inputField("resume metadata", "object", (v) => ({ resume: [{ interruptId: "i", status: "cancelled", metadata: v }] }), ["resume", 0, "metadata"], true),
];

/** Non-JSON values placed at `{a: [0, {b: HERE}]}` inside the field. */
const NESTED_CASES = JSON_FIELDS.flatMap((field) => NON_JSON_LEAVES.map((leaf) => [field.name, leaf.name, field, leaf] as const));

/** Non-JSON values placed directly in the field (only where the field takes any JSON). */
const ROOT_CASES = JSON_FIELDS.filter((f) => f.kind !== "object").flatMap((field) =>
  NON_JSON_LEAVES.filter((leaf) => !(field.optional && leaf.name === "undefined")).map(
    (leaf) => [field.name, leaf.name, field, leaf] as const,
  ),
);

/** JSON values, with the kinds of field that take each: any JSON; all but null; objects only. */
const JSON_SAMPLES: readonly [string, () => unknown, readonly JsonKind[]][] = [
  ["null", () => null, ["any"]],
  ["false", () => false, ["any", "nonNull"]],
  ["0", () => 0, ["any", "nonNull"]],
  ["a string", () => "s", ["any", "nonNull"]],
  ["an empty array", () => [], ["any", "nonNull"]],
  ["an array holding null", () => [null], ["any", "nonNull"]],
  ["an empty object", () => ({}), ["any", "nonNull", "object"]],
  ["an object holding null", () => ({ k: null }), ["any", "nonNull", "object"]],
  ["a rich value", richJson, ["any", "nonNull", "object"]],
  ["an object without prototype", () => Object.assign(Object.create(null) as object, { k: [1] }), ["any", "nonNull", "object"]],
];
const VALID_CASES = JSON_FIELDS.flatMap((field) =>
  JSON_SAMPLES.filter(([, , kinds]) => kinds.includes(field.kind)).map(([name, make]) => [field.name, name, field, make] as const),
);

/** JSON values a field refuses by its kind, with what the message says was found. */
const WRONG_KIND: readonly [string, unknown, string, readonly JsonKind[]][] = [
  ["null", null, "null", ["nonNull", "object"]],
  ["an array", [], "an array", ["object"]],
  ["an array of an object", [{}], "an array", ["object"]],
  ["a string", "{}", '"{}"', ["object"]],
  ["a number", 3, "3", ["object"]],
  ["a boolean", true, "boolean", ["object"]],
];
const WRONG_KIND_CASES = JSON_FIELDS.flatMap((field) =>
  WRONG_KIND.filter(([, , , kinds]) => kinds.includes(field.kind)).map(([name, value, found]) => [field.name, name, field, value, found] as const),
);
const EXPECTED: Record<Exclude<JsonKind, "any">, string> = {
  nonNull: "expected a JSON value other than null",
  object: "expected a JSON object",
};

describe("any-JSON fields accept JSON", () => {
  it.each(VALID_CASES)("%s accepts %s and keeps it", (f, _s, field, make) => {
    const value = make();
    const out = field.parse(field.build(value));
    let got: unknown = out;
    for (const key of field.at) got = (got as Record<string | number, unknown>)[key];
    // A null forwardedProps is taken as {}, which RUN_STARTED may echo (see parseRunAgentInput).
    expect(got).toStrictEqual(f === "RunAgentInput forwardedProps" && value === null ? {} : value);
  });

  it.each(JSON_FIELDS)("$name accepts exactly MAX_JSON_DEPTH levels of nesting", (field) => {
    expect(() => field.parse(field.build(nestObjects(MAX_JSON_DEPTH)))).not.toThrow();
    expect(() => field.parse(field.build(nestMixed(MAX_JSON_DEPTH - 1, [])))).not.toThrow();
    if (field.kind !== "object") expect(() => field.parse(field.build(nestArrays(MAX_JSON_DEPTH)))).not.toThrow();
  });

  it.each(JSON_FIELDS.filter((f) => !f.optional))("$name is required: absent, it is refused as missing", (field) => {
    const value = field.build(undefined);
    expectInvalid(() => field.parse(value), {
      code: field.code,
      path: field.at,
      message: `${field.prefix}${formatPath(field.at)}: ${field.kind === "object" ? "expected a JSON object, found nothing" : "expected a JSON value, found nothing"}`,
    });
    expect(field.core.safeParse(value).success).toBe(false);
  });

  it.each(JSON_FIELDS.filter((f) => f.optional))("$name may be absent", (field) => {
    const value = field.build(undefined) as Record<string, unknown>;
    const key = field.at[field.at.length - 1] as string;
    delete value[key];
    const out = field.parse(value) as Record<string, unknown>;
    expect(out).not.toHaveProperty(key);
  });
});

describe("JSON fields reject what their kind excludes, as 1.0 does", () => {
  it.each(WRONG_KIND_CASES)("%s rejects %s", (_f, _n, field, value, found) => {
    const built = field.build(value);
    expectInvalid(() => field.parse(built), {
      code: field.code,
      path: field.at,
      message: `${field.prefix}${formatPath(field.at)}: ${EXPECTED[field.kind as Exclude<JsonKind, "any">]}, found ${found}`,
    });
    expect(field.core.safeParse(built).success).toBe(false);
  });

  it.each(JSON_FIELDS.filter((f) => f.kind === "any"))("$name takes null, and so does 1.0", (field) => {
    const built = field.build(null);
    expect(() => field.parse(built)).not.toThrow();
    // 1.0 refuses a null forwardedProps; ours takes it as {} for bodies written for the initial release.
    if (field.name !== "RunAgentInput forwardedProps") expect(field.core.safeParse(built).success).toBe(true);
  });

  // The one difference is the documented one: a null forwardedProps (see above).
  it.each(VALID_CASES.filter(([f, name]) => !(f === "RunAgentInput forwardedProps" && name === "null")))("%s: 1.0 accepts %s too", (_f, _s, field, make) => {
    expect(field.core.safeParse(field.build(make())).success).toBe(true);
  });
});

describe("any-JSON fields reject non-JSON", () => {
  it.each(NESTED_CASES)("%s rejects %s nested inside", (_f, _l, field, leaf) => {
    const path = [...field.at, "a", 1, "b"];
    expectInvalid(() => field.parse(field.build({ a: [0, { b: leaf.make() }] })), {
      code: field.code,
      path,
      message: `${field.prefix}${formatPath(path)}: ${leaf.message}`,
    });
  });

  it.each(ROOT_CASES)("%s rejects %s as the whole value", (_f, _l, field, leaf) => {
    expectInvalid(() => field.parse(field.build(leaf.make())), {
      code: field.code,
      path: field.at,
      message: `${field.prefix}${formatPath(field.at)}: ${leaf.rootMessage ?? leaf.message}`,
    });
  });

  it.each(JSON_FIELDS)("$name rejects undefined inside an array", (field) => {
    const path = [...field.at, "list", 2];
    expectInvalid(() => field.parse(field.build({ list: [1, null, undefined] })), {
      code: field.code,
      path,
      message: `${field.prefix}${formatPath(path)}: expected a JSON value, found undefined`,
    });
  });

  it.each(JSON_FIELDS)("$name rejects a sparse array", (field) => {
    const path = [...field.at, "list", 1];
    expectInvalid(() => field.parse(field.build({ list: [1, , 3] })), {
      code: field.code,
      path,
      message: `${field.prefix}${formatPath(path)}: expected a JSON value, found an empty array slot`,
    });
  });

  it.each(JSON_FIELDS)("$name rejects a cycle", (field) => {
    const err = validationError(() => field.parse(field.build({ a: selfObject() })));
    expect(err.code).toBe(field.code);
    expect(err.issues).toHaveLength(1);
    expect(err.issues[0]?.path).toEqual([...field.at, "a", ...Array(MAX_JSON_DEPTH - 1).fill("self")]);
    expect(err.message).toContain(`${field.prefix}${formatPath([...field.at, "a", "self"])}`);
    expect(err.message).toMatch(/: expected a JSON value, found a circular reference$/);
  });

  it.each(JSON_FIELDS)("$name rejects MAX_JSON_DEPTH + 1 levels of nesting", (field) => {
    const err = validationError(() => field.parse(field.build(nestObjects(MAX_JSON_DEPTH + 1))));
    expect(err.code).toBe(field.code);
    expect(err.issues).toHaveLength(1);
    expect(err.issues[0]?.path).toEqual([...field.at, ...Array(MAX_JSON_DEPTH).fill("a")]);
    expect(err.message.startsWith(`${field.prefix}${formatPath(field.at)}.a.a.`)).toBe(true);
    expect(err.message.endsWith(`: ${DEPTH_MSG}`)).toBe(true);
  });

  it.each(JSON_FIELDS)("$name: the zod schema rejects the same value at the same path", (field) => {
    const value = field.build({ a: [0, { b: NaN }] });
    const result = field.schema.safeParse(value);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.path)).toEqual([[...field.at, "a", 1, "b"]]);
  });
});
