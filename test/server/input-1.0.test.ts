/**
 * The request body of AG-UI 1.0, end to end through both handlers on real HTTP: every 1.0 field a
 * client sends reaches the agent exactly as sent (protocolVersion, parentRunId, resume, multimodal
 * content, reasoning and activity messages, metadata, encryptedValue, subagentRunId), 1.0's
 * defaults are filled in, and a body with a fault gets a 422 naming the path, what was expected and
 * what was found. `@ag-ui/client` 1.0's HttpAgent, the reference client, is one of the senders.
 */
import { HttpAgent, type Message as TheirMessage, type RunAgentInput as TheirRunAgentInput } from "@ag-ui/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventType, type AguiEvent, type AguiEventInput, type RunAgentInput } from "../../src/index.js";
import { createNodeHandler } from "../../src/server/index.js";
import { BINARY, HANDLERS, SSE, listen, parsingBody, post, readEvents, type Served } from "./helpers.js";

/** A body that uses every field 1.0 adds to a run request, at every level. */
const FULL_BODY = {
  threadId: "thread-1.0",
  runId: "run-full",
  protocolVersion: "1.0",
  parentRunId: "run-parent",
  state: { city: "Lisbon", nested: { list: [1, 2.5, "x", null, true] } },
  messages: [
    { id: "dev", role: "developer", content: "Be brief.", name: "ops", encryptedValue: "enc-dev", metadata: { source: "config" } },
    { id: "sys", role: "system", content: "You are a helper.", metadata: { v: 2 } },
    {
      id: "u1",
      role: "user",
      name: "ana",
      encryptedValue: "enc-user",
      subagentRunId: "sub-1",
      metadata: { client: { locale: "pt-PT" } },
      content: [
        { type: "text", text: "What is in these?", id: "part-1", metadata: { lang: "en" } },
        { type: "image", source: { type: "url", value: "https://example.com/a.png", mimeType: "image/png" }, id: "part-2" },
        { type: "audio", source: { type: "data", value: "UklGRg==", mimeType: "audio/wav" }, metadata: ["any", "json"] },
        { type: "video", source: { type: "url", value: "https://example.com/v.mp4" } },
        { type: "document", source: { type: "file", value: "file-abc", provider: "openai", mimeType: "application/pdf" }, metadata: "a string" },
        { type: "text", text: "" },
      ],
    },
    { id: "u2", role: "user", content: "plain text still works" },
    { id: "think", role: "reasoning", content: "The user wants a description.", encryptedValue: "enc-reasoning", metadata: { model: "r1" } },
    { id: "act", role: "activity", activityType: "PLAN", content: { steps: [{ title: "look", done: false }] }, subagentRunId: "sub-1", metadata: { pinned: true } },
    {
      id: "a1",
      role: "assistant",
      content: "Looking.",
      name: "helper",
      encryptedValue: "enc-assistant",
      subagentRunId: "sub-1",
      metadata: { turn: 1 },
      toolCalls: [
        { id: "call-1", type: "function", function: { name: "describe", arguments: '{"n":1}' }, encryptedValue: "enc-call", metadata: { cost: 0.5 } },
      ],
    },
    { id: "a2", role: "assistant" },
    {
      id: "t1",
      role: "tool",
      toolCallId: "call-1",
      content: [{ type: "text", text: "a cat" }, { type: "image", source: { type: "data", value: "iVBO", mimeType: "image/png" } }],
      error: "partly failed",
      encryptedValue: "enc-tool",
      subagentRunId: "sub-1",
      metadata: { ms: 12 },
    },
    { id: "t2", role: "tool", toolCallId: "call-1", content: "" },
  ],
  tools: [
    { name: "describe", description: "Describes media", parameters: { type: "object", properties: { n: { type: "number" } } }, metadata: { owner: "ui" } },
    { name: "noParams", description: "" },
    { name: "schemaAsBoolean", description: "any JSON but null", parameters: true },
  ],
  context: [{ description: "time zone", value: "Europe/Lisbon" }],
  forwardedProps: { trace: "abc", flags: [1, 2] },
  resume: [
    { interruptId: "int-1", status: "resolved", payload: { approved: true, note: "ok" }, metadata: { by: "ana" } },
    { interruptId: "int-2", status: "cancelled" },
    { interruptId: "int-3", status: "resolved", payload: 0 },
  ],
};

/** What the agent saw of each run, by run id. */
const seen = new Map<string, RunAgentInput>();

