// Differential test of the model against `@ag-ui/core/schemas` 1.0, the authority on what AG-UI 1.0
// accepts: fast-check generates valid 1.0 events of all 31 types (and run request bodies), then
// mutations of them, and every value must get the same verdict from their validator and ours.
//
// The only differences allowed are the documented rules of ours:
// - events: a TEXT_MESSAGE_CONTENT with an empty `delta` is refused by us, accepted by 1.0;
// - RunAgentInput: `forwardedProps: null` is accepted by us (bodies written for earlier releases
//   send it), refused by 1.0.
// Everything else found by running this is pinned below as a unit case, with the value.
//
// Values are JSON only (what a wire can carry): no undefined, functions, NaN, ±Infinity or -0.
import fc from "fast-check";
import { EventSchema, RunAgentInputSchema } from "@ag-ui/core/schemas";
import { describe, expect, it } from "vitest";
import { EVENT_TYPES, MAX_JSON_DEPTH, parseEvent, parseRunAgentInput, type EventType } from "../../src/index.js";
import { EVENT_ARBS, mutate, mutation, runAgentInput, validEvent } from "../fixtures/arbitraries-1.0.js";
import { CORPUS_1_0 } from "./corpus-1.0.js";

// --- Verdicts -------------------------------------------------------------------------------------

function weAcceptEvent(value: unknown): boolean {
  try {
    parseEvent(value);
    return true;
  } catch {
    return false;
  }
}

