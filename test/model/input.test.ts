import { describe, expect, it } from "vitest";
import { isAguiWireError } from "../../src/util/errors.js";
import {
  ContextSchema,
  ResumeEntrySchema,
  RunAgentInputSchema,
  ToolSchema,
  formatPath,
  parseRunAgentInput,
} from "../../src/model/index.js";
import { expectInvalid, richJson, validInput, validationError } from "./helpers.js";

/** The fields AG-UI 1.0 requires of a RunAgentInput, in schema order. */
const REQUIRED = ["threadId", "runId", "messages"] as const;
type Required = (typeof REQUIRED)[number];

/** What parseRunAgentInput says when each required field is missing. */
const MISSING: Record<Required, string> = {
  threadId: "expected string, found nothing",
  runId: "expected string, found nothing",
  messages: "expected array, found nothing",
};

/** A body with only what 1.0 requires. */
const BARE = { threadId: "th1", runId: "r1", messages: [] };

/** One resume entry with every field. */
const RESUME = { interruptId: "i1", status: "resolved", payload: { approved: true }, metadata: { k: null } };

function without(obj: Record<string, unknown>, key: string): Record<string, unknown> {
  const copy = { ...obj };
  delete copy[key];
  return copy;
}

const TOOL = validInput().tools as Record<string, unknown>[];
const A_TOOL = TOOL[0] as Record<string, unknown>;

describe("parseRunAgentInput: valid input", () => {
  it("accepts a full input and returns it unchanged", () => {
    expect(parseRunAgentInput(validInput())).toEqual(validInput());
  });

  it("accepts empty lists and null JSON fields: a null state as given, a null forwardedProps as {}", () => {
    // 1.0 reads a null state as absent and refuses a null forwardedProps; bodies written for the
    // initial release (and the Python SDK, by default) send both. A null forwardedProps becomes {},
    // which RUN_STARTED may echo; 1.0 refuses a null there.
    const value = { threadId: "", runId: "", state: null, messages: [], tools: [], context: [], forwardedProps: null };
    const out = parseRunAgentInput(value);
    expect(out).toEqual({ ...value, forwardedProps: {} });
    expect(out.state).toBeNull();
  });

  it("accepts a body with only threadId, runId and messages, filling in 1.0's defaults", () => {
    const out = parseRunAgentInput(BARE);
    expect(out).toEqual({ ...BARE, tools: [], context: [] });
    expect(Object.keys(out).sort()).toEqual(["context", "messages", "runId", "threadId", "tools"]);
  });

  it("accepts every 1.0 field and keeps it", () => {
    const value = { ...validInput(), protocolVersion: "1.0", parentRunId: "r0", resume: [RESUME, { interruptId: "i2", status: "cancelled" }] };
    expect(parseRunAgentInput(value)).toEqual(value);
  });

  it.each([null, true, 0, -2.5, "s", [], {}, [1, { a: null }], richJson()])(
    "accepts state and forwardedProps %j",
    (v) => {
      const out = parseRunAgentInput({ ...validInput(), state: v, forwardedProps: v });
      expect(out.state).toStrictEqual(v);
      expect(out.forwardedProps).toStrictEqual(v === null ? {} : v);
    },
  );

  it("accepts a value decoded by JSON.parse", () => {
    expect(parseRunAgentInput(JSON.parse(JSON.stringify(validInput())))).toEqual(validInput());
  });

  it("accepts several tools and context entries, in order", () => {
    const tools = [A_TOOL, { name: "b", description: "", parameters: {} }, { name: "c", description: "x", parameters: richJson() }];
    const context = [
      { description: "a", value: "1" },
      { description: "", value: "" },
    ];
    const out = parseRunAgentInput({ ...validInput(), tools, context });
    expect(out.tools).toEqual(tools);
    expect(out.context).toEqual(context);
  });

  it("RunAgentInputSchema agrees", () => {
    expect(RunAgentInputSchema.parse(validInput())).toEqual(validInput());
  });
});

