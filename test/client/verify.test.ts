import { describe, expect, it } from "vitest";
import { sampleRun } from "../../demo/sample-run.js";
import {
  AguiWireError,
  EventVerifier,
  ProtocolViolationError,
  parseEvent,
  verifyEvents,
  type AguiEvent,
  type AguiEventInput,
  type ProtocolRule,
} from "../../src/index.js";

const started = { type: "RUN_STARTED", threadId: "t", runId: "r" } as const;
const finished = { type: "RUN_FINISHED", threadId: "t", runId: "r" } as const;
const failed = { type: "RUN_ERROR", message: "boom" } as const;
const msgStart = (messageId: string) => ({ type: "TEXT_MESSAGE_START", messageId, role: "assistant" }) as const;
const msgContent = (messageId: string) => ({ type: "TEXT_MESSAGE_CONTENT", messageId, delta: "x" }) as const;
const msgEnd = (messageId: string) => ({ type: "TEXT_MESSAGE_END", messageId }) as const;
const toolStart = (toolCallId: string) => ({ type: "TOOL_CALL_START", toolCallId, toolCallName: "f" }) as const;
const toolArgs = (toolCallId: string) => ({ type: "TOOL_CALL_ARGS", toolCallId, delta: "{}" }) as const;
const toolEnd = (toolCallId: string) => ({ type: "TOOL_CALL_END", toolCallId }) as const;
const stepStart = (stepName: string) => ({ type: "STEP_STARTED", stepName }) as const;
const stepEnd = (stepName: string) => ({ type: "STEP_FINISHED", stepName }) as const;
const custom = { type: "CUSTOM", name: "c", value: null } as const;

/** Pushes every event and ends; returns the first error, if any. */
function check(events: readonly AguiEventInput[]): unknown {
  const verifier = new EventVerifier();
  try {
    for (const event of events) verifier.push(parseEvent(event));
    verifier.end();
    return undefined;
  } catch (error) {
    return error;
  }
}

function expectViolation(events: readonly AguiEventInput[], rule: ProtocolRule, index: number): ProtocolViolationError {
  const error = check(events);
  expect(error).toBeInstanceOf(ProtocolViolationError);
  const violation = error as ProtocolViolationError;
  expect(violation).toBeInstanceOf(AguiWireError);
  expect(violation.code).toBe("protocol_violation");
  expect(violation.rule).toBe(rule);
  expect(violation.index).toBe(index);
  expect(violation.message).toContain(`event #${index}`);
  expect(violation.message).toContain(rule);
  return violation;
}

function expectTruncated(events: readonly AguiEventInput[]): void {
  const error = check(events);
  expect(error).toBeInstanceOf(AguiWireError);
  expect(error).not.toBeInstanceOf(ProtocolViolationError);
  expect((error as AguiWireError).code).toBe("truncated_stream");
}

async function* from(events: readonly AguiEventInput[]): AsyncGenerator<AguiEvent> {
  for (const event of events) yield parseEvent(event);
}

describe("EventVerifier: valid streams", () => {
  it("accepts the demo's sample run", () => {
    expect(check([...sampleRun({ threadId: "t", runId: "r" })])).toBeUndefined();
  });

  it("accepts interleaved messages, tool calls and steps of different ids", () => {
    expect(
      check([
        started,
        stepStart("a"),
        msgStart("m1"),
        toolStart("c1"),
        stepStart("b"),
        msgStart("m2"),
        msgContent("m1"),
        toolArgs("c1"),
        msgContent("m2"),
        toolStart("c2"),
        msgEnd("m1"),
        stepEnd("a"),
        toolEnd("c1"),
        toolArgs("c2"),
        msgEnd("m2"),
        toolEnd("c2"),
        stepEnd("b"),
        custom,
        finished,
      ]),
    ).toBeUndefined();
  });

  it("accepts an id used again once it is closed", () => {
    expect(check([started, msgStart("m"), msgEnd("m"), msgStart("m"), msgEnd("m"), stepStart("s"), stepEnd("s"), stepStart("s"), stepEnd("s"), finished])).toBeUndefined();
  });

  it("accepts a RUN_ERROR whatever is open, as the end of a failed run", () => {
    expect(check([started, msgStart("m"), toolStart("c"), stepStart("s"), failed])).toBeUndefined();
  });

  it("accepts several runs one after the other, and forgets what a failed run left open", () => {
    expect(check([started, msgStart("m"), failed, started, msgStart("m"), msgEnd("m"), finished, started, finished])).toBeUndefined();
  });

  it("accepts a lone RUN_ERROR as a whole run: one that failed before it started (as @ag-ui/client 1.0 does)", () => {
    expect(check([failed])).toBeUndefined();
    expect(check([started, finished, failed])).toBeUndefined();
    expect(check([failed, started, finished])).toBeUndefined();
    expect(check([started, failed, started, finished, failed, started, msgStart("m"), failed])).toBeUndefined();
  });

  it("accepts events that belong to no message inside a run", () => {
    expect(
      check([started, { type: "STATE_SNAPSHOT", snapshot: {} }, { type: "STATE_DELTA", delta: [] }, { type: "MESSAGES_SNAPSHOT", messages: [] }, { type: "RAW", event: 1 }, custom, finished]),
    ).toBeUndefined();
  });
});

