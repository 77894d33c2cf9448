/**
 * Validation stops collecting problems after the first few and counts the rest, on every path: a
 * parsed value (a request body, an SSE event's JSON), a binary frame, and the schemas themselves.
 * What is built for a rejected value is bounded: the issues kept, and for a frame the elements
 * stored, never one per bad entry.
 */
import { describe, expect, it } from "vitest";
import { decodeEvent, encodeEvent, FrameDecoder } from "../../src/binary/index.js";
import { readEvent } from "../../src/gen/agui/wire/v1/events_codec.js";
import { Reader } from "../../src/wire/reader.js";
import { MAX_ARRAY_ISSUES, omittedProblems, problemCount } from "../../src/model/array.js";
import { EventSchema, MessagesSnapshotEventSchema, parseEvent, parseRunAgentInput } from "../../src/model/index.js";
import { MAX_REPORTED_PROBLEMS } from "../../src/model/parse.js";
import { SSEDecoder } from "../../src/sse/decoder.js";
import { hostileFrame, varint } from "../fixtures/hostile.js";
import { validationError } from "./helpers.js";

const input = (fields: Record<string, unknown>) => ({
  threadId: "t",
  runId: "r",
  state: null,
  messages: [],
  tools: [],
  context: [],
  forwardedProps: null,
  ...fields,
});

/** The clauses of a validation message, after its `prefix`. */
function clauses(message: string, prefix: string): string[] {
  expect(message.startsWith(prefix)).toBe(true);
  return message.slice(prefix.length).split("; ");
}

const ROLE = 'expected "developer" or "system" or "assistant" or "user" or "tool" or "activity" or "reasoning"';

describe("a value with many problems", () => {
  it("names the first ten and counts the rest (a RunAgentInput of 200,000 bad messages)", () => {
    const err = validationError(() => parseRunAgentInput(input({ messages: Array(200_000).fill(0) })));
    expect(err.code).toBe("invalid_input");
    expect(err.issues).toHaveLength(MAX_REPORTED_PROBLEMS);
    const parts = clauses(err.message, "invalid RunAgentInput: ");
    expect(parts.slice(0, 10)).toEqual(Array.from({ length: 10 }, (_, i) => `messages[${i}]: expected object, found 0`));
    expect(parts[10]).toBe("and 199,990 more problems");
    expect(parts).toHaveLength(11);
  });

  it("counts every problem of every array, nested arrays included", () => {
    // 12 assistant messages without an id, each with 30 empty tool calls (3 problems each).
    const messages = Array(12).fill({ role: "assistant", toolCalls: Array(30).fill({}) });
    const err = validationError(() => parseRunAgentInput(input({ messages, tools: Array(50).fill(null), context: [{}] })));
    const total = 12 * (1 + 30 * 3) + 50 + 2;
    expect(err.message).toMatch(new RegExp(`; and ${(total - 10).toLocaleString("en-US")} more problems$`));
    expect(err.issues[0]?.path).toEqual(["messages", 0, "id"]);
    expect(err.issues[1]?.path).toEqual(["messages", 0, "toolCalls", 0, "id"]);
  });

  it("says 'problem' for one more", () => {
    const err = validationError(() => parseRunAgentInput(input({ messages: Array(11).fill(0) })));
    expect(err.message).toMatch(/messages\[9\]: expected object, found 0; and 1 more problem$/);
  });

  it("lists every problem, with no count, when there are ten or fewer", () => {
    const err = validationError(() => parseRunAgentInput(input({ messages: Array(10).fill(0) })));
    expect(err.message).not.toMatch(/more problem/);
    expect(err.issues).toHaveLength(10);
  });

  it("shortens long object keys in paths", () => {
    const key = "k".repeat(10_000);
    const err = validationError(() => parseRunAgentInput(input({ state: { [key]: undefined } })));
    expect(err.message).toBe(`invalid RunAgentInput: state["${"k".repeat(60)}…"]: expected a JSON value, found undefined`);
  });

  it("bounds the issues of an event's arrays (MESSAGES_SNAPSHOT, STATE_DELTA)", () => {
    const snapshot = validationError(() => parseEvent({ type: "MESSAGES_SNAPSHOT", messages: Array(100_000).fill({ role: "user", id: 1 }) }));
    expect(snapshot.issues).toHaveLength(10);
    expect(snapshot.message).toMatch(/messages\[4\]\.content: expected string or array, found nothing; and 199,990 more problems$/);
    const delta = validationError(() => parseEvent({ type: "STATE_DELTA", delta: Array(50_000).fill({ op: "add", path: "x", value: 1 }) }));
    expect(delta.issues).toHaveLength(10);
    expect(delta.message).toMatch(/delta\[9\]\.path: .*; and 49,990 more problems$/);
  });

  it("bounds the issues of the 1.0 arrays too: content parts, a patch, token usage, interrupts, resume entries", () => {
    const cases: [() => unknown, string][] = [
      [() => parseEvent({ type: "TOOL_CALL_RESULT", messageId: "m", toolCallId: "t", content: Array(50_000).fill({ type: "text" }) }), "content[9].text: expected string, found nothing"],
      [() => parseEvent({ type: "ACTIVITY_DELTA", messageId: "a", activityType: "p", patch: Array(50_000).fill({ op: "remove" }) }), "patch[9].path: expected string, found nothing"],
      [() => parseEvent({ type: "RUN_ERROR", message: "m", usage: Array(50_000).fill({ inputTokens: 0.5 }) }), "usage[9].inputTokens: expected int, found 0.5"],
      [() => parseEvent({ type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "interrupt", interrupts: Array(50_000).fill({ id: "i" }) } }), "outcome.interrupts[9].reason: expected string, found nothing"],
      [() => parseRunAgentInput(input({ resume: Array(50_000).fill({ interruptId: "i" }) })), 'resume[9].status: expected "resolved" or "cancelled", found nothing'],
      [() => parseRunAgentInput(input({ messages: [{ id: "u", role: "user", content: Array(50_000).fill(null) }] })), "messages[0].content[9]: expected object, found null"],
    ];
    for (const [run, tenth] of cases) {
      const err = validationError(run);
      expect(err.issues).toHaveLength(10);
      expect(err.message.endsWith(`${tenth}; and 49,990 more problems`), err.message.slice(-200)).toBe(true);
    }
  });

  it("gives schemas used directly a bounded issue list that ends with the count", () => {
    const result = EventSchema.safeParse({ type: "MESSAGES_SNAPSHOT", messages: Array(1000).fill(null) });
    const issues = result.error!.issues;
    expect(issues).toHaveLength(MAX_ARRAY_ISSUES + 1);
    expect(omittedProblems(issues.at(-1)!)).toBe(990);
    expect(issues.at(-1)!.path).toEqual(["messages"]);
    expect(problemCount(issues)).toBe(1000);
  });

  it("still validates and strips valid arrays as before", () => {
    const messages = Array.from({ length: 5000 }, (_, i) => ({ id: String(i), role: "user", content: "hi", extra: i }));
    const parsed = MessagesSnapshotEventSchema.parse({ type: "MESSAGES_SNAPSHOT", messages });
    expect(parsed.messages).toHaveLength(5000);
    expect(parsed.messages[4999]).toEqual({ id: "4999", role: "user", content: "hi" });
  });
});

