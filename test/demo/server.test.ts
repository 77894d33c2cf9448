/**
 * The demo server over HTTP, without a browser: the page, its script, the agent in both
 * transports; and `npm start`'s entry, which prints the URL and stops on SIGINT.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeEventStream, EventType, parseEvent, type AguiEvent } from "../../src/index.js";
import { DEMO_TOKEN, startDemoServer, type DemoServer } from "../../demo/server.js";
import { conversationRun } from "../../demo/conversation-run.js";
import { asServed } from "../server/helpers.js";

const BINARY = "application/vnd.ag-ui.event+proto";
const SSE = "text/event-stream";
const input = { threadId: "t", runId: "r", state: {}, messages: [], tools: [], context: [], forwardedProps: {} };

describe("startDemoServer", () => {
  let server: DemoServer;
  beforeAll(async () => {
    server = await startDemoServer({ port: 0, delayMs: 2 });
  });
  afterAll(() => server.close());

  it("binds 127.0.0.1 on the port asked for and gives the page's URL", () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/`);
    expect(server.port).toBeGreaterThan(0);
  });

  it("serves the page, which loads its script as a module", async () => {
    const response = await fetch(server.url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await response.text();
    expect(html).toContain('<script type="module" src="/page.js"></script>');
    expect(html).toContain('id="binary"');
    expect(html).toContain('id="sse"');
    // Each panel shows the conversation and the state beside the events.
    expect(html.match(/<ol class="conversation"/g)).toHaveLength(2);
    expect(html.match(/<pre class="state">/g)).toHaveLength(2);
    // The page is told the agent's pacing, to say how much of a run's time it is.
    expect(html).toContain('<meta name="agent-delay-ms" content="2" />');
  });

  it("serves the bundled script, with no import left for the browser to resolve", async () => {
    const response = await fetch(new URL("/page.js", server.url));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    const script = await response.text();
    expect(script).not.toMatch(/\bimport\s*[{*"']/);
    expect(script).toContain("/agent");
  });

  it.each([BINARY, SSE])("runs the scripted conversation over %s, resumably", async (accept) => {
    // The agent's store keeps runs by id: each run here has its own.
    const run = { ...input, runId: `r-${accept === BINARY ? "binary" : "sse"}` };
    const response = await fetch(new URL("/agent", server.url), {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: accept },
      body: JSON.stringify(run),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe(accept);
    expect(response.headers.get("ag-ui-run-id")).toBe(run.runId);
    const events: AguiEvent[] = [];
    for await (const event of decodeEventStream(response.body!, accept)) events.push(event);
    // As the server sends them: the RUN_STARTED declares its protocol version, the agent having declared none.
    const expected = [...conversationRun(run)].map((e) => parseEvent(asServed(e)));
    // Timestamps differ between runs; everything else must match.
    const strip = ({ timestamp: _, ...rest }: AguiEvent & { timestamp?: number }) => rest;
    expect(events.map(strip)).toEqual(expected.map(strip));
    expect(events.at(-1)?.type).toBe(EventType.RUN_FINISHED);
  });

  /**
   * Reads `response`'s SSE events until it has five, then POSTs /demo/drop: exactly one connection
   * (this one) is cut, and its reading fails. The events read before the cut.
   */
  async function readThenDrop(response: Response): Promise<AguiEvent[]> {
    const seen: AguiEvent[] = [];
    const reading = (async () => {
      for await (const event of decodeEventStream(response.body!, SSE)) seen.push(event);
    })().catch((error: unknown) => error);
    while (seen.length < 5) await new Promise((resolve) => setTimeout(resolve, 5));
    const drop = await fetch(new URL("/demo/drop", server.url), { method: "POST" });
    expect(await drop.json()).toEqual({ dropped: 1 });
    expect(await reading).toMatchObject({ code: expect.stringMatching(/network_error|truncated_stream/) });
    return seen;
  }

  it("cuts the connections of the runs in progress on POST /demo/drop; the run goes on, and a GET with its resume token reattaches after the last event seen", async () => {
    const run = { ...input, runId: "dropped" };
    const response = await fetch(new URL("/agent", server.url), {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: SSE },
      body: JSON.stringify(run),
    });
    // The run's resume token, which the reattach presents.
    const token = response.headers.get("ag-ui-resume-token");
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const seen = await readThenDrop(response);
    const rest = await fetch(new URL(`/agent?runId=dropped`, server.url), { headers: { Accept: BINARY, "Last-Event-ID": String(seen.length - 1), "AG-UI-Resume-Token": token! } });
    expect(rest.status).toBe(200);
    const after: AguiEvent[] = [];
    for await (const event of decodeEventStream(rest.body!, BINARY)) after.push(event);
    expect([...seen, ...after].map((e) => e.type)).toEqual([...conversationRun(run)].map((e) => e.type));
  });

  it("through the proxy too: POST /demo/drop cuts the client's connection to the proxy, not the proxy's to its upstream; the proxy's own store keeps the run, and a GET through the proxy with the run's token reattaches", async () => {
    const run = { ...input, runId: "dropped-via-proxy" };
    const authorization = `Bearer ${DEMO_TOKEN}`;
    const response = await fetch(new URL("/proxy/agents/demo", server.url), {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: SSE, authorization },
      body: JSON.stringify(run),
    });
    expect(response.status).toBe(200);
    // The proxy names the run and gives its resume token, though its upstream keeps no runs.
    expect(response.headers.get("ag-ui-run-id")).toBe(run.runId);
    const token = response.headers.get("ag-ui-resume-token");
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Only the client's connection is cut: the proxy's request to /sse-agent goes on.
    const seen = await readThenDrop(response);
    // The upstream cannot be reattached to: the reattach is the proxy's.
    expect((await fetch(new URL(`/sse-agent?runId=${run.runId}`, server.url), { headers: { Accept: SSE } })).status).toBe(405);
    const path = `/proxy/agents/demo?runId=${run.runId}`;
    const lastEventId = String(seen.length - 1);
    // The run is the principal's: without the bearer token the proxy refuses, without the run's token it knows no such run.
    expect((await fetch(new URL(path, server.url), { headers: { Accept: BINARY, "Last-Event-ID": lastEventId, "AG-UI-Resume-Token": token! } })).status).toBe(401);
    expect((await fetch(new URL(path, server.url), { headers: { Accept: BINARY, "Last-Event-ID": lastEventId, authorization } })).status).toBe(404);
    const rest = await fetch(new URL(path, server.url), { headers: { Accept: BINARY, "Last-Event-ID": lastEventId, "AG-UI-Resume-Token": token!, authorization } });
    expect(rest.status).toBe(200);
    expect(rest.headers.get("content-type")).toBe(BINARY);
    const after: AguiEvent[] = [];
    for await (const event of decodeEventStream(rest.body!, BINARY)) after.push(event);
    // Every event once, in order, the cut in between.
    const strip = ({ timestamp: _, ...others }: AguiEvent & { timestamp?: number }) => others;
    // The upstream server's RUN_STARTED, which declares its protocol version, reaches the client as it was sent.
    expect([...seen, ...after].map(strip)).toEqual([...conversationRun(run)].map((e) => strip(parseEvent(asServed(e)))));
  });

  it("serves the agent through the proxy: SSE-only upstream, binary to the client with the demo token, 401 without it", async () => {
    const listed = await fetch(new URL("/proxy/agents", server.url), { headers: { authorization: `Bearer ${DEMO_TOKEN}` } });
    expect(await listed.json()).toEqual({ agents: [{ name: "demo", description: "The demo agent, answering SSE only" }] });
    const upstream = await fetch(new URL("/sse-agent", server.url), { method: "POST", headers: { "Content-Type": "application/json", Accept: BINARY }, body: JSON.stringify(input) });
    expect(upstream.headers.get("content-type")).toBe(SSE);
    await upstream.body!.cancel();
    const response = await fetch(new URL("/proxy/agents/demo", server.url), {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: BINARY, authorization: `Bearer ${DEMO_TOKEN}` },
      body: JSON.stringify(input),
    });
    expect(response.headers.get("content-type")).toBe(BINARY);
    const events: AguiEvent[] = [];
    for await (const event of decodeEventStream(response.body!, BINARY)) events.push(event);
    expect(events.map((e) => e.type)).toEqual([...conversationRun(input)].map((e) => e.type));
    const refused = await fetch(new URL("/proxy/agents/demo", server.url), { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(input) });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="agui-wire"');
  });

  it("answers 404 to other paths and 405 to other methods", async () => {
    expect((await fetch(new URL("/nope", server.url))).status).toBe(404);
    expect((await fetch(server.url, { method: "POST", body: "x" })).status).toBe(405);
    // The agent's handler has a store: GET reattaches, and needs the run's id.
    expect((await fetch(new URL("/agent", server.url))).status).toBe(400);
    expect((await fetch(new URL("/agent", server.url), { method: "PUT" })).status).toBe(405);
    expect((await fetch(new URL("/demo/drop", server.url))).status).toBe(404);
  });
});

describe("npm start (demo/main.ts)", () => {
  it("prints the URL, serves it, and exits 0 on SIGINT", async () => {
    const root = fileURLToPath(new URL("../..", import.meta.url));
    const child = spawn(process.execPath, ["--import", "tsx", "demo/main.ts"], {
      cwd: root,
      env: { ...process.env, PORT: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    try {
      const deadline = Date.now() + 15_000;
      while (!/http:\/\/127\.0\.0\.1:\d+\//.test(out)) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no URL printed; stdout: ${out}; stderr: ${err}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const url = out.match(/http:\/\/127\.0\.0\.1:\d+\//)![0];
      expect((await fetch(url)).status).toBe(200);
      child.kill("SIGINT");
      expect(await exited).toBe(0);
      expect(out).toContain("SIGINT: stopping the demo server");
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });

  it("refuses a PORT that is not a port number", async () => {
    const root = fileURLToPath(new URL("../..", import.meta.url));
    const child = spawn(process.execPath, ["--import", "tsx", "demo/main.ts"], {
      cwd: root,
      env: { ...process.env, PORT: "http" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
    expect(code).toBe(2);
    expect(err).toContain('PORT must be a port number (0 to 65535), found "http"');
  });
});
