/**
 * Resumable runs, the client's side, against the real server (`createNodeHandler` with a
 * `memoryStore`) over real HTTP on 127.0.0.1, with a TCP proxy in between that cuts connections
 * at chosen byte offsets: a cut run reattaches (GET + Last-Event-ID) and the consumer gets every
 * event once, in order; `connectAgent` reattaches from the start; a cancel reaches the server
 * (DELETE); a server without a store sees nothing new.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { AguiWireError, HttpAgent, HttpStatusError, type ActiveRun, type Message } from "../../src/client/index.js";
import { DEFAULT_RESUME_BACKOFF_MS, DEFAULT_RESUME_RETRIES, MAX_RESUME_BACKOFF_MS, resumeDelay, withRunId } from "../../src/client/resume.js";
import { createNodeHandler, memoryStore, type Agent } from "../../src/server/index.js";
import { encodeSSE, parseEvent, type AguiEvent, type AguiEventInput, type RunAgentInput } from "../../src/index.js";
import { mixedTrace } from "../fixtures/corpus.js";
import { run10Trace } from "../fixtures/trace-1.0.js";
import { cuttingProxy, type CuttingProxy, type CuttingProxyOptions } from "../fixtures/cutting-proxy.js";
import { listen, type TestServer } from "./helpers.js";

const TRANSPORTS = ["binary", "sse"] as const;
type Wire = (typeof TRANSPORTS)[number];

const TRACE = mixedTrace(300);

/** Closed after each test. */
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});

/** The events of `trace` as a run of `input`: RUN_STARTED names the input's thread and run. */
function* asRun(trace: readonly AguiEventInput[], input: RunAgentInput): Generator<AguiEventInput> {
  for (const e of trace) yield e.type === "RUN_STARTED" ? { ...e, threadId: input.threadId, runId: input.runId } : e;
}

/** An agent that yields `trace` at once, whatever the input. */
function traceAgent(trace: readonly AguiEventInput[]): Agent {
  return (input: RunAgentInput) => asRun(trace, input);
}

/**
 * An agent that yields the first `pause` events of `trace`, then waits until `release()` is
 * called (then yields the rest) or its signal fires (then `cancelled` resolves and it stops).
 */
function gatedAgent(trace: readonly AguiEventInput[], pause: number) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let cancelled!: () => void;
  const cancelledPromise = new Promise<void>((resolve) => (cancelled = resolve));
  const agent: Agent = async function* (input: RunAgentInput, { signal }) {
    const events = [...asRun(trace, input)];
    for (let i = 0; i < pause; i++) yield events[i]!;
    const aborted = new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    await Promise.race([released, aborted]);
    if (signal.aborted) {
      cancelled();
      return;
    }
    for (let i = pause; i < events.length; i++) yield events[i]!;
  };
  return { agent, release, cancelled: cancelledPromise };
}

/**
 * Serves `agent` with the real Node handler, with a fresh memory store unless `store` is false.
 * Uncompressed unless `compression` is set: the cuts land at byte offsets of the body as sent.
 */
async function serve(agent: Agent, store = true, compression = false): Promise<TestServer> {
  const server = await listen(createNodeHandler(agent, { compression, ...(store ? { store: memoryStore() } : {}) }));
  open.push(server);
  return server;
}

/** A cutting proxy in front of `server`, closed after the test. */
async function proxyTo(server: TestServer, options: CuttingProxyOptions): Promise<CuttingProxy> {
  const proxy = await cuttingProxy(server.origin, options);
  open.push(proxy);
  return proxy;
}

let runs = 0;
/** A runId of its own for each run: the store refuses one it holds already. */
const nextRunId = () => `run-${++runs}`;

/** Every event of a run of `agent` (`events()`), or the error that ended it with the events before it. */
/** The resume token the tests' runs are started with, so that another client can reattach to them. */
const TOKEN = "tests-resume-token-0123456789";

async function collect(agent: HttpAgent, runId = nextRunId()): Promise<{ events: AguiEvent[]; error?: unknown }> {
  const events: AguiEvent[] = [];
  try {
    for await (const e of agent.events({ runId, resumeToken: TOKEN })) events.push(e);
    return { events };
  } catch (error) {
    return { events, error };
  }
}

/** The events with RUN_STARTED's runId set aside: runs of one trace differ only there. */
const sameRun = (events: readonly AguiEvent[]) => events.map((e) => (e.type === "RUN_STARTED" ? { ...e, runId: "*" } : e));

/** An agent on `url` with a fixed thread and a 1 ms backoff (so tests wait for nothing). */
function client(url: string, transport: Wire, extra: Partial<ConstructorParameters<typeof HttpAgent>[0]> = {}): HttpAgent {
  return new HttpAgent({ url, transport, threadId: "thread-1", resume: { backoffMs: 1 }, ...extra });
}

