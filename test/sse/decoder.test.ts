import { describe, expect, it } from "vitest";
import { AguiWireError, ValidationError } from "../../src/util/errors.js";
import { parseEvent } from "../../src/model/parse.js";
import { SSEDecoder, encodeSSE } from "../../src/sse/index.js";

function caught(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

const started = encodeSSE({ type: "RUN_STARTED", threadId: "t", runId: "r" });

describe("SSEDecoder", () => {
  it("decodes and validates events, dropping unknown keys and filling in no role", () => {
    const decoder = new SSEDecoder();
    const events = decoder.push(
      `${started}data: {"type":"TEXT_MESSAGE_START","messageId":"m","x":1}\n\n` +
        `data: {"type":"TEXT_MESSAGE_START","messageId":"u","role":"user","name":"alice"}\n\n`,
    );
    decoder.end();
    // AG-UI 1.0: TEXT_MESSAGE_START's role is optional with no default, so absent stays absent.
    expect(events).toStrictEqual([
      { type: "RUN_STARTED", threadId: "t", runId: "r" },
      { type: "TEXT_MESSAGE_START", messageId: "m" },
      { type: "TEXT_MESSAGE_START", messageId: "u", role: "user", name: "alice" },
    ]);
  });
  it("rejects what AG-UI 1.0 rejects: an unknown text role, a CUSTOM without value, a null rawEvent", () => {
    const cases: [string, RegExp][] = [
      ['{"type":"TEXT_MESSAGE_START","messageId":"m","role":"robot"}', /role/],
      ['{"type":"CUSTOM","name":"n"}', /value/],
      ['{"type":"STEP_STARTED","stepName":"s","rawEvent":null}', /rawEvent/],
    ];
    for (const [data, field] of cases) {
      const error = caught(() => new SSEDecoder().push(`data: ${data}\n\n`)) as ValidationError;
      expect(error, data).toBeInstanceOf(ValidationError);
      expect(error.code, data).toBe("invalid_event");
      expect(error.message, data).toMatch(/^SSE event #0: invalid /);
      expect(error.message, data).toMatch(field);
    }
    // A CUSTOM whose value is null is valid (1.0 requires the key, not a non-null value).
    expect(new SSEDecoder().push('data: {"type":"CUSTOM","name":"n","value":null}\n\n')).toStrictEqual([{ type: "CUSTOM", name: "n", value: null }]);
  });
  it("decodes messages whatever their SSE event type", () => {
    const decoder = new SSEDecoder();
    expect(decoder.push(`event: message\n${started}event: other\n${started}`)).toHaveLength(2);
  });
  it("ignores comments, id and retry, and exposes lastEventId", () => {
    const decoder = new SSEDecoder();
    expect(decoder.push(`: keep-alive\n\nid: 42\nretry: 100\n${started}`)).toHaveLength(1);
    expect(decoder.lastEventId).toBe("42");
  });
  it("reports data that is not JSON, with the event's index and the cause", () => {
    const runStarted = { type: "RUN_STARTED", threadId: "t", runId: "r" };
    // The bad message in a chunk that completes no event before it: the push fails at once.
    const decoder = new SSEDecoder();
    expect(decoder.push(`${started}: c\n\n${started}`)).toEqual([runStarted, runStarted]);
    const error = caught(() => decoder.push(`data: {"type":\n\n`)) as AguiWireError;
    expect(error).toBeInstanceOf(AguiWireError);
    expect(error).not.toBeInstanceOf(ValidationError);
    expect(error.code).toBe("malformed_event");
    expect(error.message).toMatch(/^SSE event #2: data is not JSON: \S/);
    expect(error.cause).toBeInstanceOf(SyntaxError);
    expect(error.message).toContain((error.cause as Error).message);
    // In one chunk after two events: the push returns them, and the next call throws the same
    // error (the same code, message and cause).
    const together = new SSEDecoder();
    expect(together.push(`${started}: c\n\n${started}data: {"type":\n\n`)).toEqual([runStarted, runStarted]);
    const deferred = caught(() => together.push(started)) as AguiWireError;
    expect(deferred).toBeInstanceOf(AguiWireError);
    expect(deferred).not.toBeInstanceOf(ValidationError);
    expect(deferred.code).toBe("malformed_event");
    expect(deferred.message).toBe(error.message);
    expect(deferred.cause).toBeInstanceOf(SyntaxError);
    expect((deferred.cause as Error).message).toBe((error.cause as Error).message);
    expect(caught(() => together.end())).toBe(deferred);
    expect(caught(() => together.push(started))).toBe(deferred);
  });
  it("counts messages across pushes, from 0", () => {
    const decoder = new SSEDecoder();
    decoder.push(started);
    decoder.push(started);
    const error = caught(() => decoder.push("data\n\n")) as AguiWireError;
    expect(error.message).toMatch(/^SSE event #2: data is not JSON: /);
  });
  it("reports an invalid event as parseEvent does, prefixed with the index", () => {
    const data = { type: "TEXT_MESSAGE_CONTENT", messageId: 5, delta: "" };
    const expected = caught(() => parseEvent(data)) as ValidationError;
    const runStarted = { type: "RUN_STARTED", threadId: "t", runId: "r" };
    // The invalid event in a chunk that completes no event before it: the push fails at once.
    const decoder = new SSEDecoder();
    expect(decoder.push(started)).toEqual([runStarted]);
    const error = caught(() => decoder.push(`data: ${JSON.stringify(data)}\n\n`)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.code).toBe("invalid_event");
    expect(error.message).toBe(`SSE event #1: ${expected.message}`);
    expect(error.issues).toEqual(expected.issues);
    expect(error.issues.length).toBeGreaterThan(0);
    expect(error.cause).toBeInstanceOf(ValidationError);
    // In one chunk after a valid event: the push returns it, and the next call (here end) throws
    // the same error.
    const together = new SSEDecoder();
    expect(together.push(`${started}data: ${JSON.stringify(data)}\n\n`)).toEqual([runStarted]);
    const deferred = caught(() => together.end()) as ValidationError;
    expect(deferred).toBeInstanceOf(ValidationError);
    expect(deferred.code).toBe("invalid_event");
    expect(deferred.message).toBe(`SSE event #1: ${expected.message}`);
    expect(deferred.issues).toEqual(expected.issues);
    expect(deferred.cause).toBeInstanceOf(ValidationError);
    expect(caught(() => together.push(started))).toBe(deferred);
    expect(caught(() => together.end())).toBe(deferred);
  });
  it("keeps the unknown_event_type code when strict (by default such an event is dropped)", () => {
    const error = caught(() => new SSEDecoder({ strict: true }).push('data: {"type":"NOPE"}\n\n')) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.code).toBe("unknown_event_type");
    expect(error.message).toMatch(/^SSE event #0: unknown event type "NOPE"/);
  });
  it("reports non-object JSON as an invalid event", () => {
    for (const data of ["null", "[]", "1", '"RUN_STARTED"']) {
      const error = caught(() => new SSEDecoder().push(`data: ${data}\n\n`)) as ValidationError;
      expect(error.code).toBe("invalid_event");
      expect(error.message).toMatch(/^SSE event #0: invalid event/);
    }
  });
  it("is unusable after an error: later calls throw the same error", () => {
    const decoder = new SSEDecoder();
    const error = caught(() => decoder.push("data: x\n\n"));
    expect(caught(() => decoder.push(started))).toBe(error);
    expect(caught(() => decoder.end())).toBe(error);
  });
  it("fails on a truncated stream, and that failure is final too", () => {
    const decoder = new SSEDecoder();
    expect(decoder.push(started + started.slice(0, 20))).toHaveLength(1);
    const error = caught(() => decoder.end()) as AguiWireError;
    expect(error.code).toBe("truncated_stream");
    expect(caught(() => decoder.push("\n\n"))).toBe(error);
  });
  it("applies maxEventBytes", () => {
    const decoder = new SSEDecoder({ maxEventBytes: 30 });
    const error = caught(() => decoder.push(started)) as AguiWireError;
    expect(error.code).toBe("frame_too_large");
  });
  it("decodes again after a clean end, keeping the message count", () => {
    const decoder = new SSEDecoder();
    decoder.push(started);
    decoder.end();
    const error = caught(() => decoder.push("data: {\n\n")) as AguiWireError;
    expect(error.message).toMatch(/^SSE event #1: /);
  });
});