/** An agent that records its input and echoes it back in a CUSTOM event, so the client can compare. */
function* echoAgent(input: RunAgentInput): Generator<AguiEventInput> {
  seen.set(input.runId, input);
  yield { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId };
  yield { type: EventType.CUSTOM, name: "input", value: input as never };
  yield { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId };
}

/** The value of the echo's CUSTOM event. */
function echoed(events: AguiEvent[]): unknown {
  const custom = events.find((e) => e.type === EventType.CUSTOM);
  return custom?.type === EventType.CUSTOM ? custom.value : undefined;
}

/** POSTs `body`, expects a 422, and returns its `error`. */
async function rejection(url: string, body: unknown): Promise<string> {
  const response = await post(url, body, SSE);
  expect(response.status).toBe(422);
  expect(response.headers.get("content-type")).toBe("application/json");
  return ((await response.json()) as { error: string }).error;
}

/** A minimal valid body with `extra` merged in. */
const body = (extra: Record<string, unknown>) => ({ threadId: "t", runId: "r-bad", messages: [], ...extra });
/** A body with one message. */
const withMessage = (message: Record<string, unknown>) => body({ messages: [message] });

/**
 * Faults in the 1.0 fields, and the 422 each must get: the path, what was expected, what was found.
 * Only malformed known values: a member of unknown kind (a content part of a new type) is stripped
 * rather than refused, as AG-UI 1.1 has a producer do (test/server/versions.test.ts).
 */
