/**
 * `HttpAgent.runAgent` over real HTTP on 127.0.0.1: how each way a run can fail reaches the
 * caller (our typed error, the same object `onRunFailed` was given, then `onRunFinalized`),
 * cancelling a run, and a whole front-end program written for `@ag-ui/client` 1.0 that runs
 * against our server with only the import changed, its transcript equal to theirs.
 */
import type * as TheirModule from "@ag-ui/client";
import * as theirLib from "@ag-ui/client";
import { describe, expect, it } from "vitest";
import { AguiWireError, HttpAgent, HttpStatusError, ProtocolViolationError, type AgentSubscriber } from "../../src/client/index.js";
import { BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE, ValidationError, encodeSSE, type AguiEventInput, type RunAgentInput, type RunContext } from "../../src/index.js";
import { createNodeHandler } from "../../src/server/index.js";
import { answer, closedPortUrl, listen, serveAgent, trackServers } from "./helpers.js";

const track = trackServers();

const started: AguiEventInput = { type: "RUN_STARTED", threadId: "t", runId: "r" };
const msgStart: AguiEventInput = { type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant" };
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

/** A subscriber recording the lifecycle of a run and the error `onRunFailed` was given. */
function lifecycle(stop = false) {
  const calls: string[] = [];
  const errors: Error[] = [];
  const subscriber: AgentSubscriber = {
    onRunInitialized: () => void calls.push("initialized"),
    onRunFailed: ({ error }) => {
      calls.push("failed");
      errors.push(error);
      // The type (theirs' too) leaves stopPropagation out of onRunFailed's return, but both
      // honour it at run time, and runAgent's documentation promises it.
      return (stop ? { stopPropagation: true } : undefined) as never;
    },
    onRunFinalized: () => void calls.push("finalized"),
  };
  return { calls, errors, subscriber };
}

/**
 * Runs `agent` and expects the run to reject with an `AguiWireError` of `code`, the very error
 * `onRunFailed` got, with `onRunFinalized` after it.
 */
async function expectFailure(agent: HttpAgent, code: string, params: Parameters<HttpAgent["runAgent"]>[0] = {}): Promise<AguiWireError> {
  const { calls, errors, subscriber } = lifecycle();
  const error = await agent.runAgent({ runId: "r", ...params }, subscriber).then(
    () => expect.fail("runAgent resolved"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AguiWireError);
  expect(error).toMatchObject({ code });
  expect(errors).toHaveLength(1);
  expect(errors[0]).toBe(error);
  expect(calls).toEqual(["initialized", "failed", "finalized"]);
  expect(agent.isRunning).toBe(false);
  return error as AguiWireError;
}

/** An agent of our server that yields `events`, then waits for its signal; `aborted` resolves when it fires. */
function hangingAgent(events: (input: RunAgentInput) => AguiEventInput[]) {
  let fired!: () => void;
  const aborted = new Promise<void>((resolve) => (fired = resolve));
  const agent = async function* (input: RunAgentInput, { signal }: RunContext) {
    yield* events(input);
    await new Promise((resolve) => signal.addEventListener("abort", resolve));
    fired();
  };
  return { agent, aborted };
}

describe("runAgent failures over HTTP: a typed rejection, the same error in onRunFailed, then onRunFinalized", () => {
  it("HTTP 500 (http_status, an HttpStatusError with the body)", async () => {
    const server = await track(listen(answer(500, "application/json", ['{"error":"upstream exploded"}'])));
    const error = await expectFailure(new HttpAgent({ url: server.url, threadId: "t" }), "http_status");
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error).toMatchObject({ status: 500, body: { error: "upstream exploded" } });
  });

  it("HTTP 422 from our server for an input it refuses (http_status)", async () => {
    const server = await track(serveAgent(() => []));
    const agent = new HttpAgent({ url: server.url, threadId: "t" });
    const error = await expectFailure(agent, "http_status", { tools: [{ name: 42 }] as never });
    expect(error).toBeInstanceOf(HttpStatusError);
    expect((error as HttpStatusError).status).toBe(422);
  });

  it("nothing listening (network_error)", async () => {
    await expectFailure(new HttpAgent({ url: await closedPortUrl(), threadId: "t" }), "network_error");
  });

  for (const transport of ["binary", "sse"] as const) {
    it(`our server's agent stops before its run ends (truncated_stream, ${transport}); theirs would resolve`, async () => {
      const server = await track(serveAgent((input: RunAgentInput) => [{ ...started, threadId: input.threadId, runId: input.runId }, msgStart]));
      const agent = new HttpAgent({ url: server.url, threadId: "t", transport });
      await expectFailure(agent, "truncated_stream");
      // What arrived before the cut was applied.
      expect(agent.messages).toEqual([{ id: "m", role: "assistant", content: "" }]);
    });
  }

  it("an event that is not valid (invalid_event, a ValidationError)", async () => {
    const server = await track(listen(answer(200, SSE_MEDIA_TYPE, [encodeSSE(started), 'data: {"type":"TEXT_MESSAGE_START"}\n\n'])));
    const error = await expectFailure(new HttpAgent({ url: server.url, threadId: "t" }), "invalid_event");
    expect(error).toBeInstanceOf(ValidationError);
  });

  it("our server's agent breaks the protocol: content for a message never started (protocol_violation)", async () => {
    const server = await track(
      serveAgent((input: RunAgentInput) => [
        { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId },
        { type: "TEXT_MESSAGE_CONTENT", messageId: "nope", delta: "x" },
        { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId },
      ]),
    );
    const error = await expectFailure(new HttpAgent({ url: server.url, threadId: "t" }), "protocol_violation");
    expect(error).toBeInstanceOf(ProtocolViolationError);
  });

  it("a subscriber returning stopPropagation from onRunFailed makes runAgent resolve", async () => {
    const server = await track(listen(answer(500, "text/plain", ["down"])));
    const { calls, errors, subscriber } = lifecycle(true);
    const agent = new HttpAgent({ url: server.url });
    await expect(agent.runAgent({}, subscriber)).resolves.toEqual({ result: undefined, newMessages: [] });
    expect(calls).toEqual(["initialized", "failed", "finalized"]);
    expect(errors[0]).toMatchObject({ code: "http_status", status: 500, body: "down" });
  });
});

describe("cancelling an HTTP run", () => {
  it("runAgent({ abortController }): aborting it cancels the run, the server-side agent's signal fires, runAgent resolves", async () => {
    const { agent, aborted } = hangingAgent((input) => [{ type: "RUN_STARTED", threadId: input.threadId, runId: input.runId }, msgStart, { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "thinking" }]);
    const server = await track(serveAgent(agent));
    const client = new HttpAgent({ url: server.url });
    const { calls, errors, subscriber } = lifecycle();
    let content!: () => void;
    const seen = new Promise<void>((resolve) => (content = resolve));
    const controller = new AbortController();
    const running = client.runAgent({ abortController: controller }, { ...subscriber, onTextMessageContentEvent: () => content() });
    await seen;
    expect(client.abortController).toBe(controller);
    expect(client.isRunning).toBe(true);
    controller.abort();
    await expect(running).resolves.toEqual({ result: undefined, newMessages: [{ id: "m", role: "assistant", content: "thinking" }] });
    await aborted;
    expect(client.isRunning).toBe(false);
    expect(calls).toEqual(["initialized", "failed", "finalized"]);
    expect(errors[0]).toBeInstanceOf(AguiWireError);
    expect(errors[0]).toMatchObject({ code: "aborted" });
  });

  it("abortRun() mid-run: both libraries resolve with the same result and messages; theirs reports a RUN_ERROR event, ours onRunFailed", async () => {
    const outcomes: { result: unknown; calls: string[]; messages: unknown }[] = [];
    for (const lib of [theirLib, { HttpAgent }] as const) {
      const { agent, aborted } = hangingAgent((input) => [{ type: "RUN_STARTED", threadId: input.threadId, runId: input.runId }, msgStart, { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "partial" }]);
      const server = await track(serveAgent(agent));
      const client = new lib.HttpAgent({ url: server.url }) as unknown as HttpAgent;
      const { calls, subscriber } = lifecycle();
      let content!: () => void;
      const seen = new Promise<void>((resolve) => (content = resolve));
      const running = client.runAgent({}, {
        ...subscriber,
        onTextMessageContentEvent: () => content(),
        onRunErrorEvent: ({ event }) => void calls.push(`RUN_ERROR ${event.code}`),
      });
      await seen;
      client.abortRun();
      const result = await running;
      await aborted;
      await settle();
      outcomes.push({ result, calls, messages: structuredClone(client.messages) });
    }
    const [theirs, ours] = outcomes;
    expect(ours!.result).toEqual(theirs!.result);
    expect(ours!.messages).toEqual(theirs!.messages);
    expect(ours!.messages).toEqual([{ id: "m", role: "assistant", content: "partial" }]);
    // Theirs' HTTP stream turns an AbortError into a synthetic RUN_ERROR event (code "abort");
    // ours fails the run with an aborted AguiWireError, heard by onRunFailed, and resolves.
    expect(theirs!.calls).toEqual(["initialized", "RUN_ERROR abort", "finalized"]);
    expect(ours!.calls).toEqual(["initialized", "failed", "finalized"]);
  });
});

// --- a program written for @ag-ui/client 1.0 -----------------------------------------------------

/**
 * The weather agent our server serves: the first turn says something, calls a tool (parented on
 * its message), gets the result, sets state by snapshot and delta and finishes with a result; the
 * second turn answers the user's thanks, naming the tools and context it was given.
 */
function weatherAgent(input: RunAgentInput): AguiEventInput[] {
  const { threadId, runId } = input;
  const users = input.messages.filter((m) => m.role === "user").length;
  const offered = `${input.tools.map((t) => t.name).join(",")}|${input.context.map((c) => c.value).join(",")}`;
  if (users === 1) {
    return [
      { type: "RUN_STARTED", threadId, runId },
      { type: "TEXT_MESSAGE_START", messageId: "say-1", role: "assistant" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "say-1", delta: "Let me " },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "say-1", delta: "check." },
      { type: "TEXT_MESSAGE_END", messageId: "say-1" },
      { type: "TOOL_CALL_START", toolCallId: "call-1", toolCallName: "get_weather", parentMessageId: "say-1" },
      { type: "TOOL_CALL_ARGS", toolCallId: "call-1", delta: '{"city":' },
      { type: "TOOL_CALL_ARGS", toolCallId: "call-1", delta: '"Lisbon"}' },
      { type: "TOOL_CALL_END", toolCallId: "call-1" },
      { type: "TOOL_CALL_RESULT", messageId: "result-1", toolCallId: "call-1", content: "sunny, 24°C" },
      { type: "STATE_SNAPSHOT", snapshot: { city: "Lisbon", lookups: 1, offered } },
      { type: "STATE_DELTA", delta: [{ op: "add", path: "/forecast", value: "sunny" }] },
      { type: "RUN_FINISHED", threadId, runId, result: { answered: true } },
    ];
  }
  return [
    { type: "RUN_STARTED", threadId, runId },
    { type: "TEXT_MESSAGE_START", messageId: `say-${users}`, role: "assistant" },
    { type: "TEXT_MESSAGE_CONTENT", messageId: `say-${users}`, delta: `You're welcome (${input.messages.length} messages; ` },
    { type: "TEXT_MESSAGE_CONTENT", messageId: `say-${users}`, delta: `state ${JSON.stringify(input.state)}).` },
    { type: "TEXT_MESSAGE_END", messageId: `say-${users}` },
    { type: "STATE_DELTA", delta: [{ op: "replace", path: "/lookups", value: 2 }] },
    { type: "RUN_FINISHED", threadId, runId, result: { turn: users } },
  ];
}