describe("EventVerifier: one test per rule", () => {
  it("run-started-first: the first event must be RUN_STARTED or RUN_ERROR", () => {
    const error = expectViolation([msgStart("m")], "run-started-first", 0);
    expect(error.message).toContain("TEXT_MESSAGE_START");
    expect(error.message).toContain("expected RUN_STARTED (or a lone RUN_ERROR) as the first event");
    expectViolation([finished], "run-started-first", 0);
    expectViolation([custom, failed], "run-started-first", 0);
  });

  it("run-started-first: nothing but RUN_STARTED or RUN_ERROR after RUN_FINISHED", () => {
    expectViolation([started, finished, custom], "run-started-first", 2);
    expectViolation([started, finished, finished], "run-started-first", 2);
    expectViolation([started, finished, failed, msgStart("m")], "run-started-first", 3);
  });

  it("run-started-first: nothing but RUN_STARTED after RUN_ERROR, not even another RUN_ERROR", () => {
    expectViolation([started, failed, msgContent("m")], "run-started-first", 2);
    const error = expectViolation([started, failed, failed], "run-started-first", 2);
    expect(error.message).toContain("after the run ended with RUN_ERROR");
    expectViolation([failed, failed], "run-started-first", 1);
    expectViolation([failed, finished], "run-started-first", 1);
  });

  it("run-already-started: runs do not nest", () => {
    expectViolation([started, custom, started], "run-already-started", 2);
  });

  it("message-already-started: a second START for an open messageId", () => {
    const error = expectViolation([started, msgStart("m"), msgContent("m"), msgStart("m")], "message-already-started", 3);
    expect(error.message).toContain('"m"');
  });

  it("message-not-started: CONTENT without an open START", () => {
    expectViolation([started, msgContent("m")], "message-not-started", 1);
    expectViolation([started, msgStart("a"), msgContent("b")], "message-not-started", 2);
  });

  it("message-not-started: END without an open START, or after its END", () => {
    expectViolation([started, msgEnd("m")], "message-not-started", 1);
    expectViolation([started, msgStart("m"), msgEnd("m"), msgContent("m")], "message-not-started", 3);
  });

  it("tool-call-already-started: a second START for an open toolCallId", () => {
    expectViolation([started, toolStart("c"), toolStart("c")], "tool-call-already-started", 2);
  });

  it("tool-call-not-started: ARGS or END without an open START", () => {
    expectViolation([started, toolArgs("c")], "tool-call-not-started", 1);
    expectViolation([started, toolStart("c"), toolEnd("c"), toolEnd("c")], "tool-call-not-started", 3);
  });

  it("step-already-started: a second STEP_STARTED for an open stepName", () => {
    expectViolation([started, stepStart("s"), stepStart("s")], "step-already-started", 2);
  });

  it("step-not-started: STEP_FINISHED without an open STEP_STARTED", () => {
    expectViolation([started, stepStart("a"), stepEnd("b")], "step-not-started", 2);
  });

  it("run-finished-with-open-items: RUN_FINISHED while a message is open", () => {
    const error = expectViolation([started, msgStart("m"), finished], "run-finished-with-open-items", 2);
    expect(error.message).toContain('messages "m"');
  });

  it("run-finished-with-open-items: RUN_FINISHED while a tool call or step is open, naming each", () => {
    expectViolation([started, toolStart("c"), finished], "run-finished-with-open-items", 2);
    const error = expectViolation([started, stepStart("s"), toolStart("c"), finished], "run-finished-with-open-items", 3);
    expect(error.message).toContain('tool calls "c"');
    expect(error.message).toContain('steps "s"');
  });

  it("truncated_stream: the source ends inside a run", () => {
    expectTruncated([started]);
    expectTruncated([started, msgStart("m"), msgContent("m")]);
    expectTruncated([started, finished, started]);
  });

  it("truncated_stream: the source ends without any run", () => {
    expectTruncated([]);
  });

  it("truncated_stream: a lone RUN_ERROR then a run that does not end", () => {
    expectTruncated([failed, started]);
  });
});