/** The requests a server received, as "METHOD url last-event-id". */
const requestsOf = (server: TestServer) => server.requests.map((r) => `${r.method} ${r.url}${r.headers["last-event-id"] === undefined ? "" : ` #${r.headers["last-event-id"]}`}`);

/** The events of an uncut run of `trace` and its body size in bytes, on `transport`. */
async function reference(server: TestServer, transport: Wire): Promise<{ events: AguiEvent[]; bodyBytes: number }> {
  const proxy = await proxyTo(server, {});
  const { events, error } = await collect(client(`${proxy.origin}/agent`, transport));
  expect(error).toBeUndefined();
  return { events, bodyBytes: proxy.log[0]!.counted };
}

describe.each(TRANSPORTS)("a resumable run over %s", (transport) => {
  it("cut in the middle, reattaches after the last event seen and yields every event once, in order", async () => {
    const server = await serve(traceAgent(TRACE));
    const uncut = await reference(server, transport);
    const proxy = await proxyTo(server, { cuts: [Math.floor(uncut.bodyBytes / 2)] });
    const runId = nextRunId();
    const { events, error } = await collect(client(`${proxy.origin}/agent`, transport), runId);
    expect(error).toBeUndefined();
    expect(sameRun(events)).toEqual(sameRun(uncut.events));
    expect(proxy.log.map((c) => c.cut)).toEqual([true, false]);
    const requests = requestsOf(server).slice(1);
    expect(requests).toHaveLength(2);
    expect(requests[0]).toBe(`POST /agent`);
    const [, seq] = /^GET \/agent\?runId=run-\d+ #(\d+)$/.exec(requests[1]!) ?? [];
    expect(Number(seq)).toBeGreaterThan(0);
    expect(Number(seq)).toBeLessThan(TRACE.length - 1);
    // The reattach carries the agent's accept header: the same transport comes back.
    expect(server.requests.at(-1)!.headers.accept).toBe(transport === "sse" ? "text/event-stream" : "application/vnd.ag-ui.event+proto");
  });

  it("drops an event cut in its middle and gets it again whole", async () => {
    // A 20 kB state snapshot second: a cut 3 000 bytes into the body lands inside it.
    const big = { type: "STATE_SNAPSHOT", snapshot: { text: "x".repeat(20_000) } } as AguiEventInput;
    const trace = [TRACE[0]!, big, ...TRACE.slice(1)];
    const server = await serve(traceAgent(trace));
    const uncut = await reference(server, transport);
    const proxy = await proxyTo(server, { cuts: [3000] });
    const { events, error } = await collect(client(`${proxy.origin}/agent`, transport));
    expect(error).toBeUndefined();
    expect(sameRun(events)).toEqual(sameRun(uncut.events));
    // Only RUN_STARTED (event 0) was whole at the cut.
    expect(requestsOf(server).at(-1)).toMatch(/^GET \/agent\?runId=run-\d+ #0$/);
  });

  it("resumes a gzip-compressed run cut at several points, inside the compressed stream", async () => {
    const server = await serve(traceAgent(TRACE), true, true);
    const uncut = await reference(server, transport);
    expect(server.requests[0]!.headers["accept-encoding"]).toContain("gzip");
    const step = Math.floor(uncut.bodyBytes / 4);
    const proxy = await proxyTo(server, { cuts: [step, step, step] });
    const codings: (string | null)[] = [];
    const fetching: typeof fetch = async (url, init) => {
      const response = await fetch(url, init);
      codings.push(response.headers.get("content-encoding"));
      return response;
    };
    const { events, error } = await collect(client(`${proxy.origin}/agent`, transport, { fetch: fetching }));
    expect(error).toBeUndefined();
    expect(sameRun(events)).toEqual(sameRun(uncut.events));
    // Each cut left the client with a truncated gzip stream; each reattach was compressed too.
    // What the decompressor still held at a cut is lost with it, so a reattach may start before
    // the last event the server sent, or from the start (no Last-Event-ID): the run is whole anyway.
    expect(requestsOf(server).slice(2).map((r) => r.replace(/run-\d+( #\d+)?$/, "*"))).toEqual(["GET /agent?runId=*", "GET /agent?runId=*", "GET /agent?runId=*"]);
    expect(codings).toEqual(["gzip", "gzip", "gzip", "gzip"]);
  });

  it("cut before its first event, reattaches from the start (no Last-Event-ID)", async () => {
    const server = await serve(traceAgent(TRACE));
    const uncut = await reference(server, transport);
    const proxy = await proxyTo(server, { cuts: [0] });
    const { events, error } = await collect(client(`${proxy.origin}/agent`, transport));
    expect(error).toBeUndefined();
    expect(sameRun(events)).toEqual(sameRun(uncut.events));
    expect(requestsOf(server).at(-1)).toMatch(/^GET \/agent\?runId=run-\d+$/);
  });

  it("a POST cut before its answer's headers reattaches under the id and token it sent, when the server started the run", async () => {
    const server = await serve(traceAgent(TRACE));
    const uncut = await reference(server, transport);
    const proxy = await proxyTo(server, { cuts: [0], from: "response" });
    const runId = nextRunId();
    const agent = client(`${proxy.origin}/agent`, transport);
    const named: (ActiveRun | undefined)[] = [];
    const events: AguiEvent[] = [];
    for await (const e of agent.events({ runId })) {
      if (events.length === 0) named.push(agent.activeRun);
      events.push(e);
    }
    expect(sameRun(events)).toEqual(sameRun(uncut.events));
    expect(requestsOf(server).slice(-2)).toEqual(["POST /agent", `GET /agent?runId=${runId}`]);
    // The token the POST carried is the one the reattach presented.
    const [post, get] = server.requests.slice(-2);
    expect(get!.headers["ag-ui-resume-token"]).toBe(post!.headers["ag-ui-resume-token"]);
    expect(named).toEqual([{ runId, resumeToken: post!.headers["ag-ui-resume-token"] }]);
  });

  it("a POST that never reached the server fails with its own error, not the reattach's 404", async () => {
    // The POST's connection is cut before the server sees a byte of it; the reattach gets through.
    let connections = 0;
    const gate = await listen((req: IncomingMessage, res: ServerResponse) => {
      if (++connections === 1) {
        req.socket.destroy();
        return;
      }
      res.writeHead(404, { "content-type": "application/json" }).end('{"error":"no run"}');
    });
    open.push(gate);
    const { events, error } = await collect(client(`${gate.origin}/agent`, transport));
    expect(events).toEqual([]);
    expect(error).toMatchObject({ code: "network_error" });
    expect(connections).toBe(2);
  });

  it("survives several cuts, each reattach after the last event seen", async () => {
    const server = await serve(traceAgent(TRACE));
    const uncut = await reference(server, transport);
    const step = Math.floor(uncut.bodyBytes / 6);
    const proxy = await proxyTo(server, { cuts: [step, step, step, step] });
    const { events, error } = await collect(client(`${proxy.origin}/agent`, transport));
    expect(error).toBeUndefined();
    expect(sameRun(events)).toEqual(sameRun(uncut.events));
    const seqs = requestsOf(server)
      .slice(2)
      .map((r) => Number(/#(\d+)$/.exec(r)![1]));
    expect(seqs).toHaveLength(4);
    for (let i = 1; i < seqs.length; i++) expect(seqs[i]).toBeGreaterThan(seqs[i - 1]!);
  });

  it("cut after RUN_FINISHED (in the body's last bytes), asks once whether anything follows (204) and ends whole", async () => {
    const server = await serve(traceAgent(TRACE));
    const uncut = await reference(server, transport);
    // Chunked encoding ends with "0\r\n\r\n": the cut leaves every event whole.
    const proxy = await proxyTo(server, { cuts: [uncut.bodyBytes - 3] });
    const runId = nextRunId();
    const { events, error } = await collect(client(`${proxy.origin}/agent`, transport), runId);
    expect(error).toBeUndefined();
    expect(sameRun(events)).toEqual(sameRun(uncut.events));
    // A stream may hold another run after a RUN_FINISHED: the server answers 204, nothing more.
    expect(requestsOf(server).slice(1)).toEqual(["POST /agent", `GET /agent?runId=${runId} #${TRACE.length - 1}`]);
  });

  it("a stream of two runs cut just after the first one's RUN_FINISHED reattaches and gets the second", async () => {
    // The 1.0 session: a run that ends on an interrupt, then the run that resumes it, one stream.
    const trace = run10Trace(400);
    const server = await serve(() => trace);
    // Cut where the second run's RUN_STARTED (the first mention of its id) begins.
    const proxy = await proxyTo(server, { cuts: [{ before: "run-10-b" }] });
    const runId = nextRunId();
    const { events, error } = await collect(client(`${proxy.origin}/agent`, transport), runId);
    expect(error).toBeUndefined();
    expect(events).toHaveLength(trace.length);
    expect(events.map((e) => e.type)).toEqual(trace.map((e) => e.type));
    const firstEnd = trace.findIndex((e) => e.type === "RUN_FINISHED");
    expect(requestsOf(server)).toEqual(["POST /agent", `GET /agent?runId=${runId} #${firstEnd}`]);
  });

  it("cut after RUN_ERROR, ends whole without reattaching", async () => {
    const trace = [...TRACE.slice(0, -1), { type: "RUN_ERROR", message: "the model gave up", code: "gave_up" } as AguiEventInput];
    const server = await serve(traceAgent(trace));
    const uncut = await reference(server, transport);
    const proxy = await proxyTo(server, { cuts: [uncut.bodyBytes - 3] });
    const { events, error } = await collect(client(`${proxy.origin}/agent`, transport));
    expect(error).toBeUndefined();
    expect(sameRun(events)).toEqual(sameRun(uncut.events));
    expect(requestsOf(server).slice(1)).toEqual(["POST /agent"]);
  });

  it("stalled past idleTimeoutMs, reattaches like after a cut", async () => {
    const gated = gatedAgent(TRACE, 100);
    const handler = createNodeHandler(gated.agent, { store: memoryStore() });
    // The agent goes on once the client has given up waiting and reattached.
    const server = await listen((req, res) => {
      if (req.method === "GET") gated.release();
      void handler(req, res);
    });
    open.push(server);
    const runId = nextRunId();
    // The idle timeout also bounds the wait for the POST's answer, whose first 100 events the
    // server makes before the stall: a worker starved of CPU (a loaded machine) runs an expired
    // timer before the I/O that arrived meanwhile, so the bound must hold that answer's delay
    // whatever the load (100 ms did not); the stall itself lasts until the reattach.
    const { events, error } = await collect(client(server.url, transport, { idleTimeoutMs: 1000 }), runId);
    expect(error).toBeUndefined();
    expect(events).toHaveLength(TRACE.length);
    expect(requestsOf(server)).toEqual(["POST /agent", `GET /agent?runId=${runId} #99`]);
  });

  it("reattaches and cancels with the agent's headers and fetch", async () => {
    const gated = gatedAgent(TRACE, 200);
    const server = await serve(gated.agent);
    const proxy = await proxyTo(server, { cuts: [1500] });
    const calls: string[] = [];
    const countingFetch: typeof fetch = (url, init) => {
      calls.push(`${init?.method} ${String(url).replace(proxy.origin, "")}`);
      return fetch(url, init);
    };
    const agent = client(`${proxy.origin}/agent`, transport, { headers: { "x-token": "t-1" }, fetch: countingFetch });
    const runId = nextRunId();
    let count = 0;
    const error = await (async () => {
      for await (const _ of agent.events({ runId })) if (++count === 150) agent.abortRun();
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "aborted" });
    await gated.cancelled;
    expect(calls).toEqual(["POST /agent", `GET /agent?runId=${runId}`, `DELETE /agent?runId=${runId}`]);
    expect(server.requests.map((r) => r.headers["x-token"])).toEqual(["t-1", "t-1", "t-1"]);
  });

  it("with resume: false, fails with the cut's error and sends nothing more", async () => {
    const server = await serve(traceAgent(TRACE));
    const proxy = await proxyTo(server, { cuts: [2000] });
    const { events, error } = await collect(client(`${proxy.origin}/agent`, transport, { resume: false }));
    expect(events.length).toBeGreaterThan(0);
    expect(events.length).toBeLessThan(TRACE.length);
    expect(error).toBeInstanceOf(AguiWireError);
    expect((error as AguiWireError).code).toMatch(/^(network_error|truncated_stream)$/);
    expect(requestsOf(server)).toEqual(["POST /agent"]);
  });

  it("fails with the last error once the retries are spent, each reconnection cut again", async () => {
    const server = await serve(traceAgent(TRACE));
    // Every reattach is cut right after its headers: no progress.
    const proxy = await proxyTo(server, { cuts: (n) => (n === 0 ? 2000 : 0) });
    const { events, error } = await collect(client(`${proxy.origin}/agent`, transport, { resume: { retries: 2, backoffMs: 1 } }));
    expect(events.length).toBeGreaterThan(0);
    expect(error).toBeInstanceOf(AguiWireError);
    expect((error as AguiWireError).code).toMatch(/^(network_error|truncated_stream)$/);
    // Two reattaches, no DELETE: a failed run is not cancelled, it stays in the store.
    expect(requestsOf(server).map((r) => r.split(" ")[0])).toEqual(["POST", "GET", "GET"]);
  });

  it("counts a reconnection that fails before its headers against the retries, then goes on", async () => {
    const server = await serve(traceAgent(TRACE));
    const uncut = await reference(server, transport);
    // Connections 1 and 2 are cut before a byte of the response; 3 goes through.
    const proxy = await proxyTo(server, { cuts: [2000, 0, 0], from: "response" });
    const { events, error } = await collect(client(`${proxy.origin}/agent`, transport));
    expect(error).toBeUndefined();
    expect(sameRun(events)).toEqual(sameRun(uncut.events));
    expect(proxy.log).toHaveLength(4);
  });

  it("refuses a reattach answered for another run (or for none), reads none of it, and asks again", async () => {
    const real = createNodeHandler(traceAgent(TRACE), { compression: false, store: memoryStore() });
    let gets = 0;
    const server = await listen((req: IncomingMessage, res: ServerResponse) => {
      if (req.method === "GET" && ++gets <= 2) {
        // A misrouted answer: another run's events, which would splice into this one.
        const headers: Record<string, string> = { "content-type": transport === "sse" ? "text/event-stream" : "application/vnd.ag-ui.event+proto" };
        if (gets === 1) headers["AG-UI-Run-Id"] = "someone-else";
        res.writeHead(200, headers);
        res.end(transport === "sse" ? 'id: 7\ndata: {"type":"CUSTOM","name":"stranger","value":1}\n\n' : "");
        return;
      }
      real(req, res);
    });
    open.push(server);
    const uncut = await reference(server, transport);
    const proxy = await proxyTo(server, { cuts: [Math.floor(uncut.bodyBytes / 2)] });
    const { events, error } = await collect(client(`${proxy.origin}/agent`, transport));
    expect(error).toBeUndefined();
    expect(sameRun(events)).toEqual(sameRun(uncut.events));
    expect(gets).toBe(3);
  });

  it("fails with the mismatch once the retries are spent on answers for another run", async () => {
    const real = createNodeHandler(traceAgent(TRACE), { compression: false, store: memoryStore() });
    const server = await listen((req: IncomingMessage, res: ServerResponse) => {
      if (req.method === "GET") {
        res.writeHead(200, { "content-type": "text/event-stream", "AG-UI-Run-Id": "someone-else" }).end();
        return;
      }
      real(req, res);
    });
    open.push(server);
    const uncut = await reference(server, transport);
    const proxy = await proxyTo(server, { cuts: [Math.floor(uncut.bodyBytes / 2)] });
    const { events, error } = await collect(client(`${proxy.origin}/agent`, transport, { resume: { retries: 2, backoffMs: 1 } }));
    expect(events.length).toBeLessThan(uncut.events.length);
    expect(error).toBeInstanceOf(AguiWireError);
    expect((error as AguiWireError).code).toBe("protocol_violation");
    expect((error as Error).message).toMatch(/^reattaching to run "run-\d+", the server answered for run "someone-else"$/);
  });

  it("ends with http_status 404 when the reattach finds no such run, without retrying", async () => {
    const server = await serve(traceAgent(TRACE));
    // The reconnection goes to another server, whose store never heard of the run.
    const other = await serve(traceAgent(TRACE));
    const proxy = await proxyTo(server, { cuts: [2000], route: (n) => (n === 0 ? undefined : other.origin) });
    const runId = nextRunId();
    const { events, error } = await collect(client(`${proxy.origin}/agent`, transport), runId);
    expect(events.length).toBeGreaterThan(0);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error).toMatchObject({ code: "http_status", status: 404 });
    expect((error as Error).message).toContain(`reattaching to run ${runId} after event ${events.length - 1}`);
    expect(requestsOf(other)).toEqual([`GET /agent?runId=${runId} #${events.length - 1}`]);
  });

  it("ends with http_status 400 when the reattach asks past the end of the run", async () => {
    // The other server knows a run of that id, ended after one event: the client asks after event 1 or later.
    const server = await serve(traceAgent(TRACE));
    const other = await serve(traceAgent([{ type: "RUN_ERROR", message: "short" } as AguiEventInput]));
    const runId = nextRunId();
    expect((await collect(client(other.url, transport), runId)).error).toBeUndefined();
    const proxy = await proxyTo(server, { cuts: [2000], route: (n) => (n === 0 ? undefined : other.origin) });
    const { error } = await collect(client(`${proxy.origin}/agent`, transport), runId);
    expect(error).toMatchObject({ code: "http_status", status: 400 });
  });

  it("after abortRun, does not reattach, and cancels the server's run (DELETE): its agent's signal fires", async () => {
    const gated = gatedAgent(TRACE, 50);
    const server = await serve(gated.agent);
    const agent = client(server.url, transport);
    const runId = nextRunId();
    const stream = agent.events({ runId });
    let count = 0;
    let active: ActiveRun | undefined;
    const error = await (async () => {
      for await (const _ of stream) if (++count === 50) ((active = agent.activeRun), agent.abortRun());
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "aborted" });
    await gated.cancelled;
    expect(requestsOf(server)).toEqual(["POST /agent", `DELETE /agent?runId=${runId}`]);
    // The run ended on the server with RUN_ERROR cancelled, which a reattach reads.
    const reader = client(server.url, transport);
    const seen: AguiEvent[] = [];
    expect(active).toEqual({ runId, resumeToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    // Over for this client: the agent names no run any more.
    expect(agent.activeRun).toBeUndefined();
    await reader.connectAgent({ runId, resumeToken: active!.resumeToken }, { onEvent: ({ event }) => void seen.push(event) });
    expect(seen).toHaveLength(51);
    expect(seen.at(-1)).toMatchObject({ type: "RUN_ERROR", code: "cancelled" });
  });

  it("with resume: false, abortRun still cancels the server's run: the DELETE needs only the run's header", async () => {
    const gated = gatedAgent(TRACE, 30);
    const server = await serve(gated.agent);
    const agent = client(server.url, transport, { resume: false });
    const runId = nextRunId();
    let count = 0;
    const error = await (async () => {
      for await (const _ of agent.events({ runId })) if (++count === 30) agent.abortRun();
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "aborted" });
    await gated.cancelled;
    expect(requestsOf(server)).toEqual(["POST /agent", `DELETE /agent?runId=${runId}`]);
  });

  it("detachActiveRun stops following the run without cancelling it: no DELETE, and the run ends whole on the server", async () => {
    const gated = gatedAgent(TRACE, 40);
    const server = await serve(gated.agent);
    const agent = client(server.url, transport);
    const runId = nextRunId();
    let count = 0;
    const running = agent.runAgent({ runId, resumeToken: TOKEN }, { onEvent: () => void (++count === 40 && void agent.detachActiveRun()) });
    await running;
    expect(count).toBe(40);
    gated.release();
    const seen: AguiEvent[] = [];
    await client(server.url, transport).connectAgent({ runId, resumeToken: TOKEN }, { onEvent: ({ event }) => void seen.push(event) });
    expect(seen.map((e) => e.type)).toEqual(TRACE.map((e) => e.type));
    expect(requestsOf(server)).toEqual(["POST /agent", `GET /agent?runId=${runId}`]);
  });

  it("abortController.abort() during runAgent resolves the run and cancels it on the server", async () => {
    const gated = gatedAgent(TRACE, 20);
    const server = await serve(gated.agent);
    const agent = client(server.url, transport);
    const controller = new AbortController();
    const runId = nextRunId();
    let count = 0;
    const result = await agent.runAgent({ runId, abortController: controller }, { onEvent: () => void (++count === 20 && controller.abort()) });
    expect(result.newMessages).toBeDefined();
    await gated.cancelled;
    expect(requestsOf(server)).toEqual(["POST /agent", `DELETE /agent?runId=${runId}`]);
  });

  it("a DELETE that fails is neither thrown nor unhandled", async () => {
    const gated = gatedAgent(TRACE, 10);
    const server = await serve(gated.agent);
    // Connection 1 (the DELETE) is cut before its answer.
    const proxy = await proxyTo(server, { cuts: [undefined, 0], from: "response" });
    const agent = client(`${proxy.origin}/agent`, transport);
    let count = 0;
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => void unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const error = await (async () => {
        for await (const _ of agent.events({ runId: nextRunId() })) if (++count === 10) agent.abortRun();
      })().catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "aborted" });
      // The DELETE reached the server (its answer was cut): the agent is told.
      await gated.cancelled;
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("connectAgent after a reload gets the whole run, the live rest included, and rebuilds the original's messages", async () => {
    const initialMessages: Message[] = [{ id: "user-0", role: "user", content: "What's the weather like this week?" }];
    const gated = gatedAgent(TRACE, 150);
    const server = await serve(gated.agent);
    // What an uncut run builds.
    const whole = client(server.url, transport, { initialMessages });
    const expected = whole.runAgent({ runId: nextRunId() });
    gated.release();
    await expected;

    // The page: its run is cut in the middle (and it does not resume: the page is gone).
    const gated2 = gatedAgent(TRACE, 150);
    const server2 = await serve(gated2.agent);
    const proxy = await proxyTo(server2, { cuts: [1500] });
    const page = client(`${proxy.origin}/agent`, transport, { initialMessages, resume: false });
    const runId = nextRunId();
    await expect(page.runAgent({ runId, resumeToken: TOKEN })).rejects.toBeInstanceOf(AguiWireError);

    // The reloaded page: a new agent with the runId reattaches from the start; the rest of the
    // run is let through once it has caught up with what was stored.
    const reloaded = client(server2.url, transport, { initialMessages });
    let count = 0;
    const result = await reloaded.connectAgent({ runId, resumeToken: TOKEN }, { onEvent: () => void (++count === 150 && gated2.release()) });
    expect(count).toBe(TRACE.length);
    expect(reloaded.messages).toEqual(whole.messages);
    expect(result.newMessages.length).toBeGreaterThan(0);
    expect(requestsOf(server2)).toEqual(["POST /agent", `GET /agent?runId=${runId}`]);
  });

  it("connectAgent resumes a cut reattach too", async () => {
    const server = await serve(traceAgent(TRACE));
    const runId = nextRunId();
    const uncut = await collect(client(server.url, transport), runId);
    const proxy = await proxyTo(server, { cuts: [1000, 1000] });
    const reloaded = client(`${proxy.origin}/agent`, transport);
    const seen: AguiEvent[] = [];
    await reloaded.connectAgent({ runId, resumeToken: TOKEN }, { onEvent: ({ event }) => void seen.push(event) });
    expect(seen).toEqual(uncut.events);
    expect(requestsOf(server).slice(1).map((r) => r.split(" ")[0])).toEqual(["GET", "GET", "GET"]);
  });

  it("connectAgent to an unknown run rejects with http_status 404", async () => {
    const server = await serve(traceAgent(TRACE));
    const error = await client(server.url, transport).connectAgent({ runId: "nobody" }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "http_status", status: 404 });
  });
});

describe("the SSE ids of a resumable run", () => {
  /**
   * A server whose first `bad` reattaches answer for the right run with events numbered wrong
   * (`ids(after)` gives the ids to send for the events after `after`), then the real answers.
   */
  async function misnumbering(bad: number, ids: (after: number) => number[]): Promise<{ server: TestServer; gets: () => number }> {
    const real = createNodeHandler(traceAgent(TRACE), { compression: false, store: memoryStore() });
    const events = TRACE.map((e) => parseEvent(e));
    let gets = 0;
    const server = await listen((req: IncomingMessage, res: ServerResponse) => {
      if (req.method === "GET" && ++gets <= bad) {
        const after = Number(req.headers["last-event-id"] ?? -1);
        const runId = new URL(req.url!, "http://x").searchParams.get("runId")!;
        res.writeHead(200, { "content-type": "text/event-stream", "AG-UI-Run-Id": runId });
        res.end(ids(after).map((id) => `id: ${id}\n${encodeSSE(events[Math.min(id, events.length - 1)]!)}`).join(""));
        return;
      }
      real(req, res);
    });
    open.push(server);
    return { server, gets: () => gets };
  }

  it.each([
    ["a repeat of the last event seen", (after: number) => [after, after + 1]],
    ["a skipped event", (after: number) => [after + 2, after + 3]],
    ["another run's numbering", () => [900, 901]],
  ])("refuses a reattach with %s, delivers none of it, and asks again", async (_what, ids) => {
    const { server, gets } = await misnumbering(1, ids);
    const uncut = await reference(server, "sse");
    const proxy = await proxyTo(server, { cuts: [Math.floor(uncut.bodyBytes / 2)] });
    const { events, error } = await collect(client(`${proxy.origin}/agent`, "sse"));
    expect(error).toBeUndefined();
    expect(sameRun(events)).toEqual(sameRun(uncut.events));
    expect(gets()).toBe(2);
  });

  it("fails with protocol_violation, naming the ids, once the retries are spent", async () => {
    const { server } = await misnumbering(Infinity, (after) => [after + 2]);
    const uncut = await reference(server, "sse");
    const proxy = await proxyTo(server, { cuts: [Math.floor(uncut.bodyBytes / 2)] });
    const { events, error } = await collect(client(`${proxy.origin}/agent`, "sse", { resume: { retries: 2, backoffMs: 1 } }));
    expect(events.length).toBeLessThan(uncut.events.length);
    expect(error).toMatchObject({ code: "protocol_violation" });
    expect((error as Error).message).toMatch(/^the stream of run "run-\d+" broke its numbering: expected event id \d+, found "\d+"$/);
  });
});

describe.each(TRANSPORTS)("a server without a store, over %s", (transport) => {
  it("runs as before: a cut fails the run, nothing reattaches", async () => {
    const server = await serve(traceAgent(TRACE), false);
    const whole = await collect(client(server.url, transport));
    expect(whole.error).toBeUndefined();
    expect(whole.events).toHaveLength(TRACE.length);
    const proxy = await proxyTo(server, { cuts: [2000] });
    const { error } = await collect(client(`${proxy.origin}/agent`, transport));
    expect((error as AguiWireError).code).toMatch(/^(network_error|truncated_stream)$/);
    expect(requestsOf(server)).toEqual(["POST /agent", "POST /agent"]);
  });

  it("connectAgent rejects with http_status: it cannot reattach", async () => {
    const server = await serve(traceAgent(TRACE), false);
    const error = await client(server.url, transport).connectAgent({ runId: "r" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect((error as HttpStatusError).status).toBeGreaterThanOrEqual(400);
  });

  it("an abort sends no DELETE", async () => {
    const gated = gatedAgent(TRACE, 10);
    const server = await serve(gated.agent, false);
    const agent = client(server.url, transport);
    let count = 0;
    const error = await (async () => {
      for await (const _ of agent.events({ runId: nextRunId() })) if (++count === 10) agent.abortRun();
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "aborted" });
    // Without a store the server stops the agent when its client leaves.
    await gated.cancelled;
    expect(requestsOf(server)).toEqual(["POST /agent"]);
  });
});

describe("unknown events skipped by onUnknownEvent", () => {
  it("count for the sequence: the reattach asks after the last event of any type", async () => {
    // Our server cannot send an event type it does not know, so a raw one does: SSE events
    // numbered by `id:`, the third of a type from the future; the POST's answer is cut after
    // the fourth (id 3), and a GET answers from Last-Event-ID on.
    const events = [
      { type: "RUN_STARTED", threadId: "t", runId: "r" },
      { type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant" },
      { type: "FUTURE_EVENT", hello: 1 },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "hi" },
      { type: "TEXT_MESSAGE_END", messageId: "m" },
      { type: "RUN_FINISHED", threadId: "t", runId: "r" },
    ];
    const sse = (from: number, to: number) =>
      events
        .slice(from, to)
        .map((e, i) => `id: ${from + i}\ndata: ${JSON.stringify(e)}\n\n`)
        .join("");
    const server = await listen((req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      res.writeHead(200, { "content-type": "text/event-stream", "ag-ui-run-id": "r" });
      if (req.method === "POST") {
        // Four whole events and half of the fifth, then the connection drops.
        res.write(sse(0, 4) + sse(4, 5).slice(0, 20), () => res.destroy());
        return;
      }
      res.end(sse(Number(req.headers["last-event-id"] ?? -1) + 1, events.length));
    });
    open.push(server);
    const skipped: string[] = [];
    const agent = new HttpAgent({ url: server.url, transport: "sse", resume: { backoffMs: 1 }, onUnknownEvent: (e) => void skipped.push(String(e.type)) });
    const { events: got, error } = await collect(agent, "r");
    expect(error).toBeUndefined();
    expect(got.map((e) => e.type)).toEqual(["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED"]);
    expect(skipped).toEqual(["FUTURE_EVENT"]);
    expect(requestsOf(server)).toEqual(["POST /agent", "GET /agent?runId=r #3"]);
  });
});

describe("the resume option", () => {
  it("is on by default, with 5 retries from 200 ms", () => {
    expect(new HttpAgent({ url: "http://x/agent" }).resume).toEqual({ retries: DEFAULT_RESUME_RETRIES, backoffMs: DEFAULT_RESUME_BACKOFF_MS });
    expect([DEFAULT_RESUME_RETRIES, DEFAULT_RESUME_BACKOFF_MS, MAX_RESUME_BACKOFF_MS]).toEqual([5, 200, 10_000]);
    expect(new HttpAgent({ url: "http://x/agent", resume: false }).resume).toBeUndefined();
    expect(new HttpAgent({ url: "http://x/agent", resume: { retries: 0 } }).resume).toEqual({ retries: 0, backoffMs: 200 });
  });

  it("is checked: TypeError for the wrong kind, RangeError for a wrong number, each naming what it found", () => {
    const make = (resume: unknown) => () => new HttpAgent({ url: "http://x/agent", resume: resume as false });
    expect(make("yes")).toThrow(new TypeError("resume must be false or an object { retries?, backoffMs? }; found string"));
    expect(make(null)).toThrow(/found null/);
    expect(make([])).toThrow(/found an array/);
    expect(make({ retries: "3" })).toThrow(new TypeError("resume.retries must be a number; found string"));
    expect(make({ retries: -1 })).toThrow(new RangeError("resume.retries must be an integer, 0 or more; found -1"));
    expect(make({ retries: 1.5 })).toThrow(RangeError);
    expect(make({ backoffMs: "1" })).toThrow(TypeError);
    expect(make({ backoffMs: -5 })).toThrow(new RangeError("resume.backoffMs must be a finite number of milliseconds, 0 or more; found -5"));
    expect(make({ backoffMs: Infinity })).toThrow(RangeError);
  });

  it("backs off doubling from backoffMs up to 10 s (or backoffMs when more)", () => {
    expect([0, 1, 2, 3, 4].map((n) => resumeDelay(n, 200))).toEqual([200, 400, 800, 1600, 3200]);
    expect(resumeDelay(10, 200)).toBe(10_000);
    expect(resumeDelay(3, 20_000)).toBe(20_000);
    expect(resumeDelay(3, 0)).toBe(0);
  });

  it("reattaches at the agent's URL with runId set, other parameters kept", () => {
    expect(withRunId("http://h/agent", "r 1")).toBe("http://h/agent?runId=r+1");
    expect(withRunId("/agent?x=1&runId=old#top", "r")).toBe("/agent?x=1&runId=r");
  });
});