describe("parseRunAgentInput: unknown keys are dropped", () => {
  it("at the top level", () => {
    const out = parseRunAgentInput({ ...validInput(), extra: 1, parentRunID: "p", Resume: { a: 1 } });
    expect(out).toEqual(validInput());
    expect(out).not.toHaveProperty("extra");
    expect(out).not.toHaveProperty("parentRunID");
    expect(out).not.toHaveProperty("Resume");
  });

  it("in tools", () => {
    const out = parseRunAgentInput({ ...validInput(), tools: [{ ...A_TOOL, strict: true, type: "function" }] });
    expect(out.tools).toEqual([A_TOOL]);
    expect(out.tools[0]).not.toHaveProperty("strict");
  });

  it("in resume entries", () => {
    const out = parseRunAgentInput({ ...validInput(), resume: [{ ...RESUME, note: "x" }] });
    expect(out.resume).toEqual([RESUME]);
  });

  it("in context entries", () => {
    const out = parseRunAgentInput({ ...validInput(), context: [{ description: "d", value: "v", source: "x" }] });
    expect(out.context).toEqual([{ description: "d", value: "v" }]);
  });

  it("in messages", () => {
    const out = parseRunAgentInput({ ...validInput(), messages: [{ id: "1", role: "user", content: "hi", ts: 1 }] });
    expect(out.messages).toEqual([{ id: "1", role: "user", content: "hi" }]);
  });

  it("but not inside JSON values (state, forwardedProps, tool parameters)", () => {
    const state = { unknown: { keys: ["stay"] } };
    const forwardedProps = { any: "thing", nested: { x: 1 } };
    const parameters = { type: "object", "x-vendor": { keep: true } };
    const out = parseRunAgentInput({ ...validInput(), state, forwardedProps, tools: [{ ...A_TOOL, parameters }] });
    expect(out.state).toEqual(state);
    expect(out.forwardedProps).toEqual(forwardedProps);
    expect(out.tools[0]?.parameters).toEqual(parameters);
  });

  it("does not change the input", () => {
    const input = { ...validInput(), extra: 1 };
    const before = structuredClone(input);
    parseRunAgentInput(input);
    expect(input).toEqual(before);
  });
});

describe("parseRunAgentInput: threadId, runId and messages are required, the rest optional", () => {
  it.each(REQUIRED)("rejects an input without %s", (field) => {
    expectInvalid(() => parseRunAgentInput(without(validInput(), field)), {
      code: "invalid_input",
      path: [field],
      message: `invalid RunAgentInput: ${field}: ${MISSING[field]}`,
    });
  });

  it.each(REQUIRED)("rejects an input whose %s is explicitly undefined", (field) => {
    expectInvalid(() => parseRunAgentInput({ ...validInput(), [field]: undefined }), {
      code: "invalid_input",
      path: [field],
      message: `invalid RunAgentInput: ${field}: ${MISSING[field]}`,
    });
  });

  it("reports the three when given an empty object", () => {
    const err = validationError(() => parseRunAgentInput({}));
    expect(err.code).toBe("invalid_input");
    expect(err.issues.map((i) => i.path)).toEqual(REQUIRED.map((f) => [f]));
    expect(err.message).toBe(`invalid RunAgentInput: ${REQUIRED.map((f) => `${f}: ${MISSING[f]}`).join("; ")}`);
    expect(isAguiWireError(err, "invalid_input")).toBe(true);
  });

  it.each(["tools", "context"] as const)("takes an absent or undefined %s as an empty list", (field) => {
    expect(parseRunAgentInput(without(validInput(), field))[field]).toEqual([]);
    expect(parseRunAgentInput({ ...validInput(), [field]: undefined })[field]).toEqual([]);
  });

  it.each(["state", "forwardedProps", "protocolVersion", "parentRunId", "resume"] as const)("leaves an absent %s absent", (field) => {
    const out = parseRunAgentInput(without({ ...validInput(), protocolVersion: "1.0", parentRunId: "p", resume: [] }, field));
    expect(out).not.toHaveProperty(field);
  });

  it("does not write the defaults into the input", () => {
    const input = { ...BARE };
    parseRunAgentInput(input);
    expect(input).toEqual(BARE);
  });
});

describe("parseRunAgentInput: wrong field types", () => {
  it.each([
    ["threadId", 1, "expected string, found 1"],
    ["threadId", null, "expected string, found null"],
    ["threadId", {}, "expected string, found an object"],
    ["runId", true, "expected string, found true"],
    ["runId", ["r"], "expected string, found an array"],
    ["messages", {}, "expected array, found an object"],
    ["messages", "[]", 'expected array, found "[]"'],
    ["messages", null, "expected array, found null"],
    ["tools", {}, "expected array, found an object"],
    ["tools", 0, "expected array, found 0"],
    ["context", "ctx", 'expected array, found "ctx"'],
    ["context", null, "expected array, found null"],
    ["protocolVersion", 1, "expected string, found 1"],
    ["parentRunId", null, "expected string, found null"],
    ["resume", {}, "expected array, found an object"],
    ["resume", null, "expected array, found null"],
  ])("rejects %s = %j: %s", (field, value, problem) => {
    expectInvalid(() => parseRunAgentInput({ ...validInput(), [field]: value }), {
      code: "invalid_input",
      path: [field],
      message: `invalid RunAgentInput: ${field}: ${problem}`,
    });
  });

  it.each([
    ["state", NaN, "expected a finite number, found NaN"],
    ["state", () => 1, "expected a JSON value, found function"],
    ["forwardedProps", new Date(0), "expected a plain object, found an instance of Date"],
    ["forwardedProps", 1n, "expected a JSON value, found bigint"],
  ])("rejects %s = %s (not JSON): %s", (field, value, problem) => {
    expectInvalid(() => parseRunAgentInput({ ...validInput(), [field]: value }), {
      code: "invalid_input",
      path: [field],
      message: `invalid RunAgentInput: ${field}: ${problem}`,
    });
  });

  it.each([
    [null, "null"],
    [undefined, "nothing"],
    [[], "an array"],
    ["{}", '"{}"'],
    [1, "1"],
  ])("rejects the non-object input %j", (value, found) => {
    expectInvalid(() => parseRunAgentInput(value), {
      code: "invalid_input",
      path: [],
      message: `invalid RunAgentInput: expected object, found ${found}`,
    });
  });
});

