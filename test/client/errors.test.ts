/**
 * Every way a run can fail, each produced by a real HTTP exchange, in both transports where the
 * transport matters: a typed error through `error` (or thrown by the loop), never a `complete`.
 */
import { describe, expect, it } from "vitest";
import { AguiWireError, HttpAgent, HttpStatusError, MAX_ERROR_BODY_BYTES, ProtocolViolationError, type RunStream } from "../../src/client/index.js";
import { BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE, ValidationError, encodeFrame, encodeSSE, type AguiEventInput, type RunAgentInput, type RunContext } from "../../src/index.js";
import { answer, closedPortUrl, collect, iterate, listen, serveAgent, sleep, type Outcome, trackServers } from "./helpers.js";

const track = trackServers();

const started: AguiEventInput = { type: "RUN_STARTED", threadId: "t", runId: "r" };
const msgStart: AguiEventInput = { type: "TEXT_MESSAGE_START", messageId: "m" };
const content: AguiEventInput = { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "partial" };
const utf8 = new TextEncoder();
const TRANSPORTS = ["binary", "sse"] as const;
type Wire = (typeof TRANSPORTS)[number];
const mediaType = (t: Wire) => (t === "binary" ? BINARY_MEDIA_TYPE : SSE_MEDIA_TYPE);
const bytesOf = (t: Wire, events: readonly AguiEventInput[]): Uint8Array[] =>
  events.map((e) => (t === "binary" ? encodeFrame(e).slice() : utf8.encode(encodeSSE(e))));

/** Runs against `url` with both consumers (subscribe, then for await) and checks they agree. */
async function failBothWays(url: string, transport: "auto" | Wire = "auto"): Promise<Outcome> {
  const viaSubscribe = await collect(new HttpAgent({ url, transport }).events());
  const viaLoop = await iterate(new HttpAgent({ url, transport }).events());
  expect(viaSubscribe.completed).toBe(false);
  expect(viaLoop.completed).toBe(false);
  expect((viaLoop.error as AguiWireError).code).toBe((viaSubscribe.error as AguiWireError).code);
  expect(viaLoop.events).toEqual(viaSubscribe.events);
  return viaSubscribe;
}

/** Subscribes and records every callback, to check that nothing follows an error. */
function record(stream: RunStream) {
  const calls: string[] = [];
  let error: unknown;
  const ended = new Promise<void>((resolve) =>
    stream.subscribe({
      next: (e) => calls.push(e.type),
      error: (e) => {
        calls.push("error");
        error = e;
        resolve();
      },
      complete: () => {
        calls.push("complete");
        resolve();
      },
    }),
  );
  return { calls, ended, error: () => error };
}

/** An agent of our server that yields `events`, then waits for its signal; `aborted` says when it fired. */
function hangingAgent(events: readonly AguiEventInput[]) {
  let fired!: () => void;
  const aborted = new Promise<void>((resolve) => (fired = resolve));
  const agent = async function* (_input: RunAgentInput, { signal }: RunContext) {
    yield* events;
    await new Promise((resolve) => signal.addEventListener("abort", resolve));
    fired();
  };
  return { agent, aborted };
}

