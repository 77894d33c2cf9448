/**
 * The AG-UI 1.0 interop corpus: for each of the 31 event types, one event with every optional
 * field of `@ag-ui/core/schemas` 1.0 set and one with only the required fields, then variants
 * (every message role with every field, every content part and source type, every outcome kind,
 * every text role, patch op and encrypted-value subtype) and edge cases (empty strings where
 * allowed, astral and combining Unicode, `null` inside JSON values, empty objects and arrays,
 * extreme integers).
 *
 * Every entry is accepted by `@ag-ui/core/schemas`' `EventSchema` and by our `parseEvent`, and is
 * written in the model's canonical form: its keys in the order `parseEvent` returns them (so that
 * our SSE text and `@ag-ui/encoder`'s are byte-comparable for the same object) and no default left
 * for the model to fill in, except where `fillsDefaults` says so. test/interop/round-trip-1.0.test.ts
 * checks all of that, then runs every entry through both transports in both directions.
 *
 * Left out on purpose, because they are covered elsewhere and differ for reasons outside the 1.0
 * model: strings that start with U+FEFF (the other side's protobuf decoder strips it), `__proto__`
 * keys in JSON objects (the other side's Struct code loses them), lone surrogates (UTF-8 cannot
 * carry them) and -0 (JSON cannot). See test/binary/interop.test.ts.
 *
 * Not a test file itself.
 */
import type { AguiEventInput, ContentPart, JsonValue } from "../../src/index.js";

type Init<T extends AguiEventInput["type"]> = Extract<AguiEventInput, { type: T }>;
type MessageInit = Init<"MESSAGES_SNAPSHOT">["messages"][number];
type PartInit = ContentPart;
type InputInit = NonNullable<Init<"RUN_STARTED">["input"]>;

/** One named corpus event. */
export interface InteropEntry {
  name: string;
  event: AguiEventInput;
  /**
   * Set when `parseEvent(event)` adds 1.0's defaults (RUN_STARTED input's `tools` and `context`),
   * so the validated event, not the object as written, is what every transport carries.
   */
  fillsDefaults?: true;
}

// --- Shared values -----------------------------------------------------------------------------

/** Astral-plane characters (surrogate pairs in UTF-16, four bytes in UTF-8) and a ZWJ sequence. */
const ASTRAL = "𝄞 𐍈 🀄 😀 👩‍👩‍👧 🇫🇷";
/** Combining marks: decomposed accents (NFD) and a stack of marks on one base. */
const COMBINING = "e\u0301 a\u0308 n\u0303 Z\u0324\u0354\u0367\u0311\u0313";
/** Every kind of text at once: ASCII, Latin accents, CJK, RTL, astral, combining, controls. */
const MIXED = `Grüße 日本語 مرحبا ${ASTRAL} ${COMBINING} tab\there\nline\r\n\u2028\u2029 nul\u0000 "quoted" \\ end`;

const TS = 1732200000000;

/** A metadata object: open by key, any JSON value under a key, `null` included. */
const META: { [key: string]: JsonValue } = {
  "ag-ui": { trace: "t-1" },
  source: "corpus",
  nothing: null,
  count: 3,
  ratio: 0.25,
  flag: false,
  list: [1, "two", null, { three: 3 }, []],
  nested: { empty: {}, emptyList: [], deep: { deeper: { deepest: [null] } } },
  [`ключ ${ASTRAL}`]: COMBINING,
};

/** A provider's raw event: any JSON value but null (here an object holding nulls). */
const RAW_EVENT: JsonValue = { provider: "openai", id: "chatcmpl-1", choices: [{ index: 0, delta: { content: null }, finish_reason: null }] };

/** The base fields every event may carry, all set. */
const BASE = { timestamp: TS, rawEvent: RAW_EVENT, metadata: META } as const;

/** A JSON Schema, as a tool's parameters or an interrupt's response schema. */
const SCHEMA: { [key: string]: JsonValue } = {
  type: "object",
  properties: { city: { type: "string", description: `Stadt ${ASTRAL}` }, days: { type: "integer", minimum: 1 } },
  required: ["city"],
  additionalProperties: false,
  examples: [null, {}],
};