const FAULTS: { fault: string; body: unknown; error: string }[] = [
  {
    fault: "a text part without text",
    body: withMessage({ id: "u", role: "user", content: [{ type: "text" }] }),
    error: "invalid RunAgentInput: messages[0].content[0].text: expected string, found nothing",
  },
  {
    fault: "a data source without its mimeType",
    body: withMessage({ id: "u", role: "user", content: [{ type: "image", source: { type: "data", value: "AAAA" } }] }),
    error: "invalid RunAgentInput: messages[0].content[0].source.mimeType: expected string, found nothing",
  },
  {
    fault: "user content that is neither a string nor a list of parts",
    body: withMessage({ id: "u", role: "user", content: 42 }),
    error: "invalid RunAgentInput: messages[0].content: expected string or array, found 42",
  },
  {
    fault: "a resume entry with status \"maybe\"",
    body: body({ resume: [{ interruptId: "i1", status: "maybe" }] }),
    error: 'invalid RunAgentInput: resume[0].status: expected "resolved" or "cancelled", found "maybe"',
  },
  {
    fault: "a resume entry without its interruptId",
    body: body({ resume: [{ interruptId: "i1", status: "resolved" }, { status: "cancelled" }] }),
    error: "invalid RunAgentInput: resume[1].interruptId: expected string, found nothing",
  },
  {
    fault: "a resume entry whose payload is null",
    body: body({ resume: [{ interruptId: "i1", status: "resolved", payload: null }] }),
    error: "invalid RunAgentInput: resume[0].payload: expected a JSON value other than null, found null",
  },
  {
    fault: "resume that is not a list",
    body: body({ resume: { interruptId: "i1", status: "resolved" } }),
    error: "invalid RunAgentInput: resume: expected array, found an object",
  },
  {
    fault: "a tool whose parameters are null",
    body: body({ tools: [{ name: "f", description: "d", parameters: null }] }),
    error: "invalid RunAgentInput: tools[0].parameters: expected a JSON value other than null, found null",
  },
  {
    fault: "a tool whose metadata is not an object",
    body: body({ tools: [{ name: "f", description: "d", metadata: "x" }] }),
    error: 'invalid RunAgentInput: tools[0].metadata: expected a JSON object, found "x"',
  },
  {
    fault: "a protocolVersion that is not a string",
    body: body({ protocolVersion: 1 }),
    error: "invalid RunAgentInput: protocolVersion: expected string, found 1",
  },
  {
    fault: "a parentRunId that is null",
    body: body({ parentRunId: null }),
    error: "invalid RunAgentInput: parentRunId: expected string, found null",
  },
  {
    fault: "an activity message whose content is a list",
    body: withMessage({ id: "a", role: "activity", activityType: "PLAN", content: [] }),
    error: "invalid RunAgentInput: messages[0].content: expected a JSON object, found an array",
  },
  {
    fault: "an activity message without its activityType",
    body: withMessage({ id: "a", role: "activity", content: {} }),
    error: "invalid RunAgentInput: messages[0].activityType: expected string, found nothing",
  },
  {
    fault: "a reasoning message whose content is parts",
    body: withMessage({ id: "r", role: "reasoning", content: [{ type: "text", text: "hm" }] }),
    error: "invalid RunAgentInput: messages[0].content: expected string, found an array",
  },
  {
    fault: "message metadata that is a list",
    body: withMessage({ id: "u", role: "user", content: "x", metadata: [1] }),
    error: "invalid RunAgentInput: messages[0].metadata: expected a JSON object, found an array",
  },
  {
    fault: "an encryptedValue that is not a string",
    body: withMessage({ id: "u", role: "user", content: "x", encryptedValue: { k: 1 } }),
    error: "invalid RunAgentInput: messages[0].encryptedValue: expected string, found an object",
  },
  {
    fault: "a subagentRunId that is null",
    body: withMessage({ id: "s", role: "system", content: "x", subagentRunId: null }),
    error: "invalid RunAgentInput: messages[0].subagentRunId: expected string, found null",
  },
  {
    fault: "a tool call whose metadata is a number",
    body: withMessage({ id: "a", role: "assistant", toolCalls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" }, metadata: 3 }] }),
    error: "invalid RunAgentInput: messages[0].toolCalls[0].metadata: expected a JSON object, found 3",
  },
];

describe.each(HANDLERS)("1.0 request bodies through $name", ({ serve }) => {
  let served: Served;
  beforeAll(async () => {
    served = await serve(echoAgent);
  });
  afterAll(() => served.close());

  describe.each([
    { transport: "SSE", accept: SSE },
    { transport: "binary", accept: BINARY },
  ])("over $transport", ({ accept }) => {
    it("passes every 1.0 field to the agent exactly as sent", async () => {
      const runId = `run-full-${accept}`;
      const sent = { ...FULL_BODY, runId };
      const response = await post(served.url, sent, accept);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe(accept);
      const events = await readEvents(response);
      // Nothing dropped, nothing added: the request's own object, key for key.
      expect(seen.get(runId)).toStrictEqual(sent);
      expect(echoed(events)).toStrictEqual(sent);
    });

    it("gives a body of only threadId, runId and messages 1.0's defaults: tools [] and context []", async () => {
      const runId = `run-minimal-${accept}`;
      const sent = { threadId: "t-min", runId, messages: [{ id: "u", role: "user", content: [{ type: "text", text: "hi" }] }] };
      const events = await readEvents(await post(served.url, sent, accept));
      expect(seen.get(runId)).toStrictEqual({ ...sent, tools: [], context: [] });
      expect(echoed(events)).toStrictEqual({ ...sent, tools: [], context: [] });
    });
  });

  it.each(FAULTS)("answers $fault with a 422 naming the path, what was expected and what was found", async ({ body, error }) => {
    expect(await rejection(served.url, body)).toBe(error);
  });

  it("names each fault of a body with several, in order", async () => {
    const error = await rejection(
      served.url,
      body({
        protocolVersion: 1,
        messages: [{ id: "u", role: "user", content: [{ type: "text" }] }],
        resume: [{ interruptId: "i", status: "maybe" }],
      }),
    );
    expect(error).toBe(
      "invalid RunAgentInput: protocolVersion: expected string, found 1; " +
        "messages[0].content[0].text: expected string, found nothing; " +
        'resume[0].status: expected "resolved" or "cancelled", found "maybe"',
    );
  });
});

describe("1.0 request bodies parsed by a framework (Express's req.body)", () => {
  let served: Served;
  beforeAll(async () => {
    served = await listen(parsingBody(createNodeHandler(echoAgent)));
  });
  afterAll(() => served.close());

  it("passes every 1.0 field to the agent exactly as parsed", async () => {
    const sent = { ...FULL_BODY, runId: "run-full-parsed" };
    const events = await readEvents(await post(served.url, sent, BINARY));
    expect(seen.get("run-full-parsed")).toStrictEqual(sent);
    expect(echoed(events)).toStrictEqual(sent);
  });

  it("answers a 1.0 fault with the same 422", async () => {
    const { body, error } = FAULTS.find((f) => f.fault.startsWith("a resume entry with status"))!;
    expect(await rejection(served.url, body)).toBe(error);
  });
});

/** HttpAgent that asks for the binary transport: a subclass overriding requestInit is the only way. */
class BinaryHttpAgent extends HttpAgent {
  protected override requestInit(input: TheirRunAgentInput): RequestInit {
    const init = super.requestInit(input);
    return { ...init, headers: { ...(init.headers as Record<string, string>), Accept: BINARY } };
  }
}

/**
 * An agent that records its input; its first run of a thread asks for an approval (a RUN_FINISHED
 * with an interrupt outcome) and its second, given `resume`, finishes.
 */
function* interruptingAgent(input: RunAgentInput): Generator<AguiEventInput> {
  seen.set(input.runId, input);
  const { threadId, runId } = input;
  yield { type: EventType.RUN_STARTED, threadId, runId };
  if (input.resume === undefined) {
    yield { type: EventType.TEXT_MESSAGE_START, messageId: `${runId}-m`, role: "assistant" };
    yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId: `${runId}-m`, delta: "May I?" };
    yield { type: EventType.TEXT_MESSAGE_END, messageId: `${runId}-m` };
    yield {
      type: EventType.RUN_FINISHED,
      threadId,
      runId,
      outcome: { type: "interrupt", interrupts: [{ id: "approve-1", reason: "tool_approval", message: "Delete the file?" }] },
    };
    return;
  }
  yield { type: EventType.CUSTOM, name: "input", value: input as never };
  yield { type: EventType.RUN_FINISHED, threadId, runId, result: { done: true } };
}

describe.each(HANDLERS)("what @ag-ui/client 1.0's HttpAgent POSTs reaches the agent through $name", ({ serve }) => {
  let served: Served;
  beforeAll(async () => {
    served = await serve(interruptingAgent);
  });
  afterAll(() => served.close());

  describe.each([
    { transport: "SSE", make: (url: string, fetch: typeof globalThis.fetch) => new HttpAgent({ url, fetch, threadId: `t-sse-${url}` }) },
    { transport: "binary", make: (url: string, fetch: typeof globalThis.fetch) => new BinaryHttpAgent({ url, fetch, threadId: `t-bin-${url}` }) },
  ])("over $transport", ({ transport, make }) => {
    it("protocolVersion, messages, tools, context, state and, after an interrupt, resume", async () => {
      /** The JSON bodies HttpAgent sent, in order. */
      const posted: Record<string, unknown>[] = [];
      const contentTypes: (string | null)[] = [];
      const recording = (async (url: string, init: RequestInit) => {
        posted.push(JSON.parse(init.body as string) as Record<string, unknown>);
        const response = await fetch(url, init);
        contentTypes.push(response.headers.get("content-type"));
        return response;
      }) as typeof globalThis.fetch;
      const agent = make(served.url, recording);
      const user: TheirMessage = {
        id: "u1",
        role: "user",
        content: [
          { type: "text", text: "Delete it" },
          { type: "image", source: { type: "url", value: "https://example.com/f.png", mimeType: "image/png" } },
        ],
        metadata: { from: "test" },
      };
      agent.addMessage(user);
      agent.setState({ step: 1 });
      const tools = [{ name: "delete", description: "Deletes a file", parameters: { type: "object" }, metadata: { danger: true } }];
      const context = [{ description: "cwd", value: "/tmp" }];

      const first = await agent.runAgent({ runId: `r1-${transport}`, tools, context, forwardedProps: { via: "test" } });
      expect(first.result).toBeUndefined();
      expect(agent.pendingInterrupts.map((i) => i.id)).toEqual(["approve-1"]);
      // Their client refuses to run again without answering the interrupt, before any request.
      await expect(agent.runAgent({ runId: `r-refused-${transport}` })).rejects.toThrow(/approve-1/);
      expect(posted).toHaveLength(1);

      const resume = [{ interruptId: "approve-1", status: "resolved" as const, payload: { approved: true }, metadata: { by: "ana" } }];
      let echo: unknown;
      const second = await agent.runAgent({ runId: `r2-${transport}`, resume }, { onCustomEvent: ({ event }) => void (echo = event.value) });
      expect(second.result).toEqual({ done: true });
      expect(agent.pendingInterrupts).toEqual([]);

      expect(contentTypes).toEqual(transport === "SSE" ? [SSE, SSE] : [BINARY, BINARY]);
      expect(posted).toHaveLength(2);
      // What HttpAgent 1.0 adds: the protocol version on every run, and resume on the answer.
      expect(posted[0]).toMatchObject({ protocolVersion: "1.0", tools, context, state: { step: 1 }, messages: [user] });
      expect(posted[0]).not.toHaveProperty("resume");
      expect(posted[1]).toMatchObject({ protocolVersion: "1.0", resume });
      // The agent saw each body exactly as HttpAgent posted it.
      expect(seen.get(`r1-${transport}`)).toStrictEqual(posted[0]);
      expect(seen.get(`r2-${transport}`)).toStrictEqual(posted[1]);
      // And the second run's echo of its input came back to the client as it was posted.
      expect(echo).toStrictEqual(posted[1]);
      expect(agent.messages.map((m) => m.id)).toEqual(["u1", `r1-${transport}-m`]);
    });
  });
});