function weAcceptInput(value: unknown): boolean {
  try {
    parseRunAgentInput(value);
    return true;
  } catch {
    return false;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Our documented rule: a TEXT_MESSAGE_CONTENT delta is never empty (1.0 allows it). */
const hasEmptyTextDelta = (v: unknown): boolean => isObject(v) && v.type === "TEXT_MESSAGE_CONTENT" && v.delta === "";

/** What we must answer for an event: 1.0's verdict, but no to an empty TEXT_MESSAGE_CONTENT delta. */
function expectedEventVerdict(value: unknown): boolean {
  return EventSchema.safeParse(value).success && !hasEmptyTextDelta(value);
}

/** What we must answer for a request body: 1.0's verdict on it as if a null `forwardedProps` were absent. */
function expectedInputVerdict(value: unknown): boolean {
  if (isObject(value) && value.forwardedProps === null) {
    const { forwardedProps: _dropped, ...rest } = value;
    return RunAgentInputSchema.safeParse(rest).success;
  }
  return RunAgentInputSchema.safeParse(value).success;
}

// --- The properties -----------------------------------------------------------------------------

describe("the generators", () => {
  it("make only values @ag-ui/core 1.0 accepts", () => {
    fc.assert(
      fc.property(validEvent, (v) => {
        const result = EventSchema.safeParse(v);
        expect(result.error?.issues).toBeUndefined();
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(runAgentInput, (v) => {
        expect(RunAgentInputSchema.safeParse(v).error?.issues).toBeUndefined();
      }),
      { numRuns: 100 },
    );
  });

  it("cover every event type", () => {
    const seen = new Set<unknown>();
    for (const type of EVENT_TYPES) for (const v of fc.sample(EVENT_ARBS[type], 1)) seen.add(v.type);
    expect([...seen].sort()).toStrictEqual([...EVENT_TYPES].sort());
  });
});

describe("events: @ag-ui/core's EventSchema and our parseEvent agree", () => {
  it("on valid 1.0 events of all 31 types (we refuse only an empty TEXT_MESSAGE_CONTENT delta)", () => {
    fc.assert(
      fc.property(validEvent, (v) => {
        expect(weAcceptEvent(v)).toBe(!hasEmptyTextDelta(v));
      }),
      { numRuns: 1000 },
    );
  });

  it("on mutations of them", () => {
    fc.assert(
      fc.property(validEvent, mutation, (original, m) => {
        const v = mutate(original, m);
        expect({ value: v, accepted: weAcceptEvent(v) }).toStrictEqual({ value: v, accepted: expectedEventVerdict(v) });
      }),
      { numRuns: 3000 },
    );
  });

  it("on the interop corpus, and on each corpus event mutated every way", () => {
    for (const { event } of CORPUS_1_0) {
      expect(weAcceptEvent(event)).toBe(true);
      expect(EventSchema.safeParse(event).success).toBe(true);
    }
    fc.assert(
      fc.property(fc.constantFrom(...CORPUS_1_0.map((c) => c.event as unknown as Record<string, unknown>)), mutation, (original, m) => {
        const v = mutate(original, m);
        expect({ value: v, accepted: weAcceptEvent(v) }).toStrictEqual({ value: v, accepted: expectedEventVerdict(v) });
      }),
      { numRuns: 1500 },
    );
  });
});

describe("run request bodies: @ag-ui/core's RunAgentInputSchema and our parseRunAgentInput agree", () => {
  it("on valid 1.0 bodies", () => {
    fc.assert(
      fc.property(runAgentInput, (v) => {
        expect(weAcceptInput(v)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("on mutations of them (we also accept a null forwardedProps)", () => {
    fc.assert(
      fc.property(runAgentInput, mutation, (original, m) => {
        const v = mutate(original, m);
        expect({ value: v, accepted: weAcceptInput(v) }).toStrictEqual({ value: v, accepted: expectedInputVerdict(v) });
      }),
      { numRuns: 1500 },
    );
  });
});

// --- Pinned cases -------------------------------------------------------------------------------

/** Each case of the brief's list, by hand: the value and 1.0's verdict, which ours must match. */
const EVENT_CASES: { name: string; value: unknown; accepted: boolean }[] = [
  { name: "required key dropped", value: { type: "TOOL_CALL_START", toolCallId: "c" }, accepted: false },
  { name: "required key null", value: { type: "TEXT_MESSAGE_END", messageId: null }, accepted: false },
  { name: "optional key null", value: { type: "TOOL_CALL_START", toolCallId: "c", toolCallName: "t", parentMessageId: null }, accepted: false },
  { name: "wrong type", value: { type: "STEP_STARTED", stepName: 1 }, accepted: false },
  { name: "unknown type", value: { type: "TEXT_MESSAGE_SOMETHING", messageId: "m" }, accepted: false },
  { name: "type missing", value: { messageId: "m" }, accepted: false },
  { name: "not an object", value: ["TEXT_MESSAGE_END"], accepted: false },
  { name: "text role robot", value: { type: "TEXT_MESSAGE_START", messageId: "m", role: "robot" }, accepted: false },
  { name: "text role tool", value: { type: "TEXT_MESSAGE_START", messageId: "m", role: "tool" }, accepted: false },
  { name: "message role robot", value: { type: "MESSAGES_SNAPSHOT", messages: [{ id: "m", role: "robot", content: "" }] }, accepted: false },
  { name: "patch op frob", value: { type: "STATE_DELTA", delta: [{ op: "frob", path: "" }] }, accepted: false },
  { name: "patch path not a pointer", value: { type: "STATE_DELTA", delta: [{ op: "remove", path: "a" }] }, accepted: false },
  { name: "patch pointer bad escape", value: { type: "STATE_DELTA", delta: [{ op: "remove", path: "/~2" }] }, accepted: false },
  { name: "patch add without value", value: { type: "STATE_DELTA", delta: [{ op: "add", path: "/a" }] }, accepted: false },
  { name: "patch remove with extra value", value: { type: "STATE_DELTA", delta: [{ op: "remove", path: "/a", value: 1 }] }, accepted: true },
  { name: "timestamp non-integer", value: { type: "STEP_STARTED", stepName: "s", timestamp: 1.5 }, accepted: false },
  { name: "timestamp negative", value: { type: "STEP_STARTED", stepName: "s", timestamp: -5 }, accepted: true },
  { name: "timestamp unsafe", value: { type: "STEP_STARTED", stepName: "s", timestamp: 2 ** 53 }, accepted: false },
  { name: "timestamp unsafe negative", value: { type: "STEP_STARTED", stepName: "s", timestamp: -(2 ** 53) }, accepted: false },
  { name: "timestamp string", value: { type: "STEP_STARTED", stepName: "s", timestamp: "1" }, accepted: false },
  { name: "token count negative", value: { type: "RUN_ERROR", message: "", usage: [{ inputTokens: -1 }] }, accepted: false },
  { name: "token count non-integer", value: { type: "RUN_ERROR", message: "", usage: [{ outputTokens: 0.5 }] }, accepted: false },
  { name: "token count unsafe", value: { type: "RUN_FINISHED", threadId: "t", runId: "r", usage: [{ totalTokens: 2 ** 53 }] }, accepted: false },
  { name: "token count max safe", value: { type: "RUN_FINISHED", threadId: "t", runId: "r", usage: [{ totalTokens: Number.MAX_SAFE_INTEGER }] }, accepted: true },
  { name: "metadata array", value: { type: "STEP_STARTED", stepName: "s", metadata: [] }, accepted: false },
  { name: "metadata null", value: { type: "STEP_STARTED", stepName: "s", metadata: null }, accepted: false },
  { name: "metadata string", value: { type: "STEP_STARTED", stepName: "s", metadata: "m" }, accepted: false },
  { name: "message metadata array", value: { type: "MESSAGES_SNAPSHOT", messages: [{ id: "m", role: "system", content: "", metadata: [1] }] }, accepted: false },
  { name: "rawEvent null", value: { type: "STEP_STARTED", stepName: "s", rawEvent: null }, accepted: false },
  { name: "result null", value: { type: "RUN_FINISHED", threadId: "t", runId: "r", result: null }, accepted: false },
  { name: "part metadata null", value: { type: "TOOL_CALL_RESULT", messageId: "m", toolCallId: "c", content: [{ type: "text", text: "", metadata: null }] }, accepted: false },
  { name: "outcome interrupt with no interrupts", value: { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "interrupt", interrupts: [] } }, accepted: false },
  { name: "outcome unknown kind", value: { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "paused" } }, accepted: false },
  { name: "outcome as a string", value: { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: "success" }, accepted: false },
  { name: "outcome null", value: { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: null }, accepted: false },
  { name: "subagent outcome interrupt", value: { type: "SUBAGENT_FINISHED", subagentRunId: "s", outcome: { type: "interrupt", interrupts: [{ id: "i", reason: "r" }] } }, accepted: false },
  { name: "interrupt without reason", value: { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "interrupt", interrupts: [{ id: "i" }] } }, accepted: false },
  { name: "interrupt responseSchema array", value: { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "interrupt", interrupts: [{ id: "i", reason: "r", responseSchema: [] }] } }, accepted: false },
  { name: "content part of unknown type", value: { type: "TOOL_CALL_RESULT", messageId: "m", toolCallId: "c", content: [{ type: "hologram", text: "x" }] }, accepted: false },
  { name: "nested content part of unknown type", value: { type: "MESSAGES_SNAPSHOT", messages: [{ id: "u", role: "user", content: [{ type: "text", text: "a" }, { type: "hologram" }] }] }, accepted: false },
  { name: "source of unknown type", value: { type: "TOOL_CALL_RESULT", messageId: "m", toolCallId: "c", content: [{ type: "image", source: { type: "ftp", value: "x" } }] }, accepted: false },
  { name: "data source without mimeType", value: { type: "TOOL_CALL_RESULT", messageId: "m", toolCallId: "c", content: [{ type: "image", source: { type: "data", value: "x" } }] }, accepted: false },
  { name: "user content []", value: { type: "MESSAGES_SNAPSHOT", messages: [{ id: "u", role: "user", content: [] }] }, accepted: true },
  { name: "system content parts", value: { type: "MESSAGES_SNAPSHOT", messages: [{ id: "s", role: "system", content: [] }] }, accepted: false },
  { name: "activity content array", value: { type: "ACTIVITY_SNAPSHOT", messageId: "a", activityType: "t", content: [] }, accepted: false },
  { name: "tool result role assistant", value: { type: "TOOL_CALL_RESULT", messageId: "m", toolCallId: "c", content: "", role: "assistant" }, accepted: false },
  { name: "reasoning start role assistant", value: { type: "REASONING_MESSAGE_START", messageId: "m", role: "assistant" }, accepted: false },
  { name: "encrypted value subtype unknown", value: { type: "REASONING_ENCRYPTED_VALUE", subtype: "thought", entityId: "e", encryptedValue: "" }, accepted: false },
  { name: "CUSTOM without value", value: { type: "CUSTOM", name: "n" }, accepted: false },
  { name: "RAW without event", value: { type: "RAW" }, accepted: false },
  { name: "STATE_SNAPSHOT without snapshot", value: { type: "STATE_SNAPSHOT" }, accepted: false },
  { name: "SUBAGENT_STARTED without subagentRunId", value: { type: "SUBAGENT_STARTED", name: "n" }, accepted: false },
  { name: "subagentRunId a number", value: { type: "STEP_STARTED", stepName: "s", subagentRunId: 1 }, accepted: false },
  { name: "extra unknown keys everywhere", value: { type: "TOOL_CALL_RESULT", messageId: "m", toolCallId: "c", content: [{ type: "text", text: "", zz: 1 }], zz: { a: 1 } }, accepted: true },
  { name: "subagentRunId of any type on a run-scoped event (unknown there)", value: { type: "RUN_STARTED", threadId: "t", runId: "r", subagentRunId: 5 }, accepted: true },
  { name: "RUN_STARTED input missing messages", value: { type: "RUN_STARTED", threadId: "t", runId: "r", input: { threadId: "t", runId: "r" } }, accepted: false },
  { name: "RUN_STARTED input with a null state", value: { type: "RUN_STARTED", threadId: "t", runId: "r", input: { threadId: "t", runId: "r", messages: [], state: null } }, accepted: true },
];

describe("pinned event cases", () => {
  for (const { name, value, accepted } of EVENT_CASES) {
    it(`${name}: ${accepted ? "both accept" : "both refuse"}`, () => {
      expect(EventSchema.safeParse(value).success).toBe(accepted);
      expect(weAcceptEvent(value)).toBe(accepted);
    });
  }

  it("an empty TEXT_MESSAGE_CONTENT delta: 1.0 accepts, we refuse (our documented rule)", () => {
    const value = { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "" };
    expect(EventSchema.safeParse(value).success).toBe(true);
    expect(() => parseEvent(value)).toThrow(/delta: expected a non-empty string, found an empty one/);
  });

  // Found by this test. RUN_STARTED.input is validated with our request-body schema, which keeps
  // its allowance for a null forwardedProps; 1.0's RUN_STARTED refuses it. Reported to the lead;
  // fails until the model uses 1.0's rule inside RUN_STARTED (or the exception is documented).
  it("RUN_STARTED whose input has forwardedProps null: both refuse", () => {
    const value = { type: "RUN_STARTED", threadId: "t", runId: "r", input: { threadId: "t", runId: "r", messages: [], forwardedProps: null } };
    expect(EventSchema.safeParse(value).success).toBe(false);
    expect(weAcceptEvent(value)).toBe(false);
  });

  it(`JSON nested deeper than ${MAX_JSON_DEPTH} levels: 1.0 accepts, we refuse (our documented bound)`, () => {
    let deep: unknown = "bottom";
    for (let i = 0; i < MAX_JSON_DEPTH + 1; i++) deep = [deep];
    const value = { type: "CUSTOM", name: "n", value: deep };
    expect(EventSchema.safeParse(value).success).toBe(true);
    expect(() => parseEvent(value)).toThrow(/nested at most 100 levels/);
  });
});

const INPUT_CASES: { name: string; value: unknown; accepted: boolean }[] = [
  { name: "only threadId, runId and messages", value: { threadId: "t", runId: "r", messages: [] }, accepted: true },
  { name: "messages missing", value: { threadId: "t", runId: "r" }, accepted: false },
  { name: "state null", value: { threadId: "t", runId: "r", messages: [], state: null }, accepted: true },
  { name: "state a string", value: { threadId: "t", runId: "r", messages: [], state: "s" }, accepted: true },
  { name: "tools null", value: { threadId: "t", runId: "r", messages: [], tools: null }, accepted: false },
  { name: "tool parameters null", value: { threadId: "t", runId: "r", messages: [], tools: [{ name: "n", description: "d", parameters: null }] }, accepted: false },
  { name: "tool parameters an array", value: { threadId: "t", runId: "r", messages: [], tools: [{ name: "n", description: "d", parameters: [] }] }, accepted: true },
  { name: "tool without description", value: { threadId: "t", runId: "r", messages: [], tools: [{ name: "n" }] }, accepted: false },
  { name: "context value not a string", value: { threadId: "t", runId: "r", messages: [], context: [{ description: "d", value: {} }] }, accepted: false },
  { name: "resume status unknown", value: { threadId: "t", runId: "r", messages: [], resume: [{ interruptId: "i", status: "pending" }] }, accepted: false },
  { name: "resume payload null", value: { threadId: "t", runId: "r", messages: [], resume: [{ interruptId: "i", status: "resolved", payload: null }] }, accepted: false },
  { name: "protocolVersion a number", value: { threadId: "t", runId: "r", messages: [], protocolVersion: 1 }, accepted: false },
  { name: "a reasoning and an activity message", value: { threadId: "t", runId: "r", messages: [{ id: "a", role: "reasoning", content: "" }, { id: "b", role: "activity", activityType: "x", content: {} }] }, accepted: true },
  { name: "multimodal user content", value: { threadId: "t", runId: "r", messages: [{ id: "u", role: "user", content: [{ type: "image", source: { type: "url", value: "u" } }] }] }, accepted: true },
  { name: "extra keys", value: { threadId: "t", runId: "r", messages: [], zz: 1 }, accepted: true },
];

describe("pinned request body cases", () => {
  for (const { name, value, accepted } of INPUT_CASES) {
    it(`${name}: ${accepted ? "both accept" : "both refuse"}`, () => {
      expect(RunAgentInputSchema.safeParse(value).success).toBe(accepted);
      expect(weAcceptInput(value)).toBe(accepted);
    });
  }

  it("forwardedProps null: 1.0 refuses, we accept it as {} (bodies written for earlier releases, and the Python SDK, send it)", () => {
    const value = { threadId: "t", runId: "r", messages: [], forwardedProps: null };
    expect(RunAgentInputSchema.safeParse(value).success).toBe(false);
    expect(parseRunAgentInput(value).forwardedProps).toEqual({});
  });
});
