import { describe, expect, it } from "vitest";
import { isAguiWireError } from "../../src/errors.js";
import {
  ContextSchema,
  RunAgentInputSchema,
  ToolSchema,
  formatPath,
  parseRunAgentInput,
} from "../../src/model/index.js";
import { expectInvalid, richJson, validInput, validationError } from "./helpers.js";

const FIELDS = ["threadId", "runId", "state", "messages", "tools", "context", "forwardedProps"] as const;
type Field = (typeof FIELDS)[number];

/** What parseRunAgentInput says when each field is missing. */
const MISSING: Record<Field, string> = {
  threadId: "expected string, found nothing",
  runId: "expected string, found nothing",
  state: "expected a JSON value, found nothing",
  messages: "expected array, found nothing",
  tools: "expected array, found nothing",
  context: "expected array, found nothing",
  forwardedProps: "expected a JSON value, found nothing",
};

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

  it("accepts empty lists and null JSON fields", () => {
    const value = { threadId: "", runId: "", state: null, messages: [], tools: [], context: [], forwardedProps: null };
    const out = parseRunAgentInput(value);
    expect(out).toEqual(value);
    expect(out.state).toBeNull();
    expect(out.forwardedProps).toBeNull();
  });

  it.each([null, true, 0, -2.5, "s", [], {}, [1, { a: null }], richJson()])(
    "accepts state and forwardedProps %j",
    (v) => {
      const out = parseRunAgentInput({ ...validInput(), state: v, forwardedProps: v });
      expect(out.state).toStrictEqual(v);
      expect(out.forwardedProps).toStrictEqual(v);
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
    const out = parseRunAgentInput({ ...validInput(), extra: 1, parentRunId: "p", resume: { a: 1 } });
    expect(out).toEqual(validInput());
    expect(out).not.toHaveProperty("extra");
    expect(out).not.toHaveProperty("parentRunId");
  });

  it("in tools", () => {
    const out = parseRunAgentInput({ ...validInput(), tools: [{ ...A_TOOL, strict: true, type: "function" }] });
    expect(out.tools).toEqual([A_TOOL]);
    expect(out.tools[0]).not.toHaveProperty("strict");
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

describe("parseRunAgentInput: all seven fields are required", () => {
  it.each(FIELDS)("rejects an input without %s", (field) => {
    expectInvalid(() => parseRunAgentInput(without(validInput(), field)), {
      code: "invalid_input",
      path: [field],
      message: `invalid RunAgentInput: ${field}: ${MISSING[field]}`,
    });
  });

  it.each(FIELDS)("rejects an input whose %s is explicitly undefined", (field) => {
    expectInvalid(() => parseRunAgentInput({ ...validInput(), [field]: undefined }), {
      code: "invalid_input",
      path: [field],
      message: `invalid RunAgentInput: ${field}: ${MISSING[field]}`,
    });
  });

  it("reports all seven when given an empty object", () => {
    const err = validationError(() => parseRunAgentInput({}));
    expect(err.code).toBe("invalid_input");
    expect(err.issues.map((i) => i.path)).toEqual(FIELDS.map((f) => [f]));
    expect(err.message).toBe(`invalid RunAgentInput: ${FIELDS.map((f) => `${f}: ${MISSING[f]}`).join("; ")}`);
    expect(isAguiWireError(err, "invalid_input")).toBe(true);
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
    ["parameters", "expected a JSON object, found nothing"],
  ])("rejects a tool without %s", (field, problem) => {
    const path = ["tools", 0, field];
    expectInvalid(() => parseRunAgentInput({ ...validInput(), tools: [without(A_TOOL, field)] }), {
      code: "invalid_input",
      path,
      message: `invalid RunAgentInput: ${formatPath(path)}: ${problem}`,
    });
  });

  it.each([
    ["name", 1, "expected string, found 1"],
    ["name", null, "expected string, found null"],
    ["description", {}, "expected string, found an object"],
    ["description", false, "expected string, found false"],
    ["parameters", [], "expected a JSON object, found an array"],
    ["parameters", null, "expected a JSON object, found null"],
    ["parameters", "{}", "expected a JSON object, found \"{}\""],
    ["parameters", 3, "expected a JSON object, found 3"],
    ["parameters", true, "expected a JSON object, found boolean"],
    ["parameters", new Map(), "expected a plain object, found an instance of Map"],
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
    expect(ToolSchema.safeParse({ name: "n", description: "d", parameters: [] }).error?.issues[0]?.path).toEqual([
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
    [{ id: "1", role: "user" }, ["messages", 0, "content"], "expected string, found nothing"],
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
      parseRunAgentInput({ ...validInput(), runId: 5, tools: [{ name: "n", description: "d", parameters: [] }], forwardedProps: undefined }),
    );
    expect(err.issues.map((i) => i.path)).toEqual([["runId"], ["tools", 0, "parameters"], ["forwardedProps"]]);
    expect(err.message).toBe(
      "invalid RunAgentInput: runId: expected string, found 5; " +
        "tools[0].parameters: expected a JSON object, found an array; " +
        "forwardedProps: expected a JSON value, found nothing",
    );
  });
});
