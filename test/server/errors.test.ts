/**
 * A run that fails after the stream has opened: one RUN_ERROR in the client's transport, nothing
 * after it, the real error to onError, nothing internal to the client.
 */
import { IncomingMessage } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EventType, ValidationError, decodeEventStream, type AguiEvent, type AguiEventInput, type RunAgentInput } from "../../src/index.js";
import type { RunContext } from "../../src/agent/contract.js";
import { BINARY, HANDLERS, SSE, post, runInput, waitFor, type Served } from "./helpers.js";

const SECRET = "password=hunter2";

interface Probe {
  finallyRan: boolean;
  aborted: boolean;
  producedAfter: boolean;
}
const probe: Probe = { finallyRan: false, aborted: false, producedAfter: false };
const errors: { error: unknown; context: { input: RunAgentInput; request: unknown } }[] = [];

/** One agent, whose behaviour the test picks with the run id. */
async function* agent(input: RunAgentInput, { signal }: RunContext): AsyncGenerator<AguiEventInput> {
  signal.addEventListener("abort", () => (probe.aborted = true));
  const { threadId, runId } = input;
  try {
    if (runId === "rejects-first") throw new Error(`failed before the first event: ${SECRET}`);
    yield { type: EventType.RUN_STARTED, threadId, runId };
    yield { type: EventType.TEXT_MESSAGE_START, messageId: "m", role: "assistant" };
    switch (runId) {
      case "throws":
        throw new Error(`database unreachable: ${SECRET}`);
      case "throws-non-error":
        throw { detail: SECRET };
      case "invalid":
        yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m", delta: "" };
        break;
      case "wrong-field":
        yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId: 7, delta: SECRET } as unknown as AguiEventInput;
        break;
      case "unknown-type":
        yield { type: "THOUGHT", secret: SECRET } as unknown as AguiEventInput;
        break;
    }
    probe.producedAfter = true;
    yield { type: EventType.TEXT_MESSAGE_END, messageId: "m" };
    yield { type: EventType.RUN_FINISHED, threadId, runId };
  } finally {
    probe.finallyRan = true;
  }
}

const CASES = [
  { runId: "throws", code: "agent_error", message: "the agent failed", before: 2, errorIs: (e: unknown) => (e as Error).message.includes("database unreachable") },
  { runId: "throws-non-error", code: "agent_error", message: "the agent failed", before: 2, errorIs: (e: unknown) => (e as { detail?: string }).detail === SECRET },
  { runId: "rejects-first", code: "agent_error", message: "the agent failed", before: 0, errorIs: (e: unknown) => (e as Error).message.startsWith("failed before") },
  { runId: "invalid", code: "invalid_event", message: "the agent yielded an invalid event", before: 2, errorIs: (e: unknown) => e instanceof ValidationError && e.code === "invalid_event" },
  { runId: "wrong-field", code: "invalid_event", message: "the agent yielded an invalid event", before: 2, errorIs: (e: unknown) => e instanceof ValidationError },
  { runId: "unknown-type", code: "invalid_event", message: "the agent yielded an invalid event", before: 2, errorIs: (e: unknown) => e instanceof ValidationError && e.code === "unknown_event_type" },
];

async function readAll(response: Response): Promise<{ text: string; events: AguiEvent[] }> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  const events: AguiEvent[] = [];
  for await (const event of decodeEventStream(
    (async function* () {
      yield bytes;
    })(),
    response.headers.get("content-type"),
  ))
    events.push(event);
  return { text: new TextDecoder().decode(bytes), events };
}

describe.each(HANDLERS)("$name", ({ name, serve }) => {
  let served: Served;
  beforeAll(async () => {
    served = await serve(agent, { onError: (error, context) => errors.push({ error, context }) });
  });
  afterAll(() => served.close());
  beforeEach(() => {
    Object.assign(probe, { finallyRan: false, aborted: false, producedAfter: false });
    errors.length = 0;
  });

  describe.each([SSE, BINARY])("over %s", (accept) => {
    it.each(CASES)("$runId: ends with RUN_ERROR $code and nothing after it", async ({ runId, code, message, before, errorIs }) => {
      const input = runInput({ runId });
      const response = await post(served.url, input, accept);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe(accept);
      const { text, events } = await readAll(response);
      expect(events).toHaveLength(before + 1);
      expect(events.at(-1)).toEqual({ type: EventType.RUN_ERROR, code, message });
      expect(events.slice(0, before).map((e) => e.type)).toEqual([EventType.RUN_STARTED, EventType.TEXT_MESSAGE_START].slice(0, before));
      expect(text).not.toContain("hunter2");
      expect(text).not.toContain("THOUGHT");
      expect(probe.producedAfter).toBe(false);
      await waitFor(() => probe.finallyRan, 2000, "the agent's finally");
      // The run ended early: the agent's signal says so.
      expect(probe.aborted).toBe(true);
      expect(errors).toHaveLength(1);
      expect(errorIs(errors[0]!.error)).toBe(true);
      expect(errors[0]!.context.input).toEqual(input);
      expect(errors[0]!.context.request).toBeInstanceOf(name === "createNodeHandler" ? IncomingMessage : Request);
    });
  });

  it("does not abort the signal of a run that finishes normally, nor call onError", async () => {
    const response = await post(served.url, runInput({ runId: "ok" }), SSE);
    const { events } = await readAll(response);
    expect(events.at(-1)?.type).toBe(EventType.RUN_FINISHED);
    expect(probe.finallyRan).toBe(true);
    expect(probe.aborted).toBe(false);
    expect(errors).toEqual([]);
  });

  it("still ends the stream with RUN_ERROR when onError itself throws", async () => {
    const local = await serve(agent, {
      onError: () => {
        throw new Error("the error hook broke");
      },
    });
    try {
      const { events } = await readAll(await post(local.url, runInput({ runId: "throws" }), BINARY));
      expect(events.at(-1)).toEqual({ type: EventType.RUN_ERROR, code: "agent_error", message: "the agent failed" });
    } finally {
      await local.close();
    }
  });

  it("answers RUN_ERROR when the agent returns something that is not events", async () => {
    const local = await serve(() => 42 as never, { onError: (error, context) => errors.push({ error, context }) });
    try {
      const { events } = await readAll(await post(local.url, runInput(), SSE));
      expect(events).toEqual([{ type: EventType.RUN_ERROR, code: "agent_error", message: "the agent failed" }]);
      expect(errors[0]!.error).toBeInstanceOf(TypeError);
    } finally {
      await local.close();
    }
  });
});