describe("a binary frame with many bad elements", () => {
  it("stores only the first bad elements while reading, and counts the problems of the rest", () => {
    const frame = hostileFrame(100_000);
    const r = new Reader(frame, 4);
    const event = readEvent(r, frame.length) as { messages: unknown[] };
    expect(event.messages).toHaveLength(MAX_ARRAY_ISSUES);
    expect(r.keeping).toBe(false);
    expect(r.omitted).toBe(100_000 - MAX_ARRAY_ISSUES);
  });

  it("is rejected naming the first problems and the count, as the same event in JSON is", () => {
    const frame = hostileFrame(100_000);
    const fromFrame = validationError(() => new FrameDecoder().push(frame));
    expect(fromFrame.code).toBe("invalid_event");
    expect(fromFrame.issues).toHaveLength(10);
    const parts = clauses(fromFrame.message, "frame #0: invalid MESSAGES_SNAPSHOT event: ");
    expect(parts.slice(0, 10)).toEqual(Array.from({ length: 10 }, (_, i) => `messages[${i}].role: ${ROLE}, found ""`));
    expect(parts[10]).toBe("and 99,990 more problems");

    const sse = `data: ${JSON.stringify({ type: "MESSAGES_SNAPSHOT", messages: Array(100_000).fill({}) })}\n\n`;
    const fromSSE = validationError(() => new SSEDecoder().push(sse));
    expect(fromSSE.message).toMatch(/; and 99,990 more problems$/);
  });

  it("counts the problems of nested tool calls dropped unbuilt", () => {
    // One assistant message (id "m") with 1,000 empty tool calls: each lacks its type and function.
    const calls = 1000;
    const message = [0x0a, 0x01, 0x6d, 0x12, 0x09, ...new TextEncoder().encode("assistant")];
    for (let i = 0; i < calls; i++) message.push(0x2a, 0x00);
    const err = validationError(() => decodeEvent(snapshot([0x12, ...varint(message.length), ...message])));
    expect(err.message).toMatch(/^invalid MESSAGES_SNAPSHOT event: messages\[0\]\.toolCalls\[0\]\.type: expected "function", found ""; /);
    expect(err.message).toMatch(new RegExp(`; and ${(2 * calls - 10).toLocaleString("en-US")} more problems$`));
  });

  it("is still malformed_frame when bytes after the bad elements are broken", () => {
    const empties = Array.from({ length: 1000 }, () => [0x12, 0x00]).flat();
    // After the bad messages, a message whose length runs past the end of the event.
    expect(() => decodeEvent(snapshot([...empties, 0x12, 0x05]))).toThrow(expect.objectContaining({ code: "malformed_frame" }));
    expect(() => decodeEvent(snapshot(empties))).toThrow(expect.objectContaining({ code: "invalid_event" }));
  });

  it("decodes valid repeated elements as the schema outputs them", () => {
    const event = {
      type: "MESSAGES_SNAPSHOT" as const,
      messages: Array.from({ length: 50 }, (_, i) => ({ id: String(i), role: "assistant" as const, toolCalls: [{ id: "c", type: "function" as const, function: { name: "f", arguments: "{}" } }] })),
    };
    expect(decodeEvent(encodeEvent(event))).toEqual(parseEvent(event));
    const delta = { type: "STATE_DELTA" as const, delta: [{ op: "add" as const, path: "/a", value: [1, { b: null }] }, { op: "remove" as const, path: "/b" }] };
    expect(decodeEvent(encodeEvent(delta))).toEqual(parseEvent(delta));
  });
});


/** An Event message (no frame prefix) holding a MESSAGES_SNAPSHOT with these bytes after its BaseEvent. */
function snapshot(fields: number[]): Uint8Array {
  const body = [0x0a, 0x02, 0x08, 0x08, ...fields];
  return new Uint8Array([(9 << 3) | 2, ...varint(body.length), ...body]);
}