/** A state document exercising every JSON kind. */
const STATE: JsonValue = {
  title: MIXED,
  count: 42,
  negative: -17,
  float: 3.141592653589793,
  tiny: 5e-324,
  huge: 1.7976931348623157e308,
  safe: Number.MAX_SAFE_INTEGER,
  unsafe: 2 ** 53 + 2,
  yes: true,
  no: false,
  nothing: null,
  emptyObject: {},
  emptyArray: [],
  emptyString: "",
  "": "the empty key",
  "123": "an integer-like key, which JavaScript orders first",
  list: [null, 0, "", [], {}, [[null]], { a: [{ b: null }] }],
};

// --- Messages: every role with every field, and each with only its required ones ------------

const FULL_TOOL_CALL = {
  id: "call-full",
  type: "function",
  function: { name: "get_weather", arguments: `{"city":"Zürich ${ASTRAL}"}` },
  encryptedValue: "enc-call-AAAA",
  metadata: META,
} as const;
const BARE_TOOL_CALL = { id: "", type: "function", function: { name: "", arguments: "" } } as const;

/** Every content part type with every field, each media type on its own source type. */
const FULL_PARTS: PartInit[] = [
  { type: "text", id: "part-text", text: MIXED, metadata: { lang: "mixed", none: null } },
  { type: "image", id: "part-image", source: { type: "data", value: "iVBORw0KGgo=", mimeType: "image/png" }, metadata: "any JSON but null" },
  { type: "audio", id: "part-audio", source: { type: "url", value: "https://example.com/a.mp3", mimeType: "audio/mpeg" }, metadata: [1, null] },
  {
    type: "video",
    id: "part-video",
    source: { type: "file", value: "file-abc123", provider: "openai", mimeType: "video/mp4" },
    metadata: { seconds: 12.5 },
  },
  { type: "document", id: "part-document", source: { type: "data", value: "JVBERi0xLjQ=", mimeType: "application/pdf" }, metadata: 7 },
];

/** Every content part type and source type with only the required fields. */
const BARE_PARTS: PartInit[] = [
  { type: "text", text: "" },
  { type: "image", source: { type: "url", value: "https://example.com/i.png" } },
  { type: "audio", source: { type: "file", value: "file-1" } },
  { type: "video", source: { type: "data", value: "", mimeType: "" } },
  { type: "document", source: { type: "url", value: "" } },
  { type: "image", source: { type: "file", value: "gs://bucket/x", provider: "google" } },
  { type: "document", source: { type: "file", value: "file-2", mimeType: "text/plain" } },
];

const FULL_MESSAGES: MessageInit[] = [
  { id: "dev-full", role: "developer", content: MIXED, name: "ops", encryptedValue: "enc-dev", subagentRunId: "sub-1", metadata: META },
  { id: "sys-full", role: "system", content: "You are helpful.", name: "boot", encryptedValue: "enc-sys", subagentRunId: "sub-1", metadata: META },
  {
    id: "asst-full",
    role: "assistant",
    content: "Calling two tools.",
    name: "planner",
    toolCalls: [FULL_TOOL_CALL, BARE_TOOL_CALL],
    encryptedValue: "enc-asst",
    subagentRunId: "sub-1",
    metadata: META,
  },
  { id: "user-full", role: "user", content: FULL_PARTS, name: "alice", encryptedValue: "enc-user", subagentRunId: "sub-1", metadata: META },
  { id: "user-text", role: "user", content: MIXED, name: "bob", encryptedValue: "enc-user-2", subagentRunId: "sub-2", metadata: {} },
  {
    id: "tool-full",
    role: "tool",
    content: BARE_PARTS,
    toolCallId: "call-full",
    error: "partly failed",
    encryptedValue: "enc-tool",
    subagentRunId: "sub-1",
    metadata: META,
  },
  { id: "tool-text", role: "tool", content: '{"temp":21.5}', toolCallId: "call-full", error: "", encryptedValue: "", subagentRunId: "", metadata: {} },
  {
    id: "activity-full",
    role: "activity",
    activityType: "progress",
    content: { step: 2, of: 5, label: COMBINING, detail: null, items: [] },
    subagentRunId: "sub-1",
    metadata: META,
  },
  { id: "reasoning-full", role: "reasoning", content: "Let me think…", encryptedValue: "enc-reasoning", subagentRunId: "sub-1", metadata: META },
];

