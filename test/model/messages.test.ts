import { describe, expect, it } from "vitest";
import {
  AssistantMessageSchema,
  DeveloperMessageSchema,
  FunctionCallSchema,
  MessageSchema,
  RoleSchema,
  SystemMessageSchema,
  ToolCallSchema,
  ToolMessageSchema,
  ActivityMessageSchema,
  ReasoningMessageSchema,
  UserMessageSchema,
  formatPath,
  parseEvent,
  parseRunAgentInput,
  type Role,
} from "../../src/model/index.js";
import { expectInvalid, validInput } from "./helpers.js";

const ROLES = ["developer", "system", "assistant", "user", "tool", "activity", "reasoning"] as const;
const ROLE_LIST = '"developer" or "system" or "assistant" or "user" or "tool" or "activity" or "reasoning"';

/** Messages are checked through both entry points that carry them. */
const CARRIERS = [
  {
    name: "MESSAGES_SNAPSHOT",
    wrap: (messages: unknown[]) => ({ type: "MESSAGES_SNAPSHOT", messages }),
    parse: parseEvent,
    code: "invalid_event" as const,
    prefix: "invalid MESSAGES_SNAPSHOT event: ",
  },
  {
    name: "RunAgentInput",
    wrap: (messages: unknown[]) => ({ ...validInput(), messages }),
    parse: parseRunAgentInput,
    code: "invalid_input" as const,
    prefix: "invalid RunAgentInput: ",
  },
];
type Carrier = (typeof CARRIERS)[number];

function messagesOf(out: unknown): unknown[] {
  return (out as { messages: unknown[] }).messages;
}

function carrierNamed(name: string): Carrier {
  const carrier = CARRIERS.find((c) => c.name === name);
  if (!carrier) throw new Error(`no carrier ${name}`);
  return carrier;
}

const TOOL_CALL = { id: "tc1", type: "function", function: { name: "search", arguments: '{"q":"x"}' } };
/** A tool call with its optional fields too. */
const FULL_TOOL_CALL = { ...TOOL_CALL, id: "tc2", encryptedValue: "e", metadata: { k: [1] } };
/** The optional fields every message may carry. */
const OWNED = { subagentRunId: "sa1", metadata: { k: 1 } };
/** One content part of each kind. */
const PARTS = [
  { type: "text", text: "see", id: "p1", metadata: { k: 1 } },
  { type: "image", source: { type: "url", value: "https://x.test/a.png", mimeType: "image/png" }, metadata: "m" },
  { type: "audio", source: { type: "data", value: "aGk=", mimeType: "audio/wav" } },
  { type: "video", id: "v", source: { type: "url", value: "https://x.test/v.mp4" } },
  { type: "document", source: { type: "file", value: "file-1", provider: "openai", mimeType: "application/pdf" } },
];

const MINIMAL: Record<Role, Record<string, unknown>> = {
  developer: { id: "d1", role: "developer", content: "be brief" },
  system: { id: "s1", role: "system", content: "you are helpful" },
  assistant: { id: "a1", role: "assistant" },
  user: { id: "u1", role: "user", content: "hi" },
  tool: { id: "t1", role: "tool", content: "42", toolCallId: "tc1" },
  activity: { id: "a1", role: "activity", activityType: "plan", content: {} },
  reasoning: { id: "r1", role: "reasoning", content: "" },
};

const FULL: Record<Role, Record<string, unknown>> = {
  developer: { ...MINIMAL.developer, name: "dev", encryptedValue: "e", ...OWNED },
  system: { ...MINIMAL.system, name: "sys", encryptedValue: "e", ...OWNED },
  assistant: { ...MINIMAL.assistant, content: "calling", name: "bot", toolCalls: [TOOL_CALL, FULL_TOOL_CALL], encryptedValue: "e", ...OWNED },
  user: { ...MINIMAL.user, name: "ann", encryptedValue: "e", subagentRunId: "sa1", metadata: { k: 1 } },
  tool: { ...MINIMAL.tool, error: "timeout", encryptedValue: "e", subagentRunId: "sa1", metadata: { k: null } },
  activity: { ...MINIMAL.activity, content: { step: 1 }, subagentRunId: "sa1", metadata: {} },
  reasoning: { ...MINIMAL.reasoning, content: "hmm", encryptedValue: "e", subagentRunId: "sa1", metadata: { k: 1 } },
};