/**
 * What a typical front end does with `@ag-ui/client` 1.0, written against its types: an
 * HttpAgent with a conversation, subscribers updating a view, a run with tools and context,
 * reading the results, then a second turn after the user speaks. Returns what it logged.
 */
async function program(lib: typeof TheirModule, url: string): Promise<unknown[]> {
  const log: unknown[] = [];
  const agent = new lib.HttpAgent({ url, threadId: "thread-1", initialMessages: [{ id: "user-1", role: "user", content: "Weather in Lisbon?" }] });
  agent.subscribe({
    onTextMessageContentEvent: ({ event, textMessageBuffer }) => void log.push(["text", event.messageId, textMessageBuffer, event.delta]),
    onNewMessage: ({ message }) => void log.push(["new message", message.id, message.role]),
    onMessagesChanged: ({ messages }) => void log.push(["messages", messages.map((m) => m.id)]),
    onStateChanged: ({ state }) => void log.push(["state", structuredClone(state)]),
    onRunFinalized: ({ messages, state }) => void log.push(["finalized", messages.length, structuredClone(state)]),
  });
  const tools: TheirModule.Tool[] = [{ name: "get_weather", description: "Weather for a city", parameters: { type: "object", properties: { city: { type: "string" } } } }];
  const context: TheirModule.Context[] = [{ description: "units", value: "metric" }];

  const first = await agent.runAgent({ tools, context });
  log.push(["first", first.result, first.newMessages, structuredClone(agent.messages), structuredClone(agent.state)]);
  const call = agent.messages.find((m): m is TheirModule.AssistantMessage => m.role === "assistant" && (m.toolCalls?.length ?? 0) > 0);
  log.push(["tool call", call?.toolCalls?.[0]?.function.name, JSON.parse(call?.toolCalls?.[0]?.function.arguments ?? "null")]);

  agent.addMessage({ id: "user-2", role: "user", content: "Thanks!" });
  // Let addMessage's callbacks, which both libraries run in the background, finish first.
  await new Promise((resolve) => setTimeout(resolve, 10));
  const second = await agent.runAgent({ tools, context });
  log.push(["second", second.result, second.newMessages, structuredClone(agent.messages), structuredClone(agent.state), agent.isRunning]);
  // Both call onRunFinalized without the run waiting for every subscriber: let them finish.
  await new Promise((resolve) => setTimeout(resolve, 10));
  return log;
}

