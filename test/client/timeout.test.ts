/**
 * The idle timeout of HttpAgent over real loopback HTTP: a server that stops sending (before
 * its headers, inside a binary frame, inside an SSE event, inside an error body) ends the run
 * with a typed error after `idleTimeoutMs`, and the connection is closed. The cases assert the
 * outcome, not how long it took.
 */
import { describe, expect, it, vi } from "vitest";
import { AguiWireError, DEFAULT_IDLE_TIMEOUT_MS, HttpAgent, HttpStatusError } from "../../src/client/index.js";
import { BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE, encodeFrame, encodeSSE, type AguiEventInput, type RunAgentInput, type RunContext } from "../../src/index.js";
import { createNodeHandler } from "../../src/server/index.js";
import { answer, closedPortUrl, collect, iterate, listen, serveAgent, trackServers, type TestServer } from "./helpers.js";

const track = trackServers();
const IDLE = 300;
const started: AguiEventInput = { type: "RUN_STARTED", threadId: "t", runId: "r" };
const finished: AguiEventInput = { type: "RUN_FINISHED", threadId: "t", runId: "r" };

/** Both consumers end with a `timeout` error after the given events; the server sees the connection closed. */
async function expectTimeout(server: TestServer, transport: "auto" | "binary" | "sse", types: string[]) {
  const viaSubscribe = await collect(new HttpAgent({ url: server.url, transport, idleTimeoutMs: IDLE }).events());
  const viaLoop = await iterate(new HttpAgent({ url: server.url, transport, idleTimeoutMs: IDLE }).events());
  for (const outcome of [viaSubscribe, viaLoop]) {
    expect(outcome.completed).toBe(false);
    expect(outcome.error).toBeInstanceOf(AguiWireError);
    expect(outcome.error).toMatchObject({ code: "timeout", message: expect.stringMatching(new RegExp(`nothing received for ${IDLE} ms.*\\(idleTimeoutMs\\)`)) });
    expect(outcome.events.map((e) => e.type)).toEqual(types);
  }
  await server.closedEarly;
  return viaSubscribe.error as AguiWireError;
}