const VARIANT_SCHEMAS = {
  developer: DeveloperMessageSchema,
  system: SystemMessageSchema,
  assistant: AssistantMessageSchema,
  user: UserMessageSchema,
  tool: ToolMessageSchema,
  activity: ActivityMessageSchema,
  reasoning: ReasoningMessageSchema,
} as const;

const TEXT_OR_PARTS = "expected string or array";

/** Required fields besides role, per variant, with what is expected of each. */
const REQUIRED: readonly [Role, string, string][] = [
  ["developer", "id", "expected string"],
  ["developer", "content", "expected string"],
  ["system", "id", "expected string"],
  ["system", "content", "expected string"],
  ["assistant", "id", "expected string"],
  ["user", "id", "expected string"],
  ["user", "content", TEXT_OR_PARTS],
  ["tool", "id", "expected string"],
  ["tool", "content", TEXT_OR_PARTS],
  ["tool", "toolCallId", "expected string"],
  ["activity", "id", "expected string"],
  ["activity", "activityType", "expected string"],
  ["activity", "content", "expected a JSON object"],
  ["reasoning", "id", "expected string"],
  ["reasoning", "content", "expected string"],
];

/** Required string fields, per variant. */
const REQUIRED_STRINGS: readonly [Role, string][] = REQUIRED.filter(([, , expected]) => expected === "expected string").map(([r, f]) => [r, f]);

/** Optional string fields, per variant. */
const OPTIONAL: readonly [Role, string][] = [
  ["developer", "name"],
  ["system", "name"],
  ["assistant", "content"],
  ["assistant", "name"],
  ["user", "name"],
  ["tool", "error"],
  ...(["developer", "system", "assistant", "user", "tool", "reasoning"] as const).map((r) => [r, "encryptedValue"] as [Role, string]),
  ...ROLES.map((r) => [r, "subagentRunId"] as [Role, string]),
];

const NOT_STRINGS: readonly [unknown, string][] = [
  [1, "1"],
  [null, "null"],
  [false, "false"],
  [{}, "an object"],
  [[], "an array"],
];

function without(obj: Record<string, unknown>, key: string): Record<string, unknown> {
  const copy = { ...obj };
  delete copy[key];
  return copy;
}

/** Runs the same table against every carrier: each row gets the carrier's name first. */
function eachCarrier<T extends readonly unknown[]>(rows: readonly T[]): [string, ...T][] {
  return CARRIERS.flatMap((c) => rows.map((row) => [c.name, ...row] as [string, ...T]));
}

describe("RoleSchema", () => {
  it("lists the seven roles of AG-UI 1.0", () => {
    expect(RoleSchema.options).toEqual([...ROLES]);
  });

  it.each(ROLES)("accepts %s", (role) => {
    expect(RoleSchema.parse(role)).toBe(role);
  });

  it.each(["bot", "Assistant", "function", "", null, 1])("rejects %j", (role) => {
    expect(RoleSchema.safeParse(role).success).toBe(false);
  });
});

