// How the proxy fails, over real HTTP on loopback, through its Node handler: upstreams that cannot
// be reached, refuse, redirect, answer something else or too late (a JSON answer before any
// stream); upstreams whose stream breaks after it started (one final RUN_ERROR of a stable code,
// telling nothing of the upstream's internals, after the valid events); the run timeout; clients
// that go away (the upstream agent stopped, the slot released); and local agents that fail.
// Our HttpAgent is the client in both transports wherever a stream is involved.
import { request as httpRequest, type ClientRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpAgent, type Transport } from "../../src/client/index.js";
import { BINARY_MEDIA_TYPE, encodeFrame, encodeSSE, SSE_MEDIA_TYPE, type AguiEvent, type AguiEventInput, type EventMediaType, type RunAgentInput } from "../../src/index.js";
import type { RunContext } from "../../src/agent/contract.js";
import { createNodeProxyHandler, UPSTREAM_FAILURES, type ProxyRunRecord } from "../../src/proxy/index.js";
import { answer, closedPortUrl, iterate, listen, serveAgent, sleep, type Outcome, type TestServer } from "../client/helpers.js";

const TOKEN = "t-failures-token";
const AUTH = { authorization: `Bearer ${TOKEN}` };
const THREAD = "thread-f";
const RUN_ID = "run-f";
/** Text only an upstream's internals hold: it must never reach the client. */
const SECRET = "SECRET-db-password-7f3a";

const STARTED: AguiEventInput = { type: "RUN_STARTED", threadId: THREAD, runId: RUN_ID };
const MESSAGE_START: AguiEventInput = { type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant" };
const FINISHED: AguiEventInput = { type: "RUN_FINISHED", threadId: THREAD, runId: RUN_ID };

/** Binary frames of `events`, as one chunk. */
function frames(...events: AguiEventInput[]): Uint8Array {
  const parts = events.map((e) => encodeFrame(e));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/** SSE messages of `events`, as one chunk. */
const sse = (...events: AguiEventInput[]): string => events.map((e) => encodeSSE(e)).join("");

/** A binary frame that announces 100 bytes and carries 10 of them. */
function cutFrame(): Uint8Array {
  const frame = new Uint8Array(4 + 10);
  new DataView(frame.buffer).setUint32(0, 100);
  frame.fill(0x0a, 4);
  return frame;
}

/** What an upstream agent that waits on its signal went through, counted over its runs. */
interface HangingAgentState {
  started: number;
  aborted: number;
  finallyRan: number;
}

/**
 * An agent for our server that yields RUN_STARTED and then waits on its signal, until the proxy
 * stops it; with `forwardedProps.quick` it finishes at once instead.
 */
function hangingAgent(state: HangingAgentState) {
  return async function* (input: RunAgentInput, { signal }: RunContext): AsyncGenerator<AguiEventInput> {
    state.started++;
    try {
      yield { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId };
      if ((input.forwardedProps as { quick?: boolean } | undefined)?.quick) {
        yield { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId };
        return;
      }
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        signal.addEventListener("abort", () => {
          state.aborted++;
          resolve();
        }, { once: true });
      });
    } finally {
      state.finallyRan++;
    }
  };
}

/** What an upstream agent that yields big events as fast as it is read went through. */
interface FloodState extends HangingAgentState {
  yielded: number;
}

/**
 * An agent for our server that yields 64 KiB text deltas for as long as they are read, until its
 * signal fires; with `forwardedProps.quick` it finishes at once instead.
 */
function floodingAgent(state: FloodState) {
  const delta = "x".repeat(64 * 1024);
  return async function* (input: RunAgentInput, { signal }: RunContext): AsyncGenerator<AguiEventInput> {
    state.started++;
    signal.addEventListener("abort", () => void state.aborted++, { once: true });
    try {
      yield { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId };
      if ((input.forwardedProps as { quick?: boolean } | undefined)?.quick) {
        yield { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId };
        return;
      }
      yield MESSAGE_START;
      while (!signal.aborted) {
        state.yielded++;
        yield { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta };
      }
    } finally {
      state.finallyRan++;
    }
  };
}