describe("parseRunAgentInput: tools", () => {
  it.each([
    ["name", "expected string, found nothing"],
    ["description", "expected string, found nothing"],
  ])("rejects a tool without %s", (field, problem) => {
    const path = ["tools", 0, field];
    expectInvalid(() => parseRunAgentInput({ ...validInput(), tools: [without(A_TOOL, field)] }), {
      code: "invalid_input",
      path,
      message: `invalid RunAgentInput: ${formatPath(path)}: ${problem}`,
    });
  });

  it("accepts a tool without parameters, and adds none", () => {
    const tool = without(A_TOOL, "parameters");
    const out = parseRunAgentInput({ ...validInput(), tools: [tool] });
    expect(out.tools).toEqual([tool]);
    expect(out.tools[0]).not.toHaveProperty("parameters");
  });

  it.each([[[]], ["{}"], [3], [true], [false], [{ type: "object" }], [[{ anyOf: [] }]]])("accepts parameters %j: any JSON value but null", (parameters) => {
    const out = parseRunAgentInput({ ...validInput(), tools: [{ ...A_TOOL, parameters }] });
    expect(out.tools[0]?.parameters).toStrictEqual(parameters);
  });

  it("accepts a tool's metadata object", () => {
    const tool = { ...A_TOOL, metadata: { vendor: { strict: true }, none: null } };
    expect(parseRunAgentInput({ ...validInput(), tools: [tool] }).tools).toEqual([tool]);
  });

  it.each([
    ["name", 1, "expected string, found 1"],
    ["name", null, "expected string, found null"],
    ["description", {}, "expected string, found an object"],
    ["description", false, "expected string, found false"],
    ["parameters", null, "expected a JSON value other than null, found null"],
    ["parameters", new Map(), "expected a plain object, found an instance of Map"],
    ["parameters", NaN, "expected a finite number, found NaN"],
    ["metadata", null, "expected a JSON object, found null"],
    ["metadata", [], "expected a JSON object, found an array"],
    ["metadata", "m", 'expected a JSON object, found "m"'],
  ])("rejects a tool whose %s is %j", (field, value, problem) => {
    const path = ["tools", 1, field];
    expectInvalid(() => parseRunAgentInput({ ...validInput(), tools: [A_TOOL, { ...A_TOOL, [field]: value }] }), {
      code: "invalid_input",
      path,
      message: `invalid RunAgentInput: ${formatPath(path)}: ${problem}`,
    });
  });

  it.each([
    ["a string", "search", '"search"'],
    ["null", null, "null"],
    ["an array", [A_TOOL], "an array"],
  ])("rejects a tool that is %s", (_name, tool, found) => {
    expectInvalid(() => parseRunAgentInput({ ...validInput(), tools: [tool] }), {
      code: "invalid_input",
      path: ["tools", 0],
      message: `invalid RunAgentInput: tools[0]: expected object, found ${found}`,
    });
  });

  it("rejects non-JSON deep inside parameters, with the path", () => {
    const path = ["tools", 0, "parameters", "properties", "q", "default"];
    expectInvalid(
      () => parseRunAgentInput({ ...validInput(), tools: [{ ...A_TOOL, parameters: { properties: { q: { default: NaN } } } }] }),
      {
        code: "invalid_input",
        path,
        message: `invalid RunAgentInput: ${formatPath(path)}: expected a finite number, found NaN`,
      },
    );
  });

  it("ToolSchema accepts a tool and rejects a bad one", () => {
    expect(ToolSchema.parse(A_TOOL)).toEqual(A_TOOL);
    expect(ToolSchema.parse({ name: "n", description: "d" })).toEqual({ name: "n", description: "d" });
    expect(ToolSchema.safeParse({ name: "n", description: "d", parameters: null }).error?.issues[0]?.path).toEqual([
      "parameters",
    ]);
  });
});