describe("messages: valid variants", () => {
  it.each(eachCarrier(ROLES.map((r) => [r] as const)))("%s accepts a minimal %s message", (name, role) => {
    const carrier = carrierNamed(name);
    const out = carrier.parse(carrier.wrap([MINIMAL[role]]));
    expect(messagesOf(out)).toEqual([MINIMAL[role]]);
  });

  it.each(eachCarrier(ROLES.map((r) => [r] as const)))("%s accepts a %s message with every field", (name, role) => {
    const carrier = carrierNamed(name);
    const out = carrier.parse(carrier.wrap([FULL[role]]));
    expect(messagesOf(out)).toEqual([FULL[role]]);
  });

  it.each(ROLES)("MessageSchema and the %s variant schema agree", (role) => {
    expect(MessageSchema.parse(FULL[role])).toEqual(FULL[role]);
    expect(VARIANT_SCHEMAS[role].parse(FULL[role])).toEqual(FULL[role]);
  });

  it.each(ROLES)("the %s variant schema rejects the other roles", (role) => {
    for (const other of ROLES.filter((r) => r !== role)) {
      const result = VARIANT_SCHEMAS[role].safeParse({ ...FULL[role], role: other });
      expect(result.success).toBe(false);
      expect(result.error?.issues.map((i) => i.path)).toContainEqual(["role"]);
    }
  });

  it("accepts a whole conversation, keeping its order", () => {
    const messages = ROLES.map((r) => FULL[r]);
    expect((parseEvent({ type: "MESSAGES_SNAPSHOT", messages }) as { messages: unknown[] }).messages).toEqual(messages);
  });

  it.each([
    ["empty content", { id: "u", role: "user", content: "" }],
    ["empty id", { id: "", role: "user", content: "x" }],
    ["assistant with tool calls only", { id: "a", role: "assistant", toolCalls: [TOOL_CALL] }],
    ["assistant with an empty toolCalls list", { id: "a", role: "assistant", toolCalls: [] }],
    ["assistant with empty content", { id: "a", role: "assistant", content: "" }],
    ["tool result that is not JSON text", { id: "t", role: "tool", content: "plain text", toolCallId: "x" }],
    ["tool call with empty arguments", { id: "a", role: "assistant", toolCalls: [{ ...TOOL_CALL, function: { name: "f", arguments: "" } }] }],
    ["user content of every kind of part", { id: "u", role: "user", content: PARTS }],
    ["user content of no parts", { id: "u", role: "user", content: [] }],
    ["tool content of parts, with an error", { id: "t", role: "tool", content: [PARTS[0], PARTS[4]], toolCallId: "x", error: "" }],
    ["activity content with nested values and nulls", { id: "a", role: "activity", activityType: "", content: { steps: [{ done: null }] } }],
    ["empty reasoning", { id: "r", role: "reasoning", content: "" }],
    ["metadata with null values", { id: "s", role: "system", content: "x", metadata: { a: null, b: [null] } }],
  ])("accepts %s", (_name, message) => {
    expect(MessageSchema.parse(message)).toEqual(message);
  });

  it.each(OPTIONAL)("a %s message without %s has no such key", (role, field) => {
    const out = MessageSchema.parse(without(FULL[role], field));
    expect(out).not.toHaveProperty(field);
  });

  it("an assistant message without toolCalls has no toolCalls key", () => {
    expect(MessageSchema.parse(MINIMAL.assistant)).not.toHaveProperty("toolCalls");
  });
});

