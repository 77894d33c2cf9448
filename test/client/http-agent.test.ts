import { describe, expect, it } from "vitest";
import { from, lastValueFrom, take, toArray } from "rxjs";
import { AbstractAgent, ACCEPT, HttpAgent, RunStream, type Transport } from "../../src/client/index.js";
import {
  BINARY_MEDIA_TYPE,
  SSE_MEDIA_TYPE,
  encodeFrame,
  encodeSSE,
  type AguiEvent,
  type AguiEventInput,
  type RunAgentInput,
  type RunContext,
} from "../../src/index.js";
import { PROTOCOL_VERSION } from "../../src/protocol/index.js";
import { answer, collect, iterate, listen, normalized, normalizedServed, recordingSampleAgent, serveAgent, sleep, withBody, trackServers, recordingFetch } from "./helpers.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const track = trackServers();

const run: AguiEventInput[] = [
  { type: "RUN_STARTED", threadId: "t", runId: "r" },
  { type: "TEXT_MESSAGE_START", messageId: "m" },
  { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "hi" },
  { type: "TEXT_MESSAGE_END", messageId: "m" },
  { type: "RUN_FINISHED", threadId: "t", runId: "r" },
];
const utf8 = new TextEncoder();
const sseBytes = (events: readonly AguiEventInput[]) => utf8.encode(events.map((e) => encodeSSE(e)).join(""));
const binaryBytes = (events: readonly AguiEventInput[]) => events.map((e) => encodeFrame(e).slice());