describe("a program written for @ag-ui/client 1.0 runs against our server with only the import changed", () => {
  it("the same transcript from theirs (asking SSE) and ours (asking binary)", async () => {
    const contentTypes: string[] = [];
    const handler = createNodeHandler(weatherAgent);
    // Notes what each answer was, on the server's side: each client sends as it does by default.
    const server = await track(
      listen((req, res) => {
        const writeHead = res.writeHead.bind(res) as (status: number, headers: Record<string, string>) => typeof res;
        res.writeHead = ((status: number, headers: Record<string, string>) => {
          const type = Object.entries(headers).find(([name]) => name.toLowerCase() === "content-type")?.[1];
          contentTypes.push(type?.split(";")[0] ?? "");
          return writeHead(status, headers);
        }) as typeof res.writeHead;
        handler(req, res);
      }),
    );
    const theirs = await program(theirLib, server.url);
    const ourModule = await import("../../src/client/index.js");
    // The one place our module is given their type.
    const ours = await program(ourModule as unknown as typeof TheirModule, server.url);

    expect(ours).toEqual(theirs);
    expect(server.requests.map((r) => r.headers.accept)).toEqual([SSE_MEDIA_TYPE, SSE_MEDIA_TYPE, expect.stringContaining(BINARY_MEDIA_TYPE), expect.stringContaining(BINARY_MEDIA_TYPE)]);
    expect(contentTypes).toEqual([SSE_MEDIA_TYPE, SSE_MEDIA_TYPE, BINARY_MEDIA_TYPE, BINARY_MEDIA_TYPE]);

    // The transcript holds what a front end needs: streamed text, the tool call, state, results.
    expect(ours).toContainEqual(["text", "say-1", "Let me ", "check."]);
    expect(ours).toContainEqual(["tool call", "get_weather", { city: "Lisbon" }]);
    const first = ours.find((e) => (e as string[])[0] === "first") as unknown[];
    expect(first[1]).toEqual({ answered: true });
    expect(first[4]).toEqual({ city: "Lisbon", lookups: 1, offered: "get_weather|metric", forecast: "sunny" });
    const second = ours.find((e) => (e as string[])[0] === "second") as unknown[];
    expect(second[1]).toEqual({ turn: 2 });
    expect((second[2] as { id: string; content: string }[]).map((m) => m.content)).toEqual([
      `You're welcome (4 messages; state {"city":"Lisbon","lookups":1,"offered":"get_weather|metric","forecast":"sunny"}).`,
    ]);
    expect((second[4] as { lookups: number }).lookups).toBe(2);
  });
});