describe("messages: unknown keys are dropped", () => {
  it.each(eachCarrier(ROLES.map((r) => [r] as const)))("%s drops unknown keys of a %s message", (name, role) => {
    const carrier = carrierNamed(name);
    const out = carrier.parse(carrier.wrap([{ ...FULL[role], extra: 1, createdAt: "now", Metadata: { a: 1 } }]));
    expect(messagesOf(out)).toEqual([FULL[role]]);
  });

  it("drops fields that belong to other variants", () => {
    expect(MessageSchema.parse({ ...MINIMAL.user, toolCalls: [TOOL_CALL], toolCallId: "x" })).toEqual(MINIMAL.user);
    expect(MessageSchema.parse({ ...MINIMAL.tool, name: "n", toolCalls: [] })).toEqual(MINIMAL.tool);
    expect(MessageSchema.parse({ ...MINIMAL.assistant, toolCallId: "x", activityType: "p" })).toEqual(MINIMAL.assistant);
    expect(MessageSchema.parse({ ...MINIMAL.activity, name: "n", encryptedValue: "e", toolCalls: [] })).toEqual(MINIMAL.activity);
    expect(MessageSchema.parse({ ...MINIMAL.reasoning, name: "n", toolCallId: "x" })).toEqual(MINIMAL.reasoning);
  });

  it.each(CARRIERS)("$name drops unknown keys of tool calls and their functions", (carrier) => {
    const message = {
      ...MINIMAL.assistant,
      toolCalls: [{ ...TOOL_CALL, index: 0, extra: true, function: { ...TOOL_CALL.function, strict: true } }],
    };
    const out = messagesOf(carrier.parse(carrier.wrap([message])));
    expect(out).toEqual([{ ...MINIMAL.assistant, toolCalls: [TOOL_CALL] }]);
    const call = (out[0] as { toolCalls: Record<string, unknown>[] }).toolCalls[0];
    expect(call).not.toHaveProperty("index");
    expect(call?.function).not.toHaveProperty("strict");
  });
});

describe("messages: invalid role", () => {
  it.each(
    eachCarrier([
      ["bot", '"bot"'],
      ["Assistant", '"Assistant"'],
      ["function", '"function"'],
      ["", '""'],
      [5, "5"],
      [null, "null"],
      [undefined, "nothing"],
    ] as const),
  )("%s rejects role %j, naming it (found %s)", (name, role, found) => {
    const carrier = carrierNamed(name);
    const err = expectInvalid(() => carrier.parse(carrier.wrap([MINIMAL.user, { id: "x", role, content: "c" }])), {
      code: carrier.code,
      path: ["messages", 1, "role"],
      message: `${carrier.prefix}messages[1].role: expected ${ROLE_LIST}, found ${found}`,
    });
    expect(err.issues[0]?.code).toBe("invalid_union");
  });

  it.each(CARRIERS)("$name rejects a message without role", (carrier) => {
    expectInvalid(() => carrier.parse(carrier.wrap([{ id: "x", content: "c" }])), {
      code: carrier.code,
      path: ["messages", 0, "role"],
      message: `${carrier.prefix}messages[0].role: expected ${ROLE_LIST}, found nothing`,
    });
  });

  it.each(
    eachCarrier([
      ["a string", "hi", '"hi"'],
      ["null", null, "null"],
      ["an array", [MINIMAL.user], "an array"],
      ["a number", 3, "3"],
    ] as const),
  )("%s rejects a message that is %s", (name, _what, message, found) => {
    const carrier = carrierNamed(name);
    expectInvalid(() => carrier.parse(carrier.wrap([message])), {
      code: carrier.code,
      path: ["messages", 0],
      message: `${carrier.prefix}messages[0]: expected object, found ${found}`,
    });
  });
});