describe("http_status", () => {
  for (const transport of ["auto", "sse", "binary"] as const) {
    it(`our server's 422 for an invalid RunAgentInput, with its JSON body (transport ${transport})`, async () => {
      const server = await track(serveAgent(() => []));
      const stream = new HttpAgent({ url: server.url, transport }).events({ messages: [{ id: 1, role: "user", content: "hi" } as never] });
      const outcome = await collect(stream);
      expect(outcome.completed).toBe(false);
      expect(outcome.events).toEqual([]);
      const error = outcome.error as HttpStatusError;
      expect(error).toBeInstanceOf(HttpStatusError);
      expect(error).toBeInstanceOf(AguiWireError);
      expect(error.code).toBe("http_status");
      expect(error.status).toBe(422);
      expect(error.body).toEqual({ error: expect.stringContaining("messages[0].id") });
      expect(error.message).toContain("422");
      expect(error.message).toContain((error.body as { error: string }).error);
    });
  }

  it("a text body is kept as text", async () => {
    const server = await track(listen(answer(500, "text/plain; charset=utf-8", ["upstream exploded"])));
    const { error } = await failBothWays(server.url);
    expect(error).toMatchObject({ code: "http_status", status: 500, body: "upstream exploded", message: "HTTP 500" });
  });

  it("a body that says JSON but is not stays text; no body is undefined", async () => {
    const broken = await track(listen(answer(502, "application/json", ["{not json"])));
    expect((await collect(new HttpAgent({ url: broken.url }).events())).error).toMatchObject({ status: 502, body: "{not json" });
    const empty = await track(listen(answer(404, undefined, [])));
    const { error } = await collect(new HttpAgent({ url: empty.url }).events());
    expect(error).toMatchObject({ code: "http_status", status: 404, message: "HTTP 404" });
    expect([undefined, ""]).toContain((error as HttpStatusError).body);
  });

  it("reads at most 64 KiB of the body, then stops", async () => {
    const huge = `{"error":"${"x".repeat(200_000)}"}`;
    const server = await track(listen(answer(500, "application/json", [huge])));
    const { error } = await collect(new HttpAgent({ url: server.url }).events());
    expect((error as HttpStatusError).body).toBe(huge.slice(0, MAX_ERROR_BODY_BYTES));
  });

  it("an error string that is not a string is left out of the message", async () => {
    const server = await track(listen(answer(401, "application/problem+json", ['{"error":{"nested":true},"title":"no"}'])));
    const { error } = await collect(new HttpAgent({ url: server.url }).events());
    expect(error).toMatchObject({ status: 401, body: { error: { nested: true }, title: "no" }, message: "HTTP 401" });
  });
});

describe("network_error", () => {
  it("nothing listening on the port", async () => {
    const { error } = await failBothWays(await closedPortUrl());
    expect(error).toBeInstanceOf(AguiWireError);
    expect(error).toMatchObject({ code: "network_error" });
    expect((error as Error).message).toContain("POST http://127.0.0.1:");
    expect((error as Error).cause).toBeDefined();
  });

  for (const transport of TRANSPORTS) {
    it(`the connection is cut mid-stream (${transport})`, async () => {
      const server = await track(listen(answer(200, mediaType(transport), bytesOf(transport, [started, msgStart]), { destroy: true })));
      const outcome = await failBothWays(server.url, transport);
      expect(outcome.error).toMatchObject({ code: "network_error" });
      expect(outcome.events.map((e) => e.type)).toEqual(["RUN_STARTED", "TEXT_MESSAGE_START"]);
    });
  }
});

