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

interface JsonField {
  name: string;
  /** Builds the whole value to validate, with `v` placed in the field. */
  build: (v: unknown) => unknown;
  /** Path from the root of the validated value to the field. */
  at: readonly (string | number)[];
  parse: (value: unknown) => unknown;
  code: "invalid_event" | "invalid_input";
  prefix: string;
  /** Tool parameters must be a JSON object; every other field takes any JSON value. */
  objectOnly?: boolean;
  /** The field may be absent. */
  optional?: boolean;
  /** Another way to validate the same value, for EventSchema / RunAgentInputSchema agreement. */
  schema: { safeParse: (v: unknown) => { success: boolean; error?: { issues: { path: PropertyKey[] }[] } } };
}

const input = (patch: Record<string, unknown>) => ({ ...validInput(), ...patch });
const op = (o: string) => (v: unknown) => ({ type: "STATE_DELTA", delta: [{ op: "remove", path: "/x" }, { op: o, path: "/a", value: v }] });

const JSON_FIELDS: readonly JsonField[] = [
  {
    name: "STATE_SNAPSHOT snapshot",
    build: (v) => ({ type: "STATE_SNAPSHOT", snapshot: v }),
    at: ["snapshot"],
    parse: parseEvent,
    code: "invalid_event",
    prefix: "invalid STATE_SNAPSHOT event: ",
    schema: EventSchema,
  },
  {
    name: "rawEvent (on RUN_STARTED)",
    build: (v) => ({ type: "RUN_STARTED", threadId: "t", runId: "r", rawEvent: v }),
    at: ["rawEvent"],
    parse: parseEvent,
    code: "invalid_event",
    prefix: "invalid RUN_STARTED event: ",
    optional: true,
    schema: EventSchema,
  },
  {
    name: "rawEvent (on TEXT_MESSAGE_CONTENT)",
    build: (v) => ({ type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "d", rawEvent: v }),
    at: ["rawEvent"],
    parse: parseEvent,
    code: "invalid_event",
    prefix: "invalid TEXT_MESSAGE_CONTENT event: ",
    optional: true,
    schema: EventSchema,
  },
  {
    name: "RAW event",
    build: (v) => ({ type: "RAW", event: v, source: "s" }),
    at: ["event"],
    parse: parseEvent,
    code: "invalid_event",
    prefix: "invalid RAW event: ",
    schema: EventSchema,
  },
  {
    name: "CUSTOM value",
    build: (v) => ({ type: "CUSTOM", name: "n", value: v }),
    at: ["value"],
    parse: parseEvent,
    code: "invalid_event",
    prefix: "invalid CUSTOM event: ",
    optional: true,
    schema: EventSchema,
  },
  ...(["add", "replace", "test"] as const).map(
    (o): JsonField => ({
      name: `STATE_DELTA ${o} value`,
      build: op(o),
      at: ["delta", 1, "value"],
      parse: parseEvent,
      code: "invalid_event",
      prefix: "invalid STATE_DELTA event: ",
      schema: EventSchema,
    }),
  ),
  {
    name: "RunAgentInput state",
    build: (v) => input({ state: v }),
    at: ["state"],
    parse: parseRunAgentInput,
    code: "invalid_input",
    prefix: "invalid RunAgentInput: ",
    schema: RunAgentInputSchema,
  },
  {
    name: "RunAgentInput forwardedProps",
    build: (v) => input({ forwardedProps: v }),
    at: ["forwardedProps"],
    parse: parseRunAgentInput,
    code: "invalid_input",
    prefix: "invalid RunAgentInput: ",
    schema: RunAgentInputSchema,
  },
  {
    name: "tool parameters",
    build: (v) => input({ tools: [{ name: "a", description: "b", parameters: {} }, { name: "n", description: "d", parameters: v }] }),
    at: ["tools", 1, "parameters"],
    parse: parseRunAgentInput,
    code: "invalid_input",
    prefix: "invalid RunAgentInput: ",
    objectOnly: true,
    schema: RunAgentInputSchema,
  },
];

/** Non-JSON values placed at `{a: [0, {b: HERE}]}` inside the field. */
const NESTED_CASES = JSON_FIELDS.flatMap((field) => NON_JSON_LEAVES.map((leaf) => [field.name, leaf.name, field, leaf] as const));

/** Non-JSON values placed directly in the field (only where the field takes any JSON). */
const ROOT_CASES = JSON_FIELDS.filter((f) => !f.objectOnly).flatMap((field) =>
  NON_JSON_LEAVES.filter((leaf) => !(field.optional && leaf.name === "undefined")).map(
    (leaf) => [field.name, leaf.name, field, leaf] as const,
  ),
);

/** The JSON values every any-JSON field takes; tool parameters only take the objects among them. */
const JSON_SAMPLES: readonly [string, () => unknown, boolean][] = [
  ["null", () => null, false],
  ["false", () => false, false],
  ["0", () => 0, false],
  ["a string", () => "s", false],
  ["an empty array", () => [], false],
  ["an empty object", () => ({}), true],
  ["a rich value", richJson, true],
  ["an object without prototype", () => Object.assign(Object.create(null) as object, { k: [1] }), true],
];
const VALID_CASES = JSON_FIELDS.flatMap((field) =>
  JSON_SAMPLES.filter(([, , isObject]) => isObject || !field.objectOnly).map(
    ([name, make]) => [field.name, name, field, make] as const,
  ),
);

describe("any-JSON fields accept JSON", () => {
  it.each(VALID_CASES)("%s accepts %s and keeps it", (_f, _s, field, make) => {
    const value = make();
    const out = field.parse(field.build(value));
    let got: unknown = out;
    for (const key of field.at) got = (got as Record<string | number, unknown>)[key];
    expect(got).toStrictEqual(value);
  });

  it.each(JSON_FIELDS)("$name accepts exactly MAX_JSON_DEPTH levels of nesting", (field) => {
    expect(() => field.parse(field.build(nestObjects(MAX_JSON_DEPTH)))).not.toThrow();
    expect(() => field.parse(field.build(nestMixed(MAX_JSON_DEPTH - 1, [])))).not.toThrow();
    if (!field.objectOnly) expect(() => field.parse(field.build(nestArrays(MAX_JSON_DEPTH)))).not.toThrow();
  });

  it.each(JSON_FIELDS.filter((f) => f.optional))("$name may be absent", (field) => {
    const value = field.build(undefined) as Record<string, unknown>;
    const key = field.at[field.at.length - 1] as string;
    delete value[key];
    const out = field.parse(value) as Record<string, unknown>;
    expect(out).not.toHaveProperty(key);
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