describe("EventVerifier: content repeating the last event's item (checked at once)", () => {
  const reasoningStart = { type: "REASONING_MESSAGE_START", messageId: "m", role: "reasoning" } as const;
  const reasoningContent = { type: "REASONING_MESSAGE_CONTENT", messageId: "m", delta: "x" } as const;
  const subagent = (subagentRunId: string) => ({ type: "SUBAGENT_STARTED", subagentRunId, name: "s" }) as const;

  it("accepts runs of content for one item, interleaved with other events", () => {
    const m = msgContent("m");
    const a = toolArgs("c");
    expect(check([started, msgStart("m"), m, m, m, toolStart("c"), a, a, m, a, custom, a, msgEnd("m"), toolEnd("c"), finished])).toBeUndefined();
  });

  it("fails content after its item closed, right after content of it", () => {
    expectViolation([started, msgStart("m"), msgContent("m"), msgEnd("m"), msgContent("m")], "message-not-started", 4);
    expectViolation([started, toolStart("c"), toolArgs("c"), toolEnd("c"), toolArgs("c")], "tool-call-not-started", 4);
  });

  it("fails content of an item a failed run left open, in the next run", () => {
    expectViolation([started, msgStart("m"), msgContent("m"), failed, msgContent("m")], "run-started-first", 4);
    expectViolation([started, msgStart("m"), msgContent("m"), failed, started, msgContent("m")], "message-not-started", 5);
  });

  it("fails content of another kind with the same id", () => {
    expectViolation([started, msgStart("m"), msgContent("m"), reasoningContent], "reasoning-message-not-started", 3);
    expect(check([started, msgStart("m"), reasoningStart, msgContent("m"), reasoningContent, msgContent("m"), { type: "REASONING_MESSAGE_END", messageId: "m" }, msgEnd("m"), finished])).toBeUndefined();
  });

  it("checks the owner of content naming a subagentRunId, right after content of the same item", () => {
    const error = check([started, subagent("s"), msgStart("m"), msgContent("m"), { ...msgContent("m"), subagentRunId: "s" }]);
    expect((error as ProtocolViolationError).rule).toBe("subagent-mismatch");
    expect((error as ProtocolViolationError).index).toBe(4);
  });
});

describe("verifyEvents", () => {
  it("passes a valid stream through unchanged", async () => {
    const events = [...sampleRun({ threadId: "t", runId: "r" })].map((e) => parseEvent(e));
    const out: AguiEvent[] = [];
    for await (const event of verifyEvents(from(events))) out.push(event);
    expect(out).toEqual(events);
  });

  it("throws at the first violation, after the events before it, and returns the source", async () => {
    let returned = false;
    async function* source() {
      try {
        yield* from([started, msgContent("m"), finished]);
      } finally {
        returned = true;
      }
    }
    const out: AguiEvent[] = [];
    await expect(
      (async () => {
        for await (const event of verifyEvents(source())) out.push(event);
      })(),
    ).rejects.toMatchObject({ code: "protocol_violation", rule: "message-not-started", index: 1 });
    expect(out.map((e) => e.type)).toEqual(["RUN_STARTED"]);
    expect(returned).toBe(true);
  });

  it("throws truncated_stream when the source ends inside a run", async () => {
    const out: AguiEvent[] = [];
    await expect(
      (async () => {
        for await (const event of verifyEvents(from([started, custom]))) out.push(event);
      })(),
    ).rejects.toMatchObject({ code: "truncated_stream" });
    expect(out).toHaveLength(2);
  });

  it("passes a stream of only a RUN_ERROR through, and ends without an error", async () => {
    const out: AguiEvent[] = [];
    for await (const event of verifyEvents(from([failed]))) out.push(event);
    expect(out).toEqual([parseEvent(failed)]);
  });

  it("passes the source's own error through unchanged", async () => {
    const boom = new Error("boom");
    async function* source() {
      yield parseEvent(started);
      throw boom;
    }
    await expect((async () => {
      for await (const _ of verifyEvents(source()));
    })()).rejects.toBe(boom);
  });

  it("returns the source when the consumer stops early", async () => {
    let returned = false;
    async function* source() {
      try {
        yield* from([started, custom, finished]);
      } finally {
        returned = true;
      }
    }
    for await (const _ of verifyEvents(source())) break;
    expect(returned).toBe(true);
  });
});