const servers: Record<string, TestServer> = {};
const records: ProxyRunRecord[] = [];
const reported: { agent: string; error: unknown }[] = [];
const timeoutState: HangingAgentState = { started: 0, aborted: 0, finallyRan: 0 };
const goneState: HangingAgentState = { started: 0, aborted: 0, finallyRan: 0 };
const floodState: FloodState = { started: 0, aborted: 0, finallyRan: 0, yielded: 0 };
let proxy: TestServer;

/** A listener that never answers (no status, no headers) until the connection closes. */
function silent(_req: IncomingMessage, _res: ServerResponse): void {}

beforeAll(async () => {
  servers.unprocessable = await listen(answer(422, "application/json", [JSON.stringify({ error: "messages[0].role: expected one of user, assistant, found \"robot\"" })]));
  servers.failing = await listen(answer(500, "text/plain", [`internal error: could not connect with ${SECRET}`]));
  servers.redirectTarget = await listen(answer(200, SSE_MEDIA_TYPE, [sse(STARTED, FINISHED)]));
  servers.redirecting = await listen((_req, res) => {
    res.writeHead(302, { location: servers.redirectTarget!.url }).end();
  });
  servers.html = await listen(answer(200, "text/html; charset=utf-8", ["<html><body>Welcome</body></html>"]));
  servers.silent = await listen(silent);

  servers.reset = await listen(answer(200, BINARY_MEDIA_TYPE, [frames(STARTED, MESSAGE_START)], { destroy: true }));
  servers.cleanEnd = await listen(answer(200, SSE_MEDIA_TYPE, [sse(STARTED, MESSAGE_START)]));
  servers.cutFrame = await listen(answer(200, BINARY_MEDIA_TYPE, [frames(STARTED, MESSAGE_START), cutFrame()], { gapMs: 20 }));
  servers.emptyDelta = await listen(
    answer(200, SSE_MEDIA_TYPE, [sse(STARTED, MESSAGE_START), 'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":""}\n\n', sse(FINISHED)]),
  );
  servers.numberId = await listen(answer(200, SSE_MEDIA_TYPE, [sse(STARTED), 'data: {"type":"TEXT_MESSAGE_START","messageId":5,"role":"assistant"}\n\n', sse(FINISHED)]));
  servers.outOfOrder = await listen(
    answer(200, BINARY_MEDIA_TYPE, [frames(STARTED, MESSAGE_START, { type: "TEXT_MESSAGE_CONTENT", messageId: "never-started", delta: "hi" }, FINISHED)]),
  );
  servers.ownRunError = await listen(
    answer(200, SSE_MEDIA_TYPE, [sse(STARTED, MESSAGE_START, { type: "RUN_ERROR", code: "model_overloaded", message: "the model is overloaded, try later" })]),
  );
  servers.timeout = await serveAgent(hangingAgent(timeoutState));
  servers.gone = await serveAgent(hangingAgent(goneState));
  servers.flood = await serveAgent(floodingAgent(floodState));

  const url = (name: string): string => servers[name]!.url;
  const config = {
    agents: {
      unreachable: { url: await closedPortUrl() },
      unprocessable: { url: url("unprocessable") },
      failing: { url: url("failing") },
      redirecting: { url: url("redirecting") },
      html: { url: url("html") },
      silent: { url: url("silent"), limits: { firstByteTimeoutMs: 300 } },
      reset: { url: url("reset") },
      "clean-end": { url: url("cleanEnd") },
      "cut-frame": { url: url("cutFrame") },
      "empty-delta": { url: url("emptyDelta") },
      "number-id": { url: url("numberId") },
      "out-of-order": { url: url("outOfOrder") },
      "own-run-error": { url: url("ownRunError") },
      timeout: { url: url("timeout"), limits: { runTimeoutMs: 300 } },
      gone: { url: url("gone"), limits: { concurrentRuns: 1 } },
      flood: { url: url("flood"), limits: { concurrentRuns: 1 } },
    },
    auth: { tokens: [{ token: TOKEN, subject: "tester" }] },
  };
  proxy = await listen(
    createNodeProxyHandler(config, {
      agents: {
        "local-throws": async function* (input: RunAgentInput): AsyncGenerator<AguiEventInput> {
          yield { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId };
          throw new Error(`local failure holding ${SECRET}`);
        },
        "local-invalid": function* (input: RunAgentInput): Generator<AguiEventInput> {
          yield { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId };
          yield { type: "TEXT_MESSAGE_START", messageId: 5, role: "assistant" } as unknown as AguiEventInput;
        },
      },
      logger: (record) => void records.push(record),
      onError: (error, agent) => void reported.push({ agent, error }),
    }),
  );
});