describe("aborted", () => {
  for (const transport of TRANSPORTS) {
    it(`abortRun() mid-stream ends the run with an aborted error and closes the connection (${transport})`, async () => {
      const { agent, aborted } = hangingAgent([started, msgStart]);
      const server = await track(serveAgent(agent));
      const client = new HttpAgent({ url: server.url, transport });
      const recorder = record(client.events());
      await expect.poll(() => recorder.calls.length).toBe(2);
      client.abortRun();
      await recorder.ended;
      expect(recorder.calls).toEqual(["RUN_STARTED", "TEXT_MESSAGE_START", "error"]);
      expect(recorder.error()).toMatchObject({ code: "aborted" });
      await server.closedEarly;
      await aborted;
    });
  }

  it("the run's signal, mid-stream, through for await", async () => {
    const { agent, aborted } = hangingAgent([started]);
    const server = await track(serveAgent(agent));
    const controller = new AbortController();
    const reason = new Error("user left");
    const types: string[] = [];
    const error = await (async () => {
      try {
        for await (const event of new HttpAgent({ url: server.url }).events({ signal: controller.signal })) {
          types.push(event.type);
          controller.abort(reason);
        }
      } catch (err) {
        return err;
      }
    })();
    expect(types).toEqual(["RUN_STARTED"]);
    expect(error).toBeInstanceOf(AguiWireError);
    expect(error).toMatchObject({ code: "aborted", cause: reason });
    await aborted;
  });

  it("a signal that fired before the run starts: aborted, and no request is sent", async () => {
    const server = await track(serveAgent(() => []));
    const controller = new AbortController();
    controller.abort();
    const outcome = await collect(new HttpAgent({ url: server.url }).events({ signal: controller.signal }));
    expect(outcome.error).toMatchObject({ code: "aborted" });
    expect(server.requests).toHaveLength(0);
  });

  it("while waiting for the response headers", async () => {
    const server = await track(listen(() => {}));
    const client = new HttpAgent({ url: server.url });
    const done = collect(client.events());
    await expect.poll(() => server.requests.length).toBe(1);
    client.abortRun();
    expect((await done).error).toMatchObject({ code: "aborted" });
    await server.closedEarly;
  });

  it("while reading an error response's body", async () => {
    const server = await track(listen(answer(500, "text/plain", ["partial"], { end: false })));
    const controller = new AbortController();
    const done = collect(new HttpAgent({ url: server.url }).events({ signal: controller.signal }));
    await sleep(100);
    controller.abort();
    expect((await done).error).toMatchObject({ code: "aborted" });
  });

  it("unsubscribe cancels the request and calls nothing afterwards", async () => {
    const { agent, aborted } = hangingAgent([started, msgStart]);
    const server = await track(serveAgent(agent));
    const calls: string[] = [];
    const subscription = new HttpAgent({ url: server.url }).events().subscribe({
      next: (e) => calls.push(e.type),
      error: () => calls.push("error"),
      complete: () => calls.push("complete"),
    });
    await expect.poll(() => calls.length).toBe(2);
    subscription.unsubscribe();
    await server.closedEarly;
    await aborted;
    await sleep(50);
    expect(calls).toEqual(["RUN_STARTED", "TEXT_MESSAGE_START"]);
  });

  it("a break out of for await cancels the request quietly", async () => {
    const { agent, aborted } = hangingAgent([started, msgStart]);
    const server = await track(serveAgent(agent));
    for await (const event of new HttpAgent({ url: server.url }).events()) {
      expect(event.type).toBe("RUN_STARTED");
      break;
    }
    await server.closedEarly;
    await aborted;
  });

  it("abortRun() also cancels runs not yet started, and leaves later runs alone", async () => {
    const server = await track(serveAgent(() => [started, { type: "RUN_FINISHED", threadId: "t", runId: "r" }]));
    const client = new HttpAgent({ url: server.url });
    const early = client.events();
    client.abortRun();
    expect((await collect(early)).error).toMatchObject({ code: "aborted" });
    expect((await collect(client.events())).completed).toBe(true);
  });
});

describe("malformed streams", () => {
  it("binary: a frame that is not an encoded event (malformed_frame)", async () => {
    const junk = Uint8Array.of(0, 0, 0, 3, 0xff, 0xff, 0xff);
    const server = await track(listen(answer(200, BINARY_MEDIA_TYPE, [...bytesOf("binary", [started]), junk], { gapMs: 30 })));
    const outcome = await failBothWays(server.url);
    expect(outcome.error).toMatchObject({ code: "malformed_frame" });
    expect(outcome.events.map((e) => e.type)).toEqual(["RUN_STARTED"]);
  });

  it("binary: a frame announcing more than the limit (frame_too_large)", async () => {
    const server = await track(listen(answer(200, BINARY_MEDIA_TYPE, [Uint8Array.of(0x7f, 0xff, 0xff, 0xff, 1, 2, 3)])));
    expect((await failBothWays(server.url)).error).toMatchObject({ code: "frame_too_large" });
  });

  it("SSE: data that is not JSON (malformed_event)", async () => {
    const server = await track(listen(answer(200, SSE_MEDIA_TYPE, [...bytesOf("sse", [started]), "data: {oops\n\n"], { gapMs: 30 })));
    const outcome = await failBothWays(server.url);
    expect(outcome.error).toMatchObject({ code: "malformed_event" });
    expect(outcome.events).toHaveLength(1);
  });

  it("SSE: JSON that is not a valid event (invalid_event, a ValidationError)", async () => {
    const server = await track(listen(answer(200, SSE_MEDIA_TYPE, [...bytesOf("sse", [started]), 'data: {"type":"TEXT_MESSAGE_START"}\n\n'])));
    const { error } = await failBothWays(server.url);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ code: "invalid_event" });
  });

  it("SSE: an event of an unknown type is no error (AG-UI 1.1): dropped, with a warning, the run goes on", async () => {
    const finished = { type: "RUN_FINISHED", threadId: "t", runId: "r" };
    const server = await track(listen(answer(200, SSE_MEDIA_TYPE, [`data: ${JSON.stringify(started)}\n\ndata: {"type":"FUTURE_EVENT"}\n\ndata: ${JSON.stringify(finished)}\n\n`])));
    const warnings: string[] = [];
    const outcome = await collect(new HttpAgent({ url: server.url, onWarning: (w) => void warnings.push(`${w.kind} ${w.type}`) }).events());
    expect(outcome.error).toBeUndefined();
    expect(outcome.events.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
    expect(warnings).toEqual(["unknown_event FUTURE_EVENT"]);
  });

  it("a 200 of another content type (unsupported_media_type)", async () => {
    const server = await track(listen(answer(200, "application/json", ['{"ok":true}'])));
    expect((await failBothWays(server.url)).error).toMatchObject({ code: "unsupported_media_type" });
  });

  for (const transport of TRANSPORTS) {
    it(`events out of order (protocol_violation, ${transport})`, async () => {
      const server = await track(listen(answer(200, mediaType(transport), bytesOf(transport, [started, content]))));
      const { error, events } = await failBothWays(server.url, transport);
      expect(error).toBeInstanceOf(ProtocolViolationError);
      expect(error).toMatchObject({ code: "protocol_violation", rule: "message-not-started", index: 1 });
      expect(events).toHaveLength(1);
    });
  }
});