const BARE_MESSAGES: MessageInit[] = [
  { id: "dev", role: "developer", content: "" },
  { id: "sys", role: "system", content: "" },
  { id: "asst", role: "assistant" },
  { id: "user", role: "user", content: "" },
  { id: "tool", role: "tool", content: "", toolCallId: "" },
  { id: "activity", role: "activity", activityType: "", content: {} },
  { id: "reasoning", role: "reasoning", content: "" },
];

/** A RunAgentInput with every field of 1.0 set. */
const FULL_INPUT: InputInit = {
  threadId: "thread-1",
  runId: "run-2",
  protocolVersion: "1.0",
  parentRunId: "run-1",
  state: STATE,
  messages: FULL_MESSAGES,
  tools: [
    { name: "get_weather", description: `Weather ${ASTRAL}`, parameters: SCHEMA, metadata: META },
    { name: "noop", description: "" },
    { name: "list_params", description: "parameters may be any JSON but null", parameters: [1, "x", null] },
  ],
  context: [
    { description: "user locale", value: "de-CH" },
    { description: "", value: "" },
  ],
  forwardedProps: { model: "gpt", temperature: 0.2, extra: null, nested: { list: [] } },
  resume: [
    { interruptId: "int-1", status: "resolved", payload: { approved: true, note: null }, metadata: META },
    { interruptId: "int-2", status: "cancelled" },
    { interruptId: "int-3", status: "resolved", payload: "just a string" },
  ],
};

/** Something a run waits for, with every field set. */
const FULL_INTERRUPT = {
  id: "int-1",
  reason: "approval",
  message: `Approve the transfer? ${ASTRAL}`,
  toolCallId: "call-full",
  responseSchema: SCHEMA,
  expiresAt: "2026-12-31T23:59:59Z",
  metadata: META,
  subagentRunId: "sub-1",
} as const;

/** Token usage with every field set, at the extremes 1.0 allows. */
const FULL_USAGE = {
  provider: "openai",
  model: "gpt-4.1",
  inputTokens: 1200,
  outputTokens: 340,
  totalTokens: 1540,
  reasoningTokens: 0,
  cachedInputTokens: 1000,
  cacheWriteInputTokens: Number.MAX_SAFE_INTEGER,
} as const;

// --- The corpus ---------------------------------------------------------------------------------