afterAll(async () => {
  await proxy?.close();
  await Promise.all(Object.values(servers).map((s) => s.close()));
});

const agentUrl = (name: string): string => `${proxy.origin}/agents/${name}`;
const recordsOf = (name: string): ProxyRunRecord[] => records.filter((r) => r.agent === name);

/** POSTs a run to `name` through the proxy with `fetch`. */
function post(name: string, accept: EventMediaType = BINARY_MEDIA_TYPE): Promise<Response> {
  const input: RunAgentInput = { threadId: THREAD, runId: RUN_ID, state: {}, messages: [], tools: [], context: [], forwardedProps: {} };
  return fetch(agentUrl(name), { method: "POST", headers: { ...AUTH, "content-type": "application/json", accept }, body: JSON.stringify(input) });
}

/** The events our HttpAgent yields for one run of `name`, and how the run ended. */
function run(name: string, transport: Transport, params: { signal?: AbortSignal; forwardedProps?: { quick: boolean } } = {}): Promise<Outcome> {
  const agent = new HttpAgent({ url: agentUrl(name), transport, threadId: THREAD, headers: AUTH });
  return iterate(agent.events({ runId: RUN_ID, ...params }));
}

/** Waits for `name`'s `n`th record and returns it. */
async function nthRecord(name: string, n: number): Promise<ProxyRunRecord> {
  await expect.poll(() => recordsOf(name).length).toBeGreaterThanOrEqual(n);
  return recordsOf(name)[n - 1]!;
}

describe("before the stream: a JSON answer", () => {
  it("502 when the upstream cannot be reached", async () => {
    const response = await post("unreachable");
    expect(response.status).toBe(502);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toEqual({ error: "the upstream agent could not be reached" });
    expect(await nthRecord("unreachable", 1)).toMatchObject({ status: 502, events: 0, outcome: "upstream_unreachable" });
  });

  it("422 with the upstream's own error when it refuses the input", async () => {
    const response = await post("unprocessable");
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({ error: "messages[0].role: expected one of user, assistant, found \"robot\"" });
    expect(await nthRecord("unprocessable", 1)).toMatchObject({ status: 422, outcome: "upstream_422" });
  });

  it("502 naming the upstream's 500, without repeating its body", async () => {
    const response = await post("failing");
    expect(response.status).toBe(502);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ error: "the upstream agent answered with status 500" });
    expect(text).not.toContain(SECRET);
    expect(await nthRecord("failing", 1)).toMatchObject({ status: 502, outcome: "upstream_500" });
  });

  it("502 for a redirect, which is never followed", async () => {
    const response = await post("redirecting");
    expect(response.status).toBe(502);
    expect(await response.json()).toEqual({ error: "the upstream agent answered with status 302" });
    expect(servers.redirecting!.requests).toHaveLength(1);
    expect(servers.redirectTarget!.requests).toHaveLength(0);
    expect(await nthRecord("redirecting", 1)).toMatchObject({ status: 502, outcome: "upstream_302" });
  });

  it("502 for a 200 that is not an event stream (text/html)", async () => {
    const response = await post("html");
    expect(response.status).toBe(502);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ error: "the upstream agent answered with a body that is not an event stream" });
    expect(text).not.toContain("Welcome");
    expect(await nthRecord("html", 1)).toMatchObject({ status: 502, outcome: "upstream_not_events" });
  });

  it("504 when the upstream sends no headers within firstByteTimeoutMs", async () => {
    const response = await post("silent");
    expect(response.status).toBe(504);
    expect(await response.json()).toEqual({ error: "the upstream agent did not answer within 300 ms" });
    expect(await nthRecord("silent", 1)).toMatchObject({ status: 504, outcome: "upstream_timeout" });
    // The proxy gave up on its request: the upstream sees the connection close.
    await servers.silent!.closedEarly;
  });

  it("the same answers reach our HttpAgent as an http_status error", async () => {
    for (const transport of ["binary", "sse"] as const) {
      const outcome = await run("failing", transport);
      expect(outcome.events).toEqual([]);
      expect(outcome.error).toMatchObject({ code: "http_status", status: 502 });
      expect(String((outcome.error as Error).message)).not.toContain(SECRET);
    }
  });
});