describe("messages: missing and mistyped fields", () => {
  it.each(eachCarrier(REQUIRED))("%s rejects a %s message without %s (%s)", (name, role, field, expected) => {
    const carrier = carrierNamed(name);
    expectInvalid(() => carrier.parse(carrier.wrap([without(FULL[role], field)])), {
      code: carrier.code,
      path: ["messages", 0, field],
      message: `${carrier.prefix}messages[0].${field}: ${expected}, found nothing`,
    });
  });

  const mistyped = [...REQUIRED_STRINGS, ...OPTIONAL].flatMap(([role, field]) =>
    NOT_STRINGS.map(([value, found]) => [role, field, value, found] as const),
  );

  it.each(mistyped)("rejects %s.%s = %j (found %s)", (role, field, value, found) => {
    expectInvalid(() => parseEvent({ type: "MESSAGES_SNAPSHOT", messages: [{ ...FULL[role], [field]: value }] }), {
      code: "invalid_event",
      path: ["messages", 0, field],
      message: `invalid MESSAGES_SNAPSHOT event: messages[0].${field}: expected string, found ${found}`,
    });
  });

  it.each(CARRIERS)("$name points at the failing message's index", (carrier) => {
    const messages = [MINIMAL.system, MINIMAL.user, MINIMAL.assistant, { ...MINIMAL.tool, toolCallId: 9 }];
    expectInvalid(() => carrier.parse(carrier.wrap(messages)), {
      code: carrier.code,
      path: ["messages", 3, "toolCallId"],
      message: `${carrier.prefix}messages[3].toolCallId: expected string, found 9`,
    });
  });

  it("reports every issue of every message", () => {
    const err = expectInvalid(
      () => parseEvent({ type: "MESSAGES_SNAPSHOT", messages: [{ role: "user" }, { id: 1, role: "tool", content: "c" }] }),
      { code: "invalid_event", path: ["messages", 0, "id"], issueCount: 4 },
    );
    expect(err.issues.map((i) => i.path)).toEqual([
      ["messages", 0, "id"],
      ["messages", 0, "content"],
      ["messages", 1, "id"],
      ["messages", 1, "toolCallId"],
    ]);
    expect(err.message).toBe(
      "invalid MESSAGES_SNAPSHOT event: messages[0].id: expected string, found nothing; " +
        "messages[0].content: expected string or array, found nothing; " +
        "messages[1].id: expected string, found 1; " +
        "messages[1].toolCallId: expected string, found nothing",
    );
  });
});

describe("messages: content that is text or parts, and activity content", () => {
  const cases = (["user", "tool"] as const).flatMap((role) =>
    (
      [
        [1, "1"],
        [null, "null"],
        [false, "false"],
        [{}, "an object"],
        [{ type: "text", text: "t" }, "an object"],
      ] as const
    ).map(([value, found]) => [role, value, found] as const),
  );

  it.each(cases)("rejects %s.content = %j: expected string or array (found %s)", (role, value, found) => {
    expectInvalid(() => parseEvent({ type: "MESSAGES_SNAPSHOT", messages: [{ ...FULL[role], content: value }] }), {
      code: "invalid_event",
      path: ["messages", 0, "content"],
      message: `invalid MESSAGES_SNAPSHOT event: messages[0].content: expected string or array, found ${found}`,
    });
  });

  it.each(
    eachCarrier([
      [[PARTS[0], "x"], ["content", 1], 'expected object, found "x"'],
      [[{ type: "text" }], ["content", 0, "text"], "expected string, found nothing"],
      [[{ type: "gif", source: {} }], ["content", 0, "type"], 'expected "text" or "image" or "audio" or "video" or "document", found "gif"'],
      [[{ type: "image" }], ["content", 0, "source"], "expected object, found nothing"],
      [[{ type: "audio", source: { type: "data", value: "x" } }], ["content", 0, "source", "mimeType"], "expected string, found nothing"],
      [[{ type: "document", source: { type: "s3", value: "x" } }], ["content", 0, "source", "type"], 'expected "data" or "url" or "file", found "s3"'],
      [[{ type: "video", source: { type: "url", value: 1 } }], ["content", 0, "source", "value"], "expected string, found 1"],
      [[{ type: "text", text: "t", metadata: null }], ["content", 0, "metadata"], "expected a JSON value other than null, found null"],
    ] as const),
  )("%s rejects the user content %j, naming the part at %j", (name, content, at, problem) => {
    const carrier = carrierNamed(name);
    const path = ["messages", 1, ...at];
    expectInvalid(() => carrier.parse(carrier.wrap([MINIMAL.system, { ...MINIMAL.user, content }])), {
      code: carrier.code,
      path,
      message: `${carrier.prefix}${formatPath(path)}: ${problem}`,
    });
  });

  it("names the bad part of a tool message's content too", () => {
    expectInvalid(() => parseEvent({ type: "MESSAGES_SNAPSHOT", messages: [{ ...MINIMAL.tool, content: [PARTS[0], { type: "text", text: 2 }] }] }), {
      code: "invalid_event",
      path: ["messages", 0, "content", 1, "text"],
      message: "invalid MESSAGES_SNAPSHOT event: messages[0].content[1].text: expected string, found 2",
    });
  });

  it.each([
    ["a string", "text", '"text"'],
    ["an array", [], "an array"],
    ["null", null, "null"],
  ])("rejects activity content that is %s: a JSON object", (_name, content, found) => {
    expectInvalid(() => parseEvent({ type: "MESSAGES_SNAPSHOT", messages: [{ ...MINIMAL.activity, content }] }), {
      code: "invalid_event",
      path: ["messages", 0, "content"],
      message: `invalid MESSAGES_SNAPSHOT event: messages[0].content: expected a JSON object, found ${found}`,
    });
  });

  it.each(["developer", "system", "reasoning"] as const)("rejects %s content given as parts: only user and tool messages have parts", (role) => {
    expectInvalid(() => parseEvent({ type: "MESSAGES_SNAPSHOT", messages: [{ ...MINIMAL[role], content: [PARTS[0]] }] }), {
      code: "invalid_event",
      path: ["messages", 0, "content"],
      message: "invalid MESSAGES_SNAPSHOT event: messages[0].content: expected string, found an array",
    });
  });
});