export const CORPUS_1_0: readonly InteropEntry[] = [
  // TEXT_MESSAGE_START: every role, and none.
  { name: "TEXT_MESSAGE_START full", event: { type: "TEXT_MESSAGE_START", messageId: "msg-1", role: "assistant", name: "planner", subagentRunId: "sub-1", ...BASE } },
  { name: "TEXT_MESSAGE_START minimal", event: { type: "TEXT_MESSAGE_START", messageId: "msg-1" } },
  { name: "TEXT_MESSAGE_START role developer", event: { type: "TEXT_MESSAGE_START", messageId: "m", role: "developer" } },
  { name: "TEXT_MESSAGE_START role system", event: { type: "TEXT_MESSAGE_START", messageId: "m", role: "system", name: "" } },
  { name: "TEXT_MESSAGE_START role user", event: { type: "TEXT_MESSAGE_START", messageId: "m", role: "user", name: "alice" } },
  { name: "TEXT_MESSAGE_START empty strings", event: { type: "TEXT_MESSAGE_START", messageId: "", name: "", subagentRunId: "" } },

  // TEXT_MESSAGE_CONTENT: the delta is never empty (our rule), but may be a single space.
  { name: "TEXT_MESSAGE_CONTENT full", event: { type: "TEXT_MESSAGE_CONTENT", messageId: "msg-1", delta: MIXED, subagentRunId: "sub-1", ...BASE } },
  { name: "TEXT_MESSAGE_CONTENT minimal", event: { type: "TEXT_MESSAGE_CONTENT", messageId: "msg-1", delta: "x" } },
  { name: "TEXT_MESSAGE_CONTENT astral", event: { type: "TEXT_MESSAGE_CONTENT", messageId: ASTRAL, delta: ASTRAL } },
  { name: "TEXT_MESSAGE_CONTENT combining", event: { type: "TEXT_MESSAGE_CONTENT", messageId: COMBINING, delta: COMBINING } },
  { name: "TEXT_MESSAGE_CONTENT empty id, space delta", event: { type: "TEXT_MESSAGE_CONTENT", messageId: "", delta: " " } },

  // TEXT_MESSAGE_END
  { name: "TEXT_MESSAGE_END full", event: { type: "TEXT_MESSAGE_END", messageId: "msg-1", subagentRunId: "sub-1", ...BASE } },
  { name: "TEXT_MESSAGE_END minimal", event: { type: "TEXT_MESSAGE_END", messageId: "" } },

  // TOOL_CALL_START
  {
    name: "TOOL_CALL_START full",
    event: { type: "TOOL_CALL_START", toolCallId: "call-1", toolCallName: "get_weather", parentMessageId: "msg-1", subagentRunId: "sub-1", ...BASE },
  },
  { name: "TOOL_CALL_START minimal", event: { type: "TOOL_CALL_START", toolCallId: "call-1", toolCallName: "get_weather" } },
  { name: "TOOL_CALL_START empty strings", event: { type: "TOOL_CALL_START", toolCallId: "", toolCallName: "", parentMessageId: "" } },

  // TOOL_CALL_ARGS: an empty delta is allowed here.
  { name: "TOOL_CALL_ARGS full", event: { type: "TOOL_CALL_ARGS", toolCallId: "call-1", delta: `{"city":"${COMBINING}`, subagentRunId: "sub-1", ...BASE } },
  { name: "TOOL_CALL_ARGS minimal", event: { type: "TOOL_CALL_ARGS", toolCallId: "call-1", delta: "" } },

  // TOOL_CALL_END
  { name: "TOOL_CALL_END full", event: { type: "TOOL_CALL_END", toolCallId: "call-1", subagentRunId: "sub-1", ...BASE } },
  { name: "TOOL_CALL_END minimal", event: { type: "TOOL_CALL_END", toolCallId: "call-1" } },

  // STATE_SNAPSHOT: any JSON value, null included.
  { name: "STATE_SNAPSHOT full", event: { type: "STATE_SNAPSHOT", snapshot: STATE, subagentRunId: "sub-1", ...BASE } },
  { name: "STATE_SNAPSHOT minimal", event: { type: "STATE_SNAPSHOT", snapshot: {} } },
  { name: "STATE_SNAPSHOT null", event: { type: "STATE_SNAPSHOT", snapshot: null } },
  { name: "STATE_SNAPSHOT empty array", event: { type: "STATE_SNAPSHOT", snapshot: [] } },
  { name: "STATE_SNAPSHOT string", event: { type: "STATE_SNAPSHOT", snapshot: ASTRAL } },
  { name: "STATE_SNAPSHOT number", event: { type: "STATE_SNAPSHOT", snapshot: -0.5 } },
  { name: "STATE_SNAPSHOT boolean", event: { type: "STATE_SNAPSHOT", snapshot: false } },

  // STATE_DELTA: every op, values of every kind.
  {
    name: "STATE_DELTA full",
    event: {
      type: "STATE_DELTA",
      delta: [
        { op: "add", path: "/a", value: null },
        { op: "remove", path: "/b/0" },
        { op: "replace", path: "", value: { whole: ["document"] } },
        { op: "move", from: "/c~1d", path: "/e~0f" },
        { op: "copy", from: "/g", path: "/h/-" },
        { op: "test", path: `/${ASTRAL}`, value: [] },
        { op: "add", path: "/empty", value: {} },
        { op: "replace", path: "/s", value: "" },
      ],
      subagentRunId: "sub-1",
      ...BASE,
    },
  },
  { name: "STATE_DELTA minimal", event: { type: "STATE_DELTA", delta: [{ op: "remove", path: "" }] } },
  { name: "STATE_DELTA empty patch", event: { type: "STATE_DELTA", delta: [] } },

  // MESSAGES_SNAPSHOT: every role with every field, and with only the required ones.
  { name: "MESSAGES_SNAPSHOT full", event: { type: "MESSAGES_SNAPSHOT", messages: FULL_MESSAGES, ...BASE } },
  { name: "MESSAGES_SNAPSHOT minimal", event: { type: "MESSAGES_SNAPSHOT", messages: [] } },
  { name: "MESSAGES_SNAPSHOT every role bare", event: { type: "MESSAGES_SNAPSHOT", messages: BARE_MESSAGES } },
  { name: "MESSAGES_SNAPSHOT user content []", event: { type: "MESSAGES_SNAPSHOT", messages: [{ id: "u", role: "user", content: [] }, { id: "t", role: "tool", content: [], toolCallId: "c" }] } },

  // RAW: any JSON value as the event.
  { name: "RAW full", event: { type: "RAW", event: RAW_EVENT, source: "openai", subagentRunId: "sub-1", ...BASE } },
  { name: "RAW minimal", event: { type: "RAW", event: null } },
  { name: "RAW empty source", event: { type: "RAW", event: [], source: "" } },

  // CUSTOM: value is required (1.0), any JSON value, null included.
  { name: "CUSTOM full", event: { type: "CUSTOM", name: "PredictState", value: { state_key: "doc", tool: "write", nothing: null }, subagentRunId: "sub-1", ...BASE } },
  { name: "CUSTOM minimal", event: { type: "CUSTOM", name: "", value: null } },
  { name: "CUSTOM string value", event: { type: "CUSTOM", name: COMBINING, value: MIXED } },

  // RUN_STARTED: a full input echoed back.
  { name: "RUN_STARTED full", event: { type: "RUN_STARTED", threadId: "thread-1", runId: "run-2", protocolVersion: "1.0", parentRunId: "run-1", input: FULL_INPUT, ...BASE } },
  { name: "RUN_STARTED minimal", event: { type: "RUN_STARTED", threadId: "thread-1", runId: "run-1" } },
  {
    name: "RUN_STARTED input with only required fields",
    event: { type: "RUN_STARTED", threadId: "t", runId: "r", input: { threadId: "t", runId: "r", messages: BARE_MESSAGES } },
    fillsDefaults: true,
  },
  {
    name: "RUN_STARTED input with empty lists",
    event: { type: "RUN_STARTED", threadId: "", runId: "", input: { threadId: "", runId: "", messages: [], tools: [], context: [] } },
  },
  {
    name: "RUN_STARTED input with scalar state and props",
    event: {
      type: "RUN_STARTED",
      threadId: "t",
      runId: "r",
      input: { threadId: "t", runId: "r", state: "a string state", messages: [], tools: [], context: [], forwardedProps: 0 },
    },
  },

  // RUN_FINISHED: each outcome kind.
  {
    name: "RUN_FINISHED full (interrupt outcome)",
    event: {
      type: "RUN_FINISHED",
      threadId: "thread-1",
      runId: "run-1",
      result: { answer: MIXED, none: null },
      outcome: { type: "interrupt", interrupts: [FULL_INTERRUPT, { id: "int-2", reason: "" }] },
      usage: [FULL_USAGE, {}],
      ...BASE,
    },
  },
  {
    name: "RUN_FINISHED success outcome with pending tool calls",
    event: {
      type: "RUN_FINISHED",
      threadId: "t",
      runId: "r",
      result: "done",
      outcome: { type: "success", pendingToolCallIds: ["call-1", ""] },
      usage: [{ provider: "anthropic", inputTokens: 0, outputTokens: 0 }],
    },
  },
  { name: "RUN_FINISHED success outcome bare", event: { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "success" } } },
  { name: "RUN_FINISHED cancelled outcome", event: { type: "RUN_FINISHED", threadId: "t", runId: "r", result: [], outcome: { type: "cancelled" } } },
  { name: "RUN_FINISHED minimal", event: { type: "RUN_FINISHED", threadId: "t", runId: "r" } },
  { name: "RUN_FINISHED result false", event: { type: "RUN_FINISHED", threadId: "", runId: "", result: false } },

  // RUN_ERROR
  { name: "RUN_ERROR full", event: { type: "RUN_ERROR", message: MIXED, code: "rate_limited", usage: [FULL_USAGE], ...BASE } },
  { name: "RUN_ERROR minimal", event: { type: "RUN_ERROR", message: "" } },

  // STEP_STARTED / STEP_FINISHED
  { name: "STEP_STARTED full", event: { type: "STEP_STARTED", stepName: "plan", subagentRunId: "sub-1", ...BASE } },
  { name: "STEP_STARTED minimal", event: { type: "STEP_STARTED", stepName: "" } },
  { name: "STEP_FINISHED full", event: { type: "STEP_FINISHED", stepName: COMBINING, subagentRunId: "sub-1", ...BASE } },
  { name: "STEP_FINISHED minimal", event: { type: "STEP_FINISHED", stepName: "plan" } },

  // SUBAGENT_STARTED / SUBAGENT_FINISHED / SUBAGENT_ERROR
  {
    name: "SUBAGENT_STARTED full",
    event: {
      type: "SUBAGENT_STARTED",
      subagentRunId: "sub-2",
      name: "researcher",
      description: `Finds things ${ASTRAL}`,
      parentSubagentRunId: "sub-1",
      parentToolCallId: "call-1",
      parentMessageId: "msg-1",
      ...BASE,
    },
  },
  { name: "SUBAGENT_STARTED minimal", event: { type: "SUBAGENT_STARTED", subagentRunId: "sub-1", name: "" } },
  {
    name: "SUBAGENT_FINISHED full (suspended outcome)",
    event: { type: "SUBAGENT_FINISHED", subagentRunId: "sub-1", result: { partial: [null] }, outcome: { type: "suspended", interruptIds: ["int-1", "int-2"] }, ...BASE },
  },
  { name: "SUBAGENT_FINISHED success outcome", event: { type: "SUBAGENT_FINISHED", subagentRunId: "sub-1", result: 0, outcome: { type: "success" } } },
  { name: "SUBAGENT_FINISHED suspended outcome bare", event: { type: "SUBAGENT_FINISHED", subagentRunId: "sub-1", outcome: { type: "suspended" } } },
  { name: "SUBAGENT_FINISHED minimal", event: { type: "SUBAGENT_FINISHED", subagentRunId: "" } },
  { name: "SUBAGENT_ERROR full", event: { type: "SUBAGENT_ERROR", subagentRunId: "sub-1", message: MIXED, code: "tool_failed", ...BASE } },
  { name: "SUBAGENT_ERROR minimal", event: { type: "SUBAGENT_ERROR", subagentRunId: "sub-1", message: "" } },

  // TEXT_MESSAGE_CHUNK: every field optional, an empty delta allowed.
  {
    name: "TEXT_MESSAGE_CHUNK full",
    event: { type: "TEXT_MESSAGE_CHUNK", messageId: "msg-1", role: "user", delta: MIXED, name: "alice", subagentRunId: "sub-1", ...BASE },
  },
  { name: "TEXT_MESSAGE_CHUNK minimal", event: { type: "TEXT_MESSAGE_CHUNK" } },
  { name: "TEXT_MESSAGE_CHUNK empty strings", event: { type: "TEXT_MESSAGE_CHUNK", messageId: "", role: "assistant", delta: "", name: "" } },

  // TOOL_CALL_CHUNK
  {
    name: "TOOL_CALL_CHUNK full",
    event: { type: "TOOL_CALL_CHUNK", toolCallId: "call-1", toolCallName: "get_weather", parentMessageId: "msg-1", delta: '{"a":', subagentRunId: "sub-1", ...BASE },
  },
  { name: "TOOL_CALL_CHUNK minimal", event: { type: "TOOL_CALL_CHUNK" } },
  { name: "TOOL_CALL_CHUNK empty strings", event: { type: "TOOL_CALL_CHUNK", toolCallId: "", toolCallName: "", parentMessageId: "", delta: "" } },

  // TOOL_CALL_RESULT: text or parts (every part type), maybe none, maybe empty text.
  {
    name: "TOOL_CALL_RESULT full (every part type)",
    event: { type: "TOOL_CALL_RESULT", messageId: "msg-2", toolCallId: "call-1", content: FULL_PARTS, role: "tool", subagentRunId: "sub-1", ...BASE },
  },
  { name: "TOOL_CALL_RESULT minimal", event: { type: "TOOL_CALL_RESULT", messageId: "msg-2", toolCallId: "call-1", content: '{"temp":21.5}' } },
  { name: "TOOL_CALL_RESULT bare parts", event: { type: "TOOL_CALL_RESULT", messageId: "m", toolCallId: "c", content: BARE_PARTS, role: "tool" } },
  { name: "TOOL_CALL_RESULT content []", event: { type: "TOOL_CALL_RESULT", messageId: "m", toolCallId: "c", content: [] } },
  { name: "TOOL_CALL_RESULT content empty string", event: { type: "TOOL_CALL_RESULT", messageId: "", toolCallId: "", content: "" } },

  // ACTIVITY_SNAPSHOT / ACTIVITY_DELTA
  {
    name: "ACTIVITY_SNAPSHOT full",
    event: {
      type: "ACTIVITY_SNAPSHOT",
      messageId: "act-1",
      activityType: "progress",
      content: { step: 1, label: ASTRAL, nothing: null, list: [] },
      replace: false,
      subagentRunId: "sub-1",
      ...BASE,
    },
  },
  { name: "ACTIVITY_SNAPSHOT minimal", event: { type: "ACTIVITY_SNAPSHOT", messageId: "act-1", activityType: "", content: {} } },
  { name: "ACTIVITY_SNAPSHOT replace true", event: { type: "ACTIVITY_SNAPSHOT", messageId: "", activityType: "x", content: { a: 1 }, replace: true } },
  {
    name: "ACTIVITY_DELTA full",
    event: {
      type: "ACTIVITY_DELTA",
      messageId: "act-1",
      activityType: "progress",
      patch: [
        { op: "replace", path: "/step", value: 2 },
        { op: "add", path: "/list/-", value: null },
        { op: "copy", from: "/label", path: "/title" },
      ],
      subagentRunId: "sub-1",
      ...BASE,
    },
  },
  { name: "ACTIVITY_DELTA minimal", event: { type: "ACTIVITY_DELTA", messageId: "act-1", activityType: "progress", patch: [] } },

  // REASONING_*
  { name: "REASONING_START full", event: { type: "REASONING_START", messageId: "r-1", subagentRunId: "sub-1", ...BASE } },
  { name: "REASONING_START minimal", event: { type: "REASONING_START", messageId: "" } },
  { name: "REASONING_MESSAGE_START full", event: { type: "REASONING_MESSAGE_START", messageId: "rm-1", role: "reasoning", subagentRunId: "sub-1", ...BASE } },
  { name: "REASONING_MESSAGE_START minimal", event: { type: "REASONING_MESSAGE_START", messageId: "rm-1", role: "reasoning" } },
  { name: "REASONING_MESSAGE_CONTENT full", event: { type: "REASONING_MESSAGE_CONTENT", messageId: "rm-1", delta: MIXED, subagentRunId: "sub-1", ...BASE } },
  { name: "REASONING_MESSAGE_CONTENT minimal", event: { type: "REASONING_MESSAGE_CONTENT", messageId: "rm-1", delta: "" } },
  { name: "REASONING_MESSAGE_END full", event: { type: "REASONING_MESSAGE_END", messageId: "rm-1", subagentRunId: "sub-1", ...BASE } },
  { name: "REASONING_MESSAGE_END minimal", event: { type: "REASONING_MESSAGE_END", messageId: "rm-1" } },
  { name: "REASONING_MESSAGE_CHUNK full", event: { type: "REASONING_MESSAGE_CHUNK", messageId: "rm-1", delta: COMBINING, subagentRunId: "sub-1", ...BASE } },
  { name: "REASONING_MESSAGE_CHUNK minimal", event: { type: "REASONING_MESSAGE_CHUNK" } },
  { name: "REASONING_MESSAGE_CHUNK empty strings", event: { type: "REASONING_MESSAGE_CHUNK", messageId: "", delta: "" } },
  { name: "REASONING_END full", event: { type: "REASONING_END", messageId: "r-1", subagentRunId: "sub-1", ...BASE } },
  { name: "REASONING_END minimal", event: { type: "REASONING_END", messageId: "r-1" } },
  {
    name: "REASONING_ENCRYPTED_VALUE full (tool-call)",
    event: { type: "REASONING_ENCRYPTED_VALUE", subtype: "tool-call", entityId: "call-1", encryptedValue: "gAAAAABl…==", subagentRunId: "sub-1", ...BASE },
  },
  { name: "REASONING_ENCRYPTED_VALUE minimal (message)", event: { type: "REASONING_ENCRYPTED_VALUE", subtype: "message", entityId: "", encryptedValue: "" } },

  // Edge cases of the base fields.
  { name: "timestamp 0", event: { type: "STEP_STARTED", stepName: "s", timestamp: 0 } },
  { name: "timestamp negative", event: { type: "STEP_STARTED", stepName: "s", timestamp: -1 } },
  { name: "timestamp max safe", event: { type: "STEP_STARTED", stepName: "s", timestamp: Number.MAX_SAFE_INTEGER } },
  { name: "timestamp min safe", event: { type: "STEP_STARTED", stepName: "s", timestamp: Number.MIN_SAFE_INTEGER } },
  { name: "metadata empty object", event: { type: "STEP_FINISHED", stepName: "s", metadata: {} } },
  { name: "rawEvent empty object", event: { type: "STEP_FINISHED", stepName: "s", rawEvent: {} } },
  { name: "rawEvent empty array", event: { type: "STEP_FINISHED", stepName: "s", rawEvent: [] } },
  { name: "rawEvent scalar", event: { type: "STEP_FINISHED", stepName: "s", rawEvent: "a provider line" } },
];