describe("truncated_stream", () => {
  it("binary: the stream ends inside a frame", async () => {
    const frame = encodeFrame(msgStart);
    const server = await track(listen(answer(200, BINARY_MEDIA_TYPE, [...bytesOf("binary", [started]), frame.slice(0, frame.length - 2)])));
    const outcome = await failBothWays(server.url);
    expect(outcome.error).toMatchObject({ code: "truncated_stream" });
    expect(outcome.events.map((e) => e.type)).toEqual(["RUN_STARTED"]);
  });

  it("binary: the stream ends inside a frame's length prefix", async () => {
    const server = await track(listen(answer(200, BINARY_MEDIA_TYPE, [...bytesOf("binary", [started]), Uint8Array.of(0, 0)])));
    expect((await failBothWays(server.url)).error).toMatchObject({ code: "truncated_stream" });
  });

  it("SSE: the stream ends inside an event", async () => {
    const server = await track(listen(answer(200, SSE_MEDIA_TYPE, [...bytesOf("sse", [started]), 'data: {"type":"TEXT_MESSAGE_START","messageId":"m"}\n'])));
    const outcome = await failBothWays(server.url);
    expect(outcome.error).toMatchObject({ code: "truncated_stream" });
    expect(outcome.events).toHaveLength(1);
  });

  for (const transport of TRANSPORTS) {
    it(`a run that ends with neither RUN_FINISHED nor RUN_ERROR (${transport})`, async () => {
      const server = await track(listen(answer(200, mediaType(transport), bytesOf(transport, [started, msgStart, content]))));
      const outcome = await failBothWays(server.url, transport);
      expect(outcome.error).toMatchObject({ code: "truncated_stream" });
      expect(outcome.error).not.toBeInstanceOf(ProtocolViolationError);
      expect(outcome.events).toHaveLength(3);
    });
  }

  it("a 200 with an empty body holds no run", async () => {
    const server = await track(listen(answer(200, SSE_MEDIA_TYPE, [])));
    expect((await failBothWays(server.url)).error).toMatchObject({ code: "truncated_stream" });
  });

  it("our server's agent stops early: truncated, never a complete", async () => {
    const server = await track(serveAgent(() => [started, msgStart]));
    const recorder = record(new HttpAgent({ url: server.url }).events());
    await recorder.ended;
    await sleep(20);
    expect(recorder.calls).toEqual(["RUN_STARTED", "TEXT_MESSAGE_START", "error"]);
    expect(recorder.error()).toMatchObject({ code: "truncated_stream" });
  });
});