/** The RUN_ERROR a relayed run ends with for `code`: generic, stable. */
const upstreamRunError = (code: keyof typeof UPSTREAM_FAILURES): AguiEvent => ({ type: "RUN_ERROR", code, message: UPSTREAM_FAILURES[code] }) as AguiEvent;

const MID_STREAM = [
  { name: "reset", what: "a network reset after RUN_STARTED and one event", before: [STARTED, MESSAGE_START], code: "upstream_error" },
  { name: "clean-end", what: "a clean end without RUN_FINISHED or RUN_ERROR", before: [STARTED, MESSAGE_START], code: "upstream_truncated" },
  { name: "cut-frame", what: "a binary frame cut in the middle", before: [STARTED, MESSAGE_START], code: "upstream_truncated" },
  { name: "empty-delta", what: "an invalid event (TEXT_MESSAGE_CONTENT with an empty delta)", before: [STARTED, MESSAGE_START], code: "upstream_invalid_event" },
  { name: "number-id", what: "an invalid event (TEXT_MESSAGE_START with a number id)", before: [STARTED], code: "upstream_invalid_event" },
  { name: "out-of-order", what: "an event out of order (content of a message never started)", before: [STARTED, MESSAGE_START], code: "upstream_invalid_event" },
] as const;

describe("mid-stream: one final RUN_ERROR of a stable code after the valid events", () => {
  describe.each(MID_STREAM)("$what", ({ name, before, code }) => {
    it.each(["binary", "sse"] as const)(`reaches our HttpAgent (%s) as RUN_ERROR ${code}, and is logged so`, async (transport) => {
      const n = recordsOf(name).length;
      const reportedBefore = reported.filter((r) => r.agent === name).length;
      const outcome = await run(name, transport);
      expect(outcome.error).toBeUndefined();
      expect(outcome.completed).toBe(true);
      expect(outcome.events.map((e) => e.type)).toEqual([...before.map((e) => e.type), "RUN_ERROR"]);
      expect(outcome.events.slice(0, -1)).toMatchObject(before);
      expect(outcome.events.at(-1)).toStrictEqual(upstreamRunError(code));
      // The real error went to onError, and none of its text to the client.
      await expect.poll(() => reported.filter((r) => r.agent === name).length).toBe(reportedBefore + 1);
      const real = reported.filter((r) => r.agent === name).at(-1)!.error as Error;
      expect(real).toBeInstanceOf(Error);
      expect(real.message).not.toBe("");
      expect(JSON.stringify(outcome.events)).not.toContain(real.message);
      expect(await nthRecord(name, n + 1)).toMatchObject({ status: 200, transportOut: transport, events: before.length + 1, outcome: code });
    });
  });

  it.each(["binary", "sse"] as const)("passes the upstream's own RUN_ERROR through unchanged (%s)", async (transport) => {
    const n = recordsOf("own-run-error").length;
    const outcome = await run("own-run-error", transport);
    expect(outcome.completed).toBe(true);
    expect(outcome.events.map((e) => e.type)).toEqual(["RUN_STARTED", "TEXT_MESSAGE_START", "RUN_ERROR"]);
    expect(outcome.events.at(-1)).toStrictEqual({ type: "RUN_ERROR", code: "model_overloaded", message: "the model is overloaded, try later" });
    expect(await nthRecord("own-run-error", n + 1)).toMatchObject({ status: 200, transportIn: "sse", transportOut: transport, events: 3, outcome: "run_error" });
  });
});