describe("messages: metadata", () => {
  it.each(
    ROLES.flatMap((role) =>
      (
        [
          [null, "null"],
          [[], "an array"],
          ["m", '"m"'],
        ] as const
      ).map(([value, found]) => [role, value, found] as const),
    ),
  )("a %s message's metadata %j is rejected: a JSON object or absent (found %s)", (role, metadata, found) => {
    expectInvalid(() => parseEvent({ type: "MESSAGES_SNAPSHOT", messages: [{ ...MINIMAL[role], metadata }] }), {
      code: "invalid_event",
      path: ["messages", 0, "metadata"],
      message: `invalid MESSAGES_SNAPSHOT event: messages[0].metadata: expected a JSON object, found ${found}`,
    });
  });

  it("rejects non-JSON inside a message's metadata, with the path", () => {
    expectInvalid(() => parseRunAgentInput({ ...validInput(), messages: [{ ...MINIMAL.user, metadata: { at: new Date(0) } }] }), {
      code: "invalid_input",
      path: ["messages", 0, "metadata", "at"],
      message: "invalid RunAgentInput: messages[0].metadata.at: expected a plain object, found an instance of Date",
    });
  });
});

describe("assistant toolCalls, ToolCall and FunctionCall", () => {
  const assistantWith = (toolCalls: unknown) => ({ type: "MESSAGES_SNAPSHOT", messages: [{ ...MINIMAL.assistant, toolCalls }] });

  it("ToolCallSchema and FunctionCallSchema accept valid values", () => {
    expect(ToolCallSchema.parse(TOOL_CALL)).toEqual(TOOL_CALL);
    expect(ToolCallSchema.parse(FULL_TOOL_CALL)).toEqual(FULL_TOOL_CALL);
    expect(FunctionCallSchema.parse(TOOL_CALL.function)).toEqual(TOOL_CALL.function);
  });

  it.each([
    [{}, "an object"],
    ["[]", '"[]"'],
    [null, "null"],
    [TOOL_CALL, "an object"],
  ])("rejects toolCalls = %j (not an array)", (toolCalls, found) => {
    expectInvalid(() => parseEvent(assistantWith(toolCalls)), {
      code: "invalid_event",
      path: ["messages", 0, "toolCalls"],
      message: `invalid MESSAGES_SNAPSHOT event: messages[0].toolCalls: expected array, found ${found}`,
    });
  });

  it.each([
    ["a string", "tc1", '"tc1"'],
    ["null", null, "null"],
    ["an array", [TOOL_CALL], "an array"],
  ])("rejects a tool call that is %s", (_name, call, found) => {
    expectInvalid(() => parseEvent(assistantWith([TOOL_CALL, call])), {
      code: "invalid_event",
      path: ["messages", 0, "toolCalls", 1],
      message: `invalid MESSAGES_SNAPSHOT event: messages[0].toolCalls[1]: expected object, found ${found}`,
    });
  });

  it.each([
    ["id", "expected string, found nothing"],
    ["type", 'expected "function", found nothing'],
    ["function", "expected object, found nothing"],
  ])("rejects a tool call without %s", (field, problem) => {
    const path = ["messages", 0, "toolCalls", 0, field];
    expectInvalid(() => parseEvent(assistantWith([without(TOOL_CALL, field)])), {
      code: "invalid_event",
      path,
      message: `invalid MESSAGES_SNAPSHOT event: ${formatPath(path)}: ${problem}`,
    });
  });

  it.each([
    ["id", 1, "expected string, found 1"],
    ["id", null, "expected string, found null"],
    ["type", "tool", 'expected "function", found "tool"'],
    ["type", "Function", 'expected "function", found "Function"'],
    ["type", "", 'expected "function", found ""'],
    ["type", 1, 'expected "function", found 1'],
    ["function", "search", 'expected object, found "search"'],
    ["function", null, "expected object, found null"],
    ["function", [], "expected object, found an array"],
    ["encryptedValue", 1, "expected string, found 1"],
    ["metadata", null, "expected a JSON object, found null"],
    ["metadata", [], "expected a JSON object, found an array"],
  ])("rejects a tool call whose %s is %j", (field, value, problem) => {
    const path = ["messages", 0, "toolCalls", 0, field];
    expectInvalid(() => parseEvent(assistantWith([{ ...TOOL_CALL, [field]: value }])), {
      code: "invalid_event",
      path,
      message: `invalid MESSAGES_SNAPSHOT event: ${formatPath(path)}: ${problem}`,
    });
  });

  it.each([
    ["name", undefined, "expected string, found nothing"],
    ["name", 1, "expected string, found 1"],
    ["arguments", undefined, "expected string, found nothing"],
    ["arguments", { q: "x" }, "expected string, found an object"],
    ["arguments", ["x"], "expected string, found an array"],
    ["arguments", null, "expected string, found null"],
    ["arguments", 0, "expected string, found 0"],
  ])("rejects a function whose %s is %j", (field, value, problem) => {
    const path = ["messages", 0, "toolCalls", 0, "function", field];
    const fn: Record<string, unknown> = { ...TOOL_CALL.function, [field]: value };
    if (value === undefined) delete fn[field];
    expectInvalid(() => parseEvent(assistantWith([{ ...TOOL_CALL, function: fn }])), {
      code: "invalid_event",
      path,
      message: `invalid MESSAGES_SNAPSHOT event: ${formatPath(path)}: ${problem}`,
    });
  });

  it("rejects a bad tool call inside RunAgentInput with invalid_input", () => {
    const path = ["messages", 1, "toolCalls", 0, "function", "arguments"];
    expectInvalid(
      () =>
        parseRunAgentInput({
          ...validInput(),
          messages: [MINIMAL.user, { ...MINIMAL.assistant, toolCalls: [{ ...TOOL_CALL, function: { name: "f", arguments: {} } }] }],
        }),
      {
        code: "invalid_input",
        path,
        message: `invalid RunAgentInput: ${formatPath(path)}: expected string, found an object`,
      },
    );
  });

  it.each([
    [{ id: "t" }, [["type"], ["function"]]],
    [{ type: "function", function: {} }, [["id"], ["function", "name"], ["function", "arguments"]]],
  ])("ToolCallSchema reports every problem of %j", (call, paths) => {
    expect(ToolCallSchema.safeParse(call).error?.issues.map((i) => i.path)).toEqual(paths);
  });
});