/** A valid event holding an empty list that protobuf cannot tell from an absent one. */
export interface EmptyListEntry extends InteropEntry {
  /**
   * What the binary transport carries: the event without that list. protobuf writes an empty
   * repeated field as nothing at all, so no decoder can know the list was there; SSE carries it.
   */
  binary: AguiEventInput;
}

/**
 * Events with an empty optional list (every such list of 1.0 whose absence is valid), and what
 * they become over protobuf. Kept apart from {@link CORPUS_1_0} so that the one place where the
 * binary round trip is not exact is named and checked entry by entry.
 */
export const EMPTY_LISTS_1_0: readonly EmptyListEntry[] = [
  {
    name: "assistant message toolCalls []",
    event: { type: "MESSAGES_SNAPSHOT", messages: [{ id: "a", role: "assistant", content: "hi", toolCalls: [] }] },
    binary: { type: "MESSAGES_SNAPSHOT", messages: [{ id: "a", role: "assistant", content: "hi" }] },
  },
  {
    name: "RUN_FINISHED success pendingToolCallIds []",
    event: { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "success", pendingToolCallIds: [] } },
    binary: { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "success" } },
  },
  {
    name: "RUN_FINISHED usage []",
    event: { type: "RUN_FINISHED", threadId: "t", runId: "r", usage: [] },
    binary: { type: "RUN_FINISHED", threadId: "t", runId: "r" },
  },
  {
    name: "RUN_ERROR usage []",
    event: { type: "RUN_ERROR", message: "m", usage: [] },
    binary: { type: "RUN_ERROR", message: "m" },
  },
  {
    name: "SUBAGENT_FINISHED suspended interruptIds []",
    event: { type: "SUBAGENT_FINISHED", subagentRunId: "s", outcome: { type: "suspended", interruptIds: [] } },
    binary: { type: "SUBAGENT_FINISHED", subagentRunId: "s", outcome: { type: "suspended" } },
  },
  {
    name: "RUN_STARTED input resume []",
    event: { type: "RUN_STARTED", threadId: "t", runId: "r", input: { threadId: "t", runId: "r", messages: [], tools: [], context: [], resume: [] } },
    binary: { type: "RUN_STARTED", threadId: "t", runId: "r", input: { threadId: "t", runId: "r", messages: [], tools: [], context: [] } },
  },
];