describe("idleTimeoutMs", () => {
  it("binary: headers and a frame prefix announcing 50 bytes, then nothing", async () => {
    const server = await track(listen(answer(200, BINARY_MEDIA_TYPE, [encodeFrame(started).slice(), Uint8Array.of(0, 0, 0, 50, 1, 2)], { end: false })));
    await expectTimeout(server, "binary", ["RUN_STARTED"]);
  });

  it("SSE: part of an event, then nothing", async () => {
    const server = await track(listen(answer(200, SSE_MEDIA_TYPE, [encodeSSE(started), 'data: {"type":"TEXT_MES'], { end: false })));
    await expectTimeout(server, "sse", ["RUN_STARTED"]);
  });

  for (const transport of ["binary", "sse"] as const) {
    it(`our server's agent that stops yielding mid-run (${transport})`, async () => {
      const server = await track(
        serveAgent(async function* (input: RunAgentInput, { signal }: RunContext) {
          yield { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId };
          await new Promise((resolve) => signal.addEventListener("abort", resolve));
        }),
      );
      await expectTimeout(server, transport, ["RUN_STARTED"]);
    });
  }

  it("no response headers at all", async () => {
    const server = await track(listen(() => {}));
    const error = await expectTimeout(server, "auto", []);
    expect(error.message).toBe(`POST ${server.url}: nothing received for ${IDLE} ms (idleTimeoutMs)`);
  });

  it("an error body that stalls: the http_status error, with what came before the stall", async () => {
    const server = await track(listen(answer(503, "text/plain", ["overloaded, "], { end: false })));
    const { error, completed } = await collect(new HttpAgent({ url: server.url, idleTimeoutMs: IDLE }).events());
    expect(completed).toBe(false);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error).toMatchObject({ code: "http_status", status: 503, body: "overloaded, " });
    await server.closedEarly;
  });

  it("SSE keep-alive comments are bytes: a run that is silent longer than the timeout, but keeps the connection alive, completes", async () => {
    // The agent thinks for 1.5 idle periods; the server's keep-alive every 1/20 of one keeps the
    // body moving (a wide margin: server and client share this process's event loop).
    const idleTimeoutMs = 1000;
    const server = await track(
      listen(
        createNodeHandler(
          async function* (input: RunAgentInput) {
            yield { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId };
            await new Promise((resolve) => setTimeout(resolve, 1.5 * idleTimeoutMs));
            yield { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId };
          },
          { keepAliveMs: idleTimeoutMs / 20 },
        ),
      ),
    );
    const outcome = await collect(new HttpAgent({ url: server.url, transport: "sse", idleTimeoutMs }).events());
    expect(outcome.error).toBeUndefined();
    expect(outcome.completed).toBe(true);
    expect(outcome.events.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
  });

  it("0 and Infinity turn it off; the default is 60 s; anything else that is not a duration is a RangeError", () => {
    expect(DEFAULT_IDLE_TIMEOUT_MS).toBe(60_000);
    expect(new HttpAgent({ url: "http://127.0.0.1/" }).idleTimeoutMs).toBe(60_000);
    expect(new HttpAgent({ url: "http://127.0.0.1/", idleTimeoutMs: 0 }).idleTimeoutMs).toBe(0);
    expect(new HttpAgent({ url: "http://127.0.0.1/", idleTimeoutMs: Infinity }).idleTimeoutMs).toBe(0);
    for (const idleTimeoutMs of [-1, Number.NaN, -Infinity, "5" as unknown as number]) {
      expect(() => new HttpAgent({ url: "http://127.0.0.1/", idleTimeoutMs }), String(idleTimeoutMs)).toThrow(RangeError);
    }
  });

  it("a run that ends, however it ends, leaves no timer behind", async () => {
    // Fake timers count exactly the timers this process has set; the fetch is a double here so
    // that no HTTP client's own timers are counted.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    try {
      const respond = (status: number, text: string) => async () => new Response(text, { status, headers: { "content-type": SSE_MEDIA_TYPE } });
      const endings = [
        { fetch: respond(200, encodeSSE(started) + encodeSSE(finished)), code: undefined },
        { fetch: respond(200, encodeSSE(started)), code: "truncated_stream" },
        { fetch: respond(500, "down"), code: "http_status" },
      ];
      for (const { fetch, code } of endings) {
        const outcome = await collect(new HttpAgent({ url: "http://127.0.0.1/agent", fetch, idleTimeoutMs: 10 * 60_000 }).events());
        expect((outcome.error as AguiWireError | undefined)?.code).toBe(code);
        expect(vi.getTimerCount()).toBe(0);
      }
    } finally {
      vi.useRealTimers();
    }
  });
});

describe("network_error names its cause", () => {
  it("nothing listening, Node's default transport: the message says ECONNREFUSED and the address, and keeps node:http's error as cause", async () => {
    const url = await closedPortUrl();
    const { port } = new URL(url);
    const { error } = await collect(new HttpAgent({ url }).events());
    expect(error).toBeInstanceOf(AguiWireError);
    expect(error).toMatchObject({ code: "network_error", message: `POST ${url} failed: connect ECONNREFUSED 127.0.0.1:${port}` });
    expect((error as Error).cause).toMatchObject({ code: "ECONNREFUSED", port: Number(port) });
  });

  it("nothing listening, through fetch: the same message, from the cause under fetch's \"fetch failed\", which it keeps as cause", async () => {
    const url = await closedPortUrl();
    const { port } = new URL(url);
    const { error } = await collect(new HttpAgent({ url, fetch: globalThis.fetch }).events());
    expect(error).toBeInstanceOf(AguiWireError);
    expect(error).toMatchObject({ code: "network_error", message: `POST ${url} failed: connect ECONNREFUSED 127.0.0.1:${port}` });
    const cause = (error as Error).cause as Error & { cause?: { code?: string; port?: number } };
    expect(cause).toBeInstanceOf(TypeError);
    expect(cause.message).toBe("fetch failed");
    expect(cause.cause).toMatchObject({ code: "ECONNREFUSED", port: Number(port) });
  });
});