describe("HttpAgent against our server", () => {
  const expectedContentType: Record<Transport, string> = { auto: BINARY_MEDIA_TYPE, binary: BINARY_MEDIA_TYPE, sse: SSE_MEDIA_TYPE };

  for (const transport of ["auto", "binary", "sse"] as const) {
    it(`gets every event of the sample run (transport ${transport}), through subscribe and through for await`, async () => {
      const { agent, sent } = recordingSampleAgent();
      const server = await track(serveAgent(agent));
      const contentTypes: (string | null)[] = [];
      const client = new HttpAgent({
        url: server.url,
        transport,
        fetch: recordingFetch(contentTypes),
      });

      const viaSubscribe = await collect(client.events());
      expect(viaSubscribe.error).toBeUndefined();
      expect(viaSubscribe.completed).toBe(true);
      expect(viaSubscribe.events).toEqual(normalizedServed(sent[0]!));
      expect(viaSubscribe.events.length).toBeGreaterThan(30);

      const viaLoop = await iterate(client.events());
      expect(viaLoop.error).toBeUndefined();
      expect(viaLoop.events).toEqual(normalizedServed(sent[1]!));

      expect(server.requests.map((r) => r.headers.accept)).toEqual([ACCEPT[transport], ACCEPT[transport]]);
      expect(contentTypes.map((t) => t?.split(";")[0])).toEqual([expectedContentType[transport], expectedContentType[transport]]);
    });
  }

  it("asks for binary first in auto mode, and for one transport otherwise", () => {
    expect(ACCEPT).toEqual({
      auto: "application/vnd.ag-ui.event+proto, text/event-stream;q=0.9",
      binary: "application/vnd.ag-ui.event+proto",
      sse: "text/event-stream",
    });
  });

  it("POSTs a complete RunAgentInput: generated ids, the agent's thread, empty defaults", async () => {
    const { agent, inputs } = recordingSampleAgent();
    const server = await track(serveAgent(agent));
    const client = new HttpAgent({ url: server.url });
    expect(client.threadId).toMatch(UUID);
    await collect(client.events());
    await collect(client.events());
    const [first, second] = inputs;
    expect(first).toEqual({ threadId: client.threadId, runId: expect.stringMatching(UUID), protocolVersion: PROTOCOL_VERSION, state: {}, messages: [], tools: [], context: [], forwardedProps: {} });
    expect(second!.threadId).toBe(client.threadId);
    expect(second!.runId).not.toBe(first!.runId);
    expect(server.requests[0]!.method).toBe("POST");
    expect(server.requests[0]!.headers["content-type"]).toBe("application/json");
  });

  it("sends the fields it is given, the agent's messages and state by default, and its headers", async () => {
    const { agent, inputs } = recordingSampleAgent();
    const server = await track(serveAgent(agent));
    const client = new HttpAgent({
      url: server.url,
      threadId: "thread-9",
      agentId: "weather",
      headers: { authorization: "Bearer x", "x-extra": "1" },
      initialMessages: [{ id: "u1", role: "user", content: "hi" }],
      initialState: { n: 1 },
    });
    expect(client.agentId).toBe("weather");
    await collect(client.events());
    const input: Partial<RunAgentInput> = {
      runId: "run-7",
      tools: [{ name: "get_forecast", description: "the forecast", parameters: { type: "object" } }],
      context: [{ description: "city", value: "Lisbon" }],
      state: { n: 2 },
      messages: [{ id: "u2", role: "user", content: "again" }],
      forwardedProps: { a: [1, null] },
    };
    await collect(client.events(input));
    expect(inputs[0]).toMatchObject({ threadId: "thread-9", messages: [{ id: "u1", role: "user", content: "hi" }], state: { n: 1 } });
    expect(inputs[1]).toEqual({ threadId: "thread-9", protocolVersion: PROTOCOL_VERSION, ...input });
    expect(server.requests[0]!.headers.authorization).toBe("Bearer x");
    expect(server.requests[0]!.headers["x-extra"]).toBe("1");
  });

  it("lets the caller's headers win over the defaults", async () => {
    const server = await track(listen(answer(200, SSE_MEDIA_TYPE, [sseBytes(run)])));
    const client = new HttpAgent({ url: server.url, transport: "binary", headers: new Headers({ Accept: "text/event-stream" }) });
    expect((await collect(client.events())).completed).toBe(true);
    expect(server.requests[0]!.headers.accept).toBe("text/event-stream");
  });

  it("uses the fetch it is given", async () => {
    const server = await track(listen(answer(200, SSE_MEDIA_TYPE, [sseBytes(run)])));
    const calls: string[] = [];
    const client = new HttpAgent({
      url: new URL(server.url),
      fetch: (url, init) => {
        calls.push(String(url));
        return fetch(url, init);
      },
    });
    expect((await collect(client.events())).events).toHaveLength(5);
    expect(calls).toEqual([server.url]);
  });

  it("rejects an unknown transport at construction", () => {
    expect(() => new HttpAgent({ url: "http://x", transport: "json" as Transport })).toThrow(TypeError);
  });

  it("is lazy: no request until the stream is subscribed to or iterated", async () => {
    const { agent } = recordingSampleAgent();
    const server = await track(serveAgent(agent));
    const client = new HttpAgent({ url: server.url });
    const stream = client.events();
    expect(stream).toBeInstanceOf(RunStream);
    await sleep(50);
    expect(server.requests).toHaveLength(0);
    await collect(stream);
    expect(server.requests).toHaveLength(1);
  });

  it("is single-use: a second subscribe or iteration throws a TypeError at once", async () => {
    const { agent } = recordingSampleAgent();
    const server = await track(serveAgent(agent));
    const stream = new HttpAgent({ url: server.url }).events();
    const done = collect(stream);
    expect(() => stream.subscribe({})).toThrow(/already subscribed to or iterated.*one consumer/);
    expect(() => stream[Symbol.asyncIterator]()).toThrow(TypeError);
    expect((await done).completed).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  it("delivers nothing before subscribe returns, and accepts a bare next function", async () => {
    const server = await track(listen(answer(200, SSE_MEDIA_TYPE, [sseBytes(run)])));
    const types: string[] = [];
    let returned = false;
    await new Promise<void>((resolve) => {
      new HttpAgent({ url: server.url }).events().subscribe((event) => {
        expect(returned).toBe(true);
        types.push(event.type);
        if (event.type === "RUN_FINISHED") resolve();
      });
      returned = true;
    });
    expect(types).toEqual(run.map((e) => e.type));
  });

  it("follows the response's content type, whatever was asked for, ignoring case and parameters", async () => {
    const binary = await track(listen(answer(200, "Application/Vnd.AG-UI.Event+Proto; charset=binary", binaryBytes(run))));
    const sse = await track(listen(answer(200, "TEXT/Event-Stream; charset=utf-8", [sseBytes(run)])));
    const fromBinary = await collect(new HttpAgent({ url: binary.url, transport: "sse" }).events());
    const fromSSE = await collect(new HttpAgent({ url: sse.url, transport: "binary" }).events());
    expect(fromBinary.events).toEqual(normalized(run));
    expect(fromSSE.events).toEqual(normalized(run));
    expect(fromBinary.completed && fromSSE.completed).toBe(true);
  });

  it("decodes events split across many small chunks", async () => {
    const bytes = binaryBytes(run).flatMap((frame) => Array.from(frame, (b) => Uint8Array.of(b)));
    const server = await track(listen(answer(200, BINARY_MEDIA_TYPE, bytes)));
    expect((await collect(new HttpAgent({ url: server.url }).events())).events).toEqual(normalized(run));
  });

  it("delivers a RUN_ERROR as an event, then completes", async () => {
    const failed: AguiEventInput[] = [run[0]!, run[1]!, { type: "RUN_ERROR", message: "model overloaded", code: "overloaded" }];
    for (const transport of ["binary", "sse"] as const) {
      const server = await track(serveAgent(() => failed));
      const outcome = await collect(new HttpAgent({ url: server.url, transport }).events());
      expect(outcome.error).toBeUndefined();
      expect(outcome.completed).toBe(true);
      expect(outcome.events.at(-1)).toEqual({ type: "RUN_ERROR", message: "model overloaded", code: "overloaded" });
    }
  });

  it("reads several runs of one stream", async () => {
    const twice = [...run, { type: "RUN_STARTED", threadId: "t", runId: "r2" }, { type: "RUN_FINISHED", threadId: "t", runId: "r2" }] as AguiEventInput[];
    const server = await track(listen(answer(200, SSE_MEDIA_TYPE, [sseBytes(twice)])));
    expect((await collect(new HttpAgent({ url: server.url }).events())).events).toHaveLength(7);
  });

  it("can be served by our server as a proxy: HttpAgent is an AgentLike", async () => {
    const { agent, sent } = recordingSampleAgent();
    const upstream = await track(serveAgent(agent));
    const proxy = await track(serveAgent(new HttpAgent({ url: upstream.url })));
    const outcome = await collect(new HttpAgent({ url: proxy.url, transport: "sse" }).events());
    expect(outcome.completed).toBe(true);
    // The upstream server's declaration of its version reaches the client through the proxy, as it was sent.
    expect(outcome.events).toEqual(normalizedServed(sent[0]!));
  });
});

describe("rxjs interop", () => {
  it("from(stream) uses the interop observable and delivers every event, then completes", async () => {
    const { agent, sent } = recordingSampleAgent();
    const server = await track(serveAgent(agent));
    const stream = new HttpAgent({ url: server.url }).events();
    let interop = 0;
    const original = stream["@@observable"].bind(stream);
    Object.defineProperty(stream, "@@observable", { value: () => (interop++, original()) });
    const events = await lastValueFrom(from(stream).pipe(toArray()));
    expect(interop).toBe(1);
    expect(events).toEqual(normalizedServed(sent[0]!));
  });

  it("an rxjs error carries the typed error", async () => {
    const server = await track(listen(answer(503, "application/json", ['{"error":"try later"}'])));
    await expect(lastValueFrom(from(new HttpAgent({ url: server.url }).events()))).rejects.toMatchObject({ code: "http_status", status: 503 });
  });

  it("unsubscribing through rxjs (take) cancels the request", async () => {
    let aborted = false;
    const server = await track(
      serveAgent(async function* (_input: RunAgentInput, { signal }: RunContext) {
        yield run[0]!;
        yield run[1]!;
        yield run[2]!;
        await new Promise((resolve) => signal.addEventListener("abort", resolve));
        aborted = true;
      }),
    );
    const events = await lastValueFrom(from(new HttpAgent({ url: server.url }).events()).pipe(take(2), toArray()));
    expect(events.map((e: AguiEvent) => e.type)).toEqual(["RUN_STARTED", "TEXT_MESSAGE_START"]);
    await server.closedEarly;
    await expect.poll(() => aborted).toBe(true);
  });
});

describe("AbstractAgent", () => {
  class Scripted extends AbstractAgent {
    inputs: RunAgentInput[] = [];
    constructor(private readonly script: (input: RunAgentInput, context: RunContext) => AsyncIterable<AguiEventInput> | Iterable<AguiEventInput>) {
      super({ threadId: "local-thread", initialState: { count: 0 } });
    }
    run(input: RunAgentInput, context: RunContext) {
      this.inputs.push(input);
      return this.script(input, context);
    }
  }

  it("runs a local agent with the same stream type, defaults and verification", async () => {
    const agent = new Scripted(() => run);
    const stream = agent.events({ tools: [] });
    expect(stream).toBeInstanceOf(RunStream);
    expect(agent.inputs).toHaveLength(0);
    const outcome = await collect(stream);
    expect(outcome).toEqual({ events: normalized(run), completed: true });
    expect(agent.inputs[0]).toEqual({
      threadId: "local-thread",
      runId: expect.stringMatching(UUID),
      protocolVersion: PROTOCOL_VERSION,
      state: { count: 0 },
      messages: [],
      tools: [],
      context: [],
      forwardedProps: {},
    });
    expect(agent.threadId).toBe("local-thread");
    expect(agent.messages).toEqual([]);
    expect(agent.state).toEqual({ count: 0 });
  });

  it("accepts run() results as an async generator, a function or a promise", async () => {
    class Gen extends AbstractAgent {
      async *run() {
        yield* run;
      }
    }
    class Fn extends AbstractAgent {
      run() {
        return () => run;
      }
    }
    class Prom extends AbstractAgent {
      async run() {
        return run;
      }
    }
    for (const agent of [new Gen(), new Fn(), new Prom()]) {
      expect((await iterate(agent.events())).events).toHaveLength(run.length);
    }
  });

  it("validates the events a local agent yields (invalid_event) and the input (invalid_input)", async () => {
    const bad = await collect(new Scripted(() => [run[0]!, { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "" }]).events());
    expect(bad.error).toMatchObject({ code: "invalid_event" });
    expect(bad.events).toHaveLength(1);
    const badInput = await collect(new Scripted(() => run).events({ messages: [{ role: "bogus" } as never] }));
    expect(badInput.error).toMatchObject({ code: "invalid_input" });
  });

  it("reports order violations and truncated runs as errors, never a complete", async () => {
    const violation = await collect(new Scripted(() => [run[0]!, run[2]!]).events());
    expect(violation).toMatchObject({ completed: false, error: { code: "protocol_violation", rule: "message-not-started", index: 1 } });
    const truncated = await collect(new Scripted(() => run.slice(0, 4)).events());
    expect(truncated).toMatchObject({ completed: false, error: { code: "truncated_stream" } });
  });

  it("passes what the agent throws through error, unchanged", async () => {
    const boom = new Error("boom");
    const outcome = await collect(
      new Scripted(function* () {
        yield run[0]!;
        throw boom;
      }).events(),
    );
    expect(outcome.error).toBe(boom);
  });

  it("abortRun() stops a local agent that ignores its signal, with an aborted error", async () => {
    let signal: AbortSignal | undefined;
    const agent = new Scripted(async function* (_input, context) {
      signal = context.signal;
      yield run[0]!;
      await new Promise(() => {});
    });
    const events: AguiEvent[] = [];
    const outcome = new Promise<unknown>((resolve) =>
      agent.events().subscribe({
        next: (event) => {
          events.push(event);
          agent.abortRun();
        },
        error: resolve,
        complete: () => resolve("completed"),
      }),
    );
    expect(await outcome).toMatchObject({ code: "aborted" });
    expect(events).toHaveLength(1);
    expect(signal?.aborted).toBe(true);
  });

  it("can be served by our server, and reached with HttpAgent", async () => {
    const server = await track(serveAgent(new Scripted(() => run)));
    const outcome = await collect(new HttpAgent({ url: server.url }).events());
    expect(outcome).toEqual({ events: normalizedServed(run), completed: true });
  });
});

describe("subscribe: callback behaviour", () => {
  it("a throwing next cancels the run and its error goes to error", async () => {
    const boom = new Error("from next");
    const server = await track(listen(withBody((_req, res) => {
      res.writeHead(200, { "content-type": SSE_MEDIA_TYPE });
      res.write(encodeSSE(run[0]!));
    })));
    const error = await new Promise<unknown>((resolve) =>
      new HttpAgent({ url: server.url }).events().subscribe({
        next: () => {
          throw boom;
        },
        error: resolve,
      }),
    );
    expect(error).toBe(boom);
    await server.closedEarly;
  });
});