describe("parseRunAgentInput: context", () => {
  it.each([
    ["description", undefined, "expected string, found nothing"],
    ["value", undefined, "expected string, found nothing"],
    ["description", 1, "expected string, found 1"],
    ["value", null, "expected string, found null"],
    ["value", { a: 1 }, "expected string, found an object"],
    ["value", ["x"], "expected string, found an array"],
  ])("rejects a context entry whose %s is %j", (field, value, problem) => {
    const entry: Record<string, unknown> = { description: "d", value: "v", [field]: value };
    if (value === undefined) delete entry[field];
    const path = ["context", 1, field];
    expectInvalid(() => parseRunAgentInput({ ...validInput(), context: [{ description: "a", value: "b" }, entry] }), {
      code: "invalid_input",
      path,
      message: `invalid RunAgentInput: ${formatPath(path)}: ${problem}`,
    });
  });

  it.each([
    ["a string", "ctx", '"ctx"'],
    ["null", null, "null"],
  ])("rejects a context entry that is %s", (_name, entry, found) => {
    expectInvalid(() => parseRunAgentInput({ ...validInput(), context: [entry] }), {
      code: "invalid_input",
      path: ["context", 0],
      message: `invalid RunAgentInput: context[0]: expected object, found ${found}`,
    });
  });

  it("ContextSchema accepts an entry and rejects a bad one", () => {
    expect(ContextSchema.parse({ description: "d", value: "v" })).toEqual({ description: "d", value: "v" });
    expect(ContextSchema.safeParse({ description: "d", value: 1 }).error?.issues[0]?.path).toEqual(["value"]);
  });
});

describe("parseRunAgentInput: messages", () => {
  it.each([
    [{ id: "1", role: "user" }, ["messages", 0, "content"], "expected string or array, found nothing"],
    [{ id: "1", role: "user", content: [{ type: "image", source: { type: "url" } }] }, ["messages", 0, "content", 0, "source", "value"], "expected string, found nothing"],
    [{ id: "1", role: "activity", activityType: "a", content: "x" }, ["messages", 0, "content"], 'expected a JSON object, found "x"'],
    [{ id: "1", role: "robot", content: "x" }, ["messages", 0, "role"], 'found "robot"'],
    [{ id: 1, role: "system", content: "x" }, ["messages", 0, "id"], "expected string, found 1"],
    [{ id: "1", role: "tool", content: "x" }, ["messages", 0, "toolCallId"], "expected string, found nothing"],
  ])("rejects the message %j at %j", (message, path, problem) => {
    expectInvalid(() => parseRunAgentInput({ ...validInput(), messages: [message] }), {
      code: "invalid_input",
      path,
      contains: `invalid RunAgentInput: ${formatPath(path)}: `,
    });
    expect(() => parseRunAgentInput({ ...validInput(), messages: [message] })).toThrow(problem);
  });

  it("reports issues in several fields at once, in field order", () => {
    const err = validationError(() =>
      parseRunAgentInput({ ...validInput(), runId: 5, tools: [{ name: "n", description: "d", parameters: null }], forwardedProps: NaN }),
    );
    expect(err.issues.map((i) => i.path)).toEqual([["runId"], ["tools", 0, "parameters"], ["forwardedProps"]]);
    expect(err.message).toBe(
      "invalid RunAgentInput: runId: expected string, found 5; " +
        "tools[0].parameters: expected a JSON value other than null, found null; " +
        "forwardedProps: expected a finite number, found NaN",
    );
  });
});

describe("parseRunAgentInput: resume", () => {
  it("ResumeEntrySchema accepts an entry with or without its optional fields", () => {
    expect(ResumeEntrySchema.parse(RESUME)).toEqual(RESUME);
    expect(ResumeEntrySchema.parse({ interruptId: "i", status: "cancelled" })).toEqual({ interruptId: "i", status: "cancelled" });
  });

  it.each([false, 0, "", [], {}])("keeps the payload %j, which is not null", (payload) => {
    expect(parseRunAgentInput({ ...validInput(), resume: [{ ...RESUME, payload }] }).resume?.[0]?.payload).toStrictEqual(payload);
  });

  it.each([
    [{ status: "resolved" }, "interruptId", "expected string, found nothing"],
    [{ interruptId: "i" }, "status", 'expected "resolved" or "cancelled", found nothing'],
    [{ interruptId: "i", status: "approved" }, "status", 'expected "resolved" or "cancelled", found "approved"'],
    [{ interruptId: "i", status: "resolved", payload: null }, "payload", "expected a JSON value other than null, found null"],
    [{ interruptId: "i", status: "resolved", metadata: [] }, "metadata", "expected a JSON object, found an array"],
  ])("rejects the resume entry %j at its %s", (entry, field, problem) => {
    const path = ["resume", 1, field];
    expectInvalid(() => parseRunAgentInput({ ...validInput(), resume: [RESUME, entry] }), {
      code: "invalid_input",
      path,
      message: `invalid RunAgentInput: ${formatPath(path)}: ${problem}`,
    });
  });
});