describe("the run timeout", () => {
  it.each(["binary", "sse"] as const)("ends the run with RUN_ERROR timeout and stops the upstream agent (%s)", async (transport) => {
    const n = recordsOf("timeout").length;
    const { started, aborted, finallyRan } = { ...timeoutState };
    const outcome = await run("timeout", transport);
    expect(outcome.completed).toBe(true);
    expect(outcome.events.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_ERROR"]);
    expect(outcome.events.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "timeout" });
    expect(timeoutState.started).toBe(started + 1);
    await expect.poll(() => timeoutState.aborted).toBe(aborted + 1);
    await expect.poll(() => timeoutState.finallyRan).toBe(finallyRan + 1);
    expect(await nthRecord("timeout", n + 1)).toMatchObject({ status: 200, transportIn: "binary", transportOut: transport, events: 2, outcome: "timeout" });
  });
});

describe("a client that goes away mid-run", () => {
  /** Checks what follows a client's leaving: the agent stopped, `client_gone` logged, the slot free. */
  async function expectCleanedUp(n: number, before: HangingAgentState): Promise<void> {
    await expect.poll(() => goneState.aborted).toBe(before.aborted + 1);
    await expect.poll(() => goneState.finallyRan).toBe(before.finallyRan + 1);
    expect(await nthRecord("gone", n + 1)).toMatchObject({ status: 200, outcome: "client_gone" });
    // concurrentRuns is 1: a second run is admitted only if the first one's slot was released.
    const next = await run("gone", "binary", { forwardedProps: { quick: true } });
    expect(next.error).toBeUndefined();
    expect(next.events.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
    expect(await nthRecord("gone", n + 2)).toMatchObject({ outcome: "finished" });
  }

  it.each(["binary", "sse"] as const)("our HttpAgent (%s) aborting with an AbortController", async (transport) => {
    const n = recordsOf("gone").length;
    const before = { ...goneState };
    const controller = new AbortController();
    const agent = new HttpAgent({ url: agentUrl("gone"), transport, threadId: THREAD, headers: AUTH });
    const seen: string[] = [];
    const outcome = await iterate(
      (async function* () {
        for await (const event of agent.events({ runId: RUN_ID, signal: controller.signal })) {
          seen.push(event.type);
          if (event.type === "RUN_STARTED") controller.abort();
          yield event;
        }
      })(),
    );
    expect(seen).toEqual(["RUN_STARTED"]);
    expect(outcome.error).toMatchObject({ code: "aborted" });
    await expectCleanedUp(n, before);
  });

  it.each(["binary", "sse"] as const)("our HttpAgent (%s) calling abortRun during runAgent", async (transport) => {
    const n = recordsOf("gone").length;
    const before = { ...goneState };
    const agent = new HttpAgent({ url: agentUrl("gone"), transport, threadId: THREAD, headers: AUTH });
    const seen: string[] = [];
    await agent.runAgent(
      { runId: RUN_ID },
      {
        onEvent: ({ event }) => {
          seen.push(event.type);
          if (event.type === "RUN_STARTED") setTimeout(() => agent.abortRun(), 0);
        },
      },
    );
    expect(seen).toEqual(["RUN_STARTED"]);
    await expectCleanedUp(n, before);
  });

  it.each([BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE])("a raw fetch (%s) whose body reader is cancelled", async (accept) => {
    const n = recordsOf("gone").length;
    const before = { ...goneState };
    const response = await post("gone", accept);
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    await expect.poll(() => goneState.started).toBe(before.started + 1);
    await reader.cancel();
    await expectCleanedUp(n, before);
  });
});

describe("a client that goes away while the proxy waits for it to read (back-pressure)", () => {
  /** Opens a run of `flood` with node:http and never reads the body: the proxy's writes back up. */
  function stalledRun(): Promise<{ request: ClientRequest; response: IncomingMessage }> {
    const body = JSON.stringify({ threadId: THREAD, runId: RUN_ID, state: {}, messages: [], tools: [], context: [], forwardedProps: {} });
    return new Promise((resolve, reject) => {
      const request = httpRequest(agentUrl("flood"), { method: "POST", headers: { ...AUTH, "content-type": "application/json", accept: BINARY_MEDIA_TYPE } });
      request.on("response", (response) => {
        response.pause();
        resolve({ request, response });
      });
      request.on("error", reject);
      request.end(body);
    });
  }

  /** Resolves once the flooding agent has yielded nothing new for a while: every buffer is full. */
  async function untilStalled(): Promise<void> {
    let last = -1;
    let still = 0;
    while (still < 3) {
      await sleep(100);
      still = floodState.yielded === last ? still + 1 : 0;
      last = floodState.yielded;
    }
  }

  it("stops the upstream agent, logs client_gone and releases the slot", async () => {
    const n = recordsOf("flood").length;
    const before = { ...floodState };
    const { request, response } = await stalledRun();
    expect(response.statusCode).toBe(200);
    await untilStalled();
    expect(floodState.yielded).toBeGreaterThan(before.yielded);
    request.destroy();
    await expect.poll(() => floodState.aborted).toBe(before.aborted + 1);
    await expect.poll(() => floodState.finallyRan).toBe(before.finallyRan + 1);
    expect(await nthRecord("flood", n + 1)).toMatchObject({ status: 200, outcome: "client_gone" });
    const next = await run("flood", "binary", { forwardedProps: { quick: true } });
    expect(next.error).toBeUndefined();
    expect(next.events.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
  });
});

describe("a local agent that fails mid-run", () => {
  it.each(["binary", "sse"] as const)("throwing: RUN_ERROR agent_error (%s)", async (transport) => {
    const n = recordsOf("local-throws").length;
    const outcome = await run("local-throws", transport);
    expect(outcome.completed).toBe(true);
    expect(outcome.events.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_ERROR"]);
    expect(outcome.events.at(-1)).toStrictEqual({ type: "RUN_ERROR", code: "agent_error", message: "the agent failed" });
    expect(JSON.stringify(outcome.events)).not.toContain(SECRET);
    expect(await nthRecord("local-throws", n + 1)).toMatchObject({ status: 200, transportIn: "local", transportOut: transport, outcome: "agent_error" });
  });

  it.each(["binary", "sse"] as const)("yielding an invalid event: RUN_ERROR invalid_event (%s)", async (transport) => {
    const n = recordsOf("local-invalid").length;
    const outcome = await run("local-invalid", transport);
    expect(outcome.completed).toBe(true);
    expect(outcome.events.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_ERROR"]);
    expect(outcome.events.at(-1)).toStrictEqual({ type: "RUN_ERROR", code: "invalid_event", message: "the agent yielded an invalid event" });
    expect(await nthRecord("local-invalid", n + 1)).toMatchObject({ status: 200, transportIn: "local", transportOut: transport, outcome: "invalid_event" });
  });
});
