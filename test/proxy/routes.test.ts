// The proxy's routes over real HTTP on 127.0.0.1: authentication (static tokens and HS256 JWTs),
// `GET /agents`, `POST /agents/{name}` and every refusal around it (401, 403, 404, 405, 413, 415,
// 422, 429), the headers that reach the upstream, CORS, `/metrics` and the run log, through the
// Node handler in front of small real upstreams (our server, and raw ones that hold a run open
// until the test lets it end), and a few of the same through the fetch-style handler called with
// `new Request(...)`. Time for JWT expiry comes from an injected clock.
import { request as httpRequest, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import { SignJWT, type JWTPayload } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AguiEvent, AguiEventInput, RunAgentInput } from "../../src/index.js";
import { createNodeHandler } from "../../src/server/index.js";
import { createNodeProxyHandler, createProxyHandler, type ProxyRunRecord } from "../../src/proxy/index.js";
import { listen, withBody, type TestServer } from "../client/helpers.js";
import { rawRequest, readEvents, runInput, shortRun } from "../server/helpers.js";
import { issueConfig as issueConfigOf } from "./issue-config.js";

/** Fixed "now" for every JWT: 2025-01-01T00:00:00Z. */
const NOW_MS = Date.UTC(2025, 0, 1);
const NOW_S = NOW_MS / 1000;
const clock = { now: () => NOW_MS };
const SECRET = "a-32-byte-or-longer-shared-secret!!";
const ISSUER = "https://issuer.example";
const AUDIENCE = "agui";
const APP_ORIGIN = "http://localhost:5173";
const REALM = 'Bearer realm="agui-wire"';
const SSE = "text/event-stream";
/** The top-level body cap of the main proxy: small, so that over-long bodies stay small too. */
const MAX_BODY = 2000;

/** A signed HS256 token for the config's issuer and audience, valid for an hour after NOW. */
function jwt(claims: JWTPayload, options: { exp?: number; secret?: string } = {}): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256" })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setExpirationTime(options.exp ?? NOW_S + 3600)
    .sign(new TextEncoder().encode(options.secret ?? SECRET));
}

/** What {@link send} got back. */
interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Sends one complete request with node:http (which, unlike fetch, sends any header as given). */
function send(url: string, init: { method?: string; token?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Reply> {
  const headers: Record<string, string | number> = { ...init.headers };
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers["content-length"] = Buffer.byteLength(init.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: init.method ?? "GET", headers, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (chunk: Buffer) => parts.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(init.body);
  });
}

/** POSTs a valid run (or `body`) as JSON, asking for SSE. */
function run(url: string, token: string | undefined, init: { body?: string; headers?: Record<string, string> } = {}): Promise<Reply> {
  return send(url, {
    method: "POST",
    token,
    headers: { "content-type": "application/json", accept: SSE, ...init.headers },
    body: init.body ?? JSON.stringify(runInput()),
  });
}

/** The events of an SSE body, as JSON. */
function sseEvents(body: string): { type: string }[] {
  return body
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice("data: ".length)) as { type: string });
}

/** The `{ error }` of a JSON error answer, checking its shape on the way. */
function errorOf(reply: Reply): string {
  expect(reply.headers["content-type"]).toBe("application/json");
  const body = JSON.parse(reply.body) as { error?: unknown };
  expect(Object.keys(body)).toEqual(["error"]);
  expect(typeof body.error).toBe("string");
  return body.error as string;
}

/** A valid run request whose JSON is exactly `size` bytes long (padded in forwardedProps). */
function bodyOfSize(size: number): string {
  const base = JSON.stringify(runInput({ forwardedProps: { pad: "" } }));
  const body = JSON.stringify(runInput({ forwardedProps: { pad: "x".repeat(size - base.length) } }));
  expect(body.length).toBe(size);
  return body;
}

/** An upstream (our server) that answers every run with a short, valid run. */
function shortRunUpstream(): Promise<TestServer> {
  return listen(createNodeHandler((input: RunAgentInput): Iterable<AguiEventInput> => shortRun(input)));
}

/** An upstream that starts each run and holds it open (SSE) until the test ends it. */
async function heldUpstream(): Promise<{ server: TestServer; open: () => number; releaseAll: () => void }> {
  const held: { res: ServerResponse; input: RunAgentInput }[] = [];
  const server = await listen(
    withBody((_req, res, body) => {
      const input = JSON.parse(body) as RunAgentInput;
      res.writeHead(200, { "content-type": SSE, "cache-control": "no-cache" });
      res.write(`data: ${JSON.stringify({ type: "RUN_STARTED", threadId: input.threadId, runId: input.runId })}\n\n`);
      held.push({ res, input });
    }),
  );
  return {
    server,
    open: () => held.length,
    releaseAll: () => {
      for (const { res, input } of held.splice(0)) {
        if (res.destroyed) continue;
        res.end(`data: ${JSON.stringify({ type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId })}\n\n`);
      }
    },
  };
}

/** Starts a run with fetch and resolves once its response headers arrived (its body still open). */
function startRun(url: string, token: string): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: SSE },
    body: JSON.stringify(runInput()),
  });
}

// Upstreams.
let weatherUp: TestServer;
let echoUp: TestServer;
let headersUp: TestServer;
let held: Awaited<ReturnType<typeof heldUpstream>>;
let issueWeatherUp: TestServer;
let issueEcho: Awaited<ReturnType<typeof heldUpstream>>;
let metricsUp: TestServer;
// Proxies.
let proxy: TestServer;
let metricsProxy: TestServer;
let issueProxy: TestServer;
let fetchProxy: (request: Request) => Promise<Response>;
const records: ProxyRunRecord[] = [];
const issueRecords: ProxyRunRecord[] = [];

/** Requests every upstream of the main proxies received so far. */
const upstreamCalls = (): number => [weatherUp, echoUp, headersUp, held.server].reduce((n, s) => n + s.requests.length, 0);

/** The main proxy's configuration: the issue's agents and auth, and agents for header and limit tests. */
function mainConfig() {
  return {
    agents: {
      weather: { url: weatherUp.url, description: "Forecasts", headers: { authorization: "Bearer upstream-secret" } },
      echo: { url: echoUp.url, description: "Echoes" },
      fwd: { url: headersUp.url, forwardHeaders: ["cookie", "x-request-id", "connection", "te", "x-hop"] },
      override: {
        url: headersUp.url,
        forwardHeaders: ["x-request-id", "authorization"],
        headers: { "X-Request-Id": "from-route", authorization: "Bearer upstream-secret" },
      },
      plain: { url: headersUp.url, headers: { authorization: "Bearer upstream-secret" } },
      big: { url: echoUp.url, limits: { maxBodyBytes: 100_000 } },
      rated: { url: echoUp.url, limits: { runsPerMinute: 2 } },
      held: { url: held.server.url, limits: { concurrentRuns: 1 } },
    },
    auth: {
      tokens: [
        { token: "t-alice", subject: "alice", agents: ["weather", "echo"] },
        { token: "t-bob", subject: "bob", agents: ["echo"] },
        { token: "t-carol", subject: "carol" },
        { token: "t-dave", subject: "dave", agents: ["held"] },
      ],
      jwt: { secret: SECRET, issuer: ISSUER, audience: AUDIENCE },
    },
    limits: { maxBodyBytes: MAX_BODY, runsPerMinute: 600, runTimeoutMs: 300_000 },
    cors: { origins: [APP_ORIGIN] },
  };
}

beforeAll(async () => {
  [weatherUp, echoUp, headersUp, held, issueWeatherUp, issueEcho, metricsUp] = await Promise.all([
    shortRunUpstream(),
    shortRunUpstream(),
    shortRunUpstream(),
    heldUpstream(),
    shortRunUpstream(),
    heldUpstream(),
    shortRunUpstream(),
  ]);
  proxy = await listen(createNodeProxyHandler(mainConfig(), { logger: (r) => void records.push(r), auth: clock }));
  fetchProxy = createProxyHandler(mainConfig(), { auth: clock });
  metricsProxy = await listen(
    createNodeProxyHandler({
      agents: { echo: { url: metricsUp.url } },
      auth: { tokens: [{ token: "t-m", subject: "m" }] },
      metrics: true,
    }),
  );
  // The issue's example, as written but for the upstream URLs (ours, on free ports).
  const issueConfig = issueConfigOf(issueWeatherUp.url, issueEcho.server.url);
  issueProxy = await listen(createNodeProxyHandler(issueConfig, { logger: (r) => void issueRecords.push(r), auth: clock }));
});

afterAll(async () => {
  held?.releaseAll();
  issueEcho?.releaseAll();
  const servers = [weatherUp, echoUp, headersUp, held?.server, issueWeatherUp, issueEcho?.server, metricsUp, proxy, metricsProxy, issueProxy];
  await Promise.all(servers.map((s) => s?.close()));
});

const at = (path: string): string => `${proxy.origin}${path}`;

describe("authentication", () => {
  it.each([
    ["GET", "/agents"],
    ["POST", "/agents/echo"],
    ["POST", "/agents/nope"],
    ["GET", "/nowhere"],
    ["POST", "/agents/echo/extra"],
    ["GET", "/metrics"],
  ])("answers %s %s without credentials with 401 and the Bearer challenge", async (method, path) => {
    const before = upstreamCalls();
    const reply = await send(at(path), {
      method,
      ...(method === "POST" ? { headers: { "content-type": "application/json" }, body: JSON.stringify(runInput()) } : {}),
    });
    expect(reply.status).toBe(401);
    expect(reply.headers["www-authenticate"]).toBe(REALM);
    expect(errorOf(reply)).toBe("missing credentials: expected an Authorization header with a Bearer token");
    expect(upstreamCalls()).toBe(before);
  });

  it("refuses a wrong token with invalid_token, without repeating it", async () => {
    const before = upstreamCalls();
    for (const path of ["/agents", "/agents/echo"]) {
      const reply = path === "/agents" ? await send(at(path), { token: "t-mallory" }) : await run(at(path), "t-mallory");
      expect(reply.status).toBe(401);
      expect(reply.headers["www-authenticate"]).toMatch(/^Bearer realm="agui-wire", error="invalid_token"/);
      expect(errorOf(reply)).toMatch(/^invalid token: /);
      expect(reply.body).not.toContain("t-mallory");
    }
    expect(upstreamCalls()).toBe(before);
  });

  it("refuses a scheme other than Bearer as a malformed request", async () => {
    const reply = await send(at("/agents"), { headers: { authorization: "Basic dDphbGljZQ==" } });
    expect(reply.status).toBe(401);
    expect(reply.headers["www-authenticate"]).toBe(`${REALM}, error="invalid_request"`);
  });

  it("admits a JWT of the configured issuer and audience, limited to its agents claim", async () => {
    const token = await jwt({ sub: "jay", agents: ["echo"] });
    const list = await send(at("/agents"), { token });
    expect(list.status).toBe(200);
    expect(JSON.parse(list.body)).toEqual({ agents: [{ name: "echo", description: "Echoes" }] });

    const ran = await run(at("/agents/echo"), token);
    expect(ran.status).toBe(200);
    expect(sseEvents(ran.body).at(-1)?.type).toBe("RUN_FINISHED");

    const before = upstreamCalls();
    const refused = await run(at("/agents/weather"), token);
    expect(refused.status).toBe(403);
    expect(errorOf(refused)).toBe('"jay" may not use agent "weather"');
    expect(upstreamCalls()).toBe(before);
  });

  it("gives a JWT without an agents claim every agent (the config's jwt has no agents list)", async () => {
    const list = await send(at("/agents"), { token: await jwt({ sub: "jay" }) });
    expect(list.status).toBe(200);
    expect((JSON.parse(list.body) as { agents: { name: string }[] }).agents.map((a) => a.name)).toEqual([
      "weather", "echo", "fwd", "override", "plain", "big", "rated", "held",
    ]);
  });

  it("refuses an expired JWT, one of another issuer or audience, and one signed with another secret", async () => {
    const before = upstreamCalls();
    const tokens = [
      [await jwt({ sub: "jay" }, { exp: NOW_S - 3600 }), /expired/],
      [await new SignJWT({ sub: "jay" }).setProtectedHeader({ alg: "HS256" }).setIssuer("https://other.example").setAudience(AUDIENCE).setExpirationTime(NOW_S + 60).sign(new TextEncoder().encode(SECRET)), /issuer/],
      [await new SignJWT({ sub: "jay" }).setProtectedHeader({ alg: "HS256" }).setIssuer(ISSUER).setAudience("other").setExpirationTime(NOW_S + 60).sign(new TextEncoder().encode(SECRET)), /audience/],
      [await jwt({ sub: "jay" }, { secret: "another-secret-of-at-least-32-bytes!!" }), /./],
    ] as const;
    for (const [token, reason] of tokens) {
      const reply = await run(at("/agents/echo"), token);
      expect(reply.status).toBe(401);
      expect(reply.headers["www-authenticate"]).toMatch(/^Bearer realm="agui-wire", error="invalid_token", error_description="[^"]*"$/);
      expect(errorOf(reply)).toMatch(reason);
    }
    expect(upstreamCalls()).toBe(before);
  });
});

describe("routes", () => {
  it("lists exactly the agents each caller may use, with name and description", async () => {
    const alice = await send(at("/agents"), { token: "t-alice" });
    expect(alice.status).toBe(200);
    expect(alice.headers["content-type"]).toBe("application/json");
    expect(alice.headers["cache-control"]).toBe("no-store");
    expect(JSON.parse(alice.body)).toEqual({
      agents: [
        { name: "weather", description: "Forecasts" },
        { name: "echo", description: "Echoes" },
      ],
    });
    const bob = await send(at("/agents"), { token: "t-bob" });
    expect(JSON.parse(bob.body)).toEqual({ agents: [{ name: "echo", description: "Echoes" }] });
    // An agent without a description is listed with an empty one.
    const carol = JSON.parse((await send(at("/agents"), { token: "t-carol" })).body) as { agents: { name: string; description: string }[] };
    expect(carol.agents).toContainEqual({ name: "fwd", description: "" });
  });

  it("runs an agent the caller may use, in the transport it asks for", async () => {
    const sse = await run(at("/agents/echo"), "t-bob");
    expect(sse.status).toBe(200);
    expect(sse.headers["content-type"]).toBe(SSE);
    expect(sseEvents(sse.body).map((e) => e.type)).toEqual(shortRun(runInput()).map((e) => e.type));

    const response = await fetch(at("/agents/echo"), {
      method: "POST",
      headers: { authorization: "Bearer t-bob", "content-type": "application/json", accept: "application/vnd.ag-ui.event+proto" },
      body: JSON.stringify(runInput()),
    });
    expect(response.headers.get("content-type")).toBe("application/vnd.ag-ui.event+proto");
    const events: AguiEvent[] = await readEvents(response);
    expect(events.map((e) => e.type)).toEqual(shortRun(runInput()).map((e) => e.type));
  });

  it("answers 403, naming the subject and the agent, when bob runs weather; the upstream is not asked", async () => {
    const before = upstreamCalls();
    const reply = await run(at("/agents/weather"), "t-bob");
    expect(reply.status).toBe(403);
    expect(errorOf(reply)).toBe('"bob" may not use agent "weather"');
    expect(upstreamCalls()).toBe(before);
  });

  it("answers 404 for an agent nobody configured, and for any other path", async () => {
    const before = upstreamCalls();
    const unknown = await run(at("/agents/nope"), "t-alice");
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown)).toBe('no agent named "nope"');
    for (const [method, path] of [["GET", "/"], ["GET", "/nowhere"], ["POST", "/agents/"], ["POST", "/agents/echo/run"], ["GET", "/metrics"]] as const) {
      const reply = await send(at(path), { method, token: "t-alice" });
      expect(reply.status, `${method} ${path}`).toBe(404);
      expect(errorOf(reply)).toMatch(/^no such path: /);
    }
    expect(upstreamCalls()).toBe(before);
  });

  it("answers 405 with Allow for GET /agents/echo and POST /agents", async () => {
    const get = await send(at("/agents/echo"), { token: "t-bob" });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe("POST");
    expect(errorOf(get)).toBe("method GET not allowed: expected POST");
    const post = await send(at("/agents"), { method: "POST", token: "t-bob", headers: { "content-type": "application/json" }, body: "{}" });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe("GET");
    expect(errorOf(post)).toBe("method POST not allowed: expected GET");
  });

  it("takes a percent-encoded agent name as the name, and ignores the query", async () => {
    const reply = await run(at("/agents/%65cho?x=1"), "t-bob");
    expect(reply.status).toBe(200);
  });
});

describe("headers sent upstream", () => {
  /** The headers of the last request `headersUp` received. */
  const lastUpstream = (): IncomingHttpHeaders => headersUp.requests.at(-1)!.headers;

  it("adds the route's headers and forwards neither the client's Authorization nor its Cookie by default", async () => {
    const reply = await run(at("/agents/plain"), "t-carol", { headers: { cookie: "session=abc", "x-request-id": "r-1" } });
    expect(reply.status).toBe(200);
    const headers = lastUpstream();
    expect(headers.authorization).toBe("Bearer upstream-secret");
    expect(headers.cookie).toBeUndefined();
    expect(headers["x-request-id"]).toBeUndefined();
    expect(headers["content-type"]).toBe("application/json");
    expect(headers.accept).toBe("application/vnd.ag-ui.event+proto, text/event-stream;q=0.5");
  });

  it("sends no Authorization at all for a route without headers", async () => {
    const before = echoUp.requests.length;
    expect((await run(at("/agents/echo"), "t-bob", { headers: { cookie: "session=abc" } })).status).toBe(200);
    expect(echoUp.requests.length).toBe(before + 1);
    expect(echoUp.requests.at(-1)!.headers.authorization).toBeUndefined();
    expect(echoUp.requests.at(-1)!.headers.cookie).toBeUndefined();
  });

  it("forwards the listed cookie and x-request-id, never hop-by-hop ones, nor one the Connection header names", async () => {
    const reply = await run(at("/agents/fwd"), "t-carol", {
      headers: { cookie: "session=abc", "x-request-id": "r-2", te: "trailers", connection: "keep-alive, x-hop", "x-hop": "hop-value" },
    });
    expect(reply.status).toBe(200);
    const headers = lastUpstream();
    expect(headers.cookie).toBe("session=abc");
    expect(headers["x-request-id"]).toBe("r-2");
    expect(headers.te).toBeUndefined();
    expect(headers["x-hop"]).toBeUndefined();
    // The upstream connection's own header, not the client's.
    expect(headers.connection ?? "").not.toContain("x-hop");
    expect(headers.authorization).toBeUndefined();
  });

  it("lets a route header win over a forwarded one of the same name", async () => {
    const reply = await run(at("/agents/override"), "t-carol", { headers: { "x-request-id": "from-client" } });
    expect(reply.status).toBe(200);
    const headers = lastUpstream();
    expect(headers["x-request-id"]).toBe("from-route");
    // The proxy's own credential never reaches the upstream, even when the route lists Authorization.
    expect(headers.authorization).toBe("Bearer upstream-secret");
  });

  it("sends the client's body upstream byte for byte", async () => {
    const body = JSON.stringify(runInput({ threadId: "thread-bytes", forwardedProps: { b: 1, a: [2] } }));
    const seen: string[] = [];
    const recorder = await listen(
      withBody((_req, res, text) => {
        seen.push(text);
        const input = JSON.parse(text) as RunAgentInput;
        res.writeHead(200, { "content-type": SSE });
        res.end(shortRun(input).map((event) => `data: ${JSON.stringify(event)}\n\n`).join(""));
      }),
    );
    try {
      const local = await listen(
        createNodeProxyHandler({ agents: { r: { url: recorder.url } }, auth: { tokens: [{ token: "t", subject: "s" }] } }),
      );
      try {
        const reply = await run(`${local.origin}/agents/r`, "t", { body });
        expect(reply.status).toBe(200);
        expect(seen).toEqual([body]);
      } finally {
        await local.close();
      }
    } finally {
      await recorder.close();
    }
  });
});

describe("limits", () => {
  it("answers 413 for a Content-Length over maxBodyBytes, before the upstream is asked", async () => {
    const before = upstreamCalls();
    const reply = await run(at("/agents/echo"), "t-bob", { body: bodyOfSize(MAX_BODY + 1) });
    expect(reply.status).toBe(413);
    expect(errorOf(reply)).toBe(`request body too large: expected at most ${MAX_BODY} bytes, found Content-Length ${MAX_BODY + 1}`);
    expect(upstreamCalls()).toBe(before);
  });

  it("accepts a body of exactly maxBodyBytes", async () => {
    expect((await run(at("/agents/echo"), "t-bob", { body: bodyOfSize(MAX_BODY) })).status).toBe(200);
  });

  it("answers 413 for a chunked body that passes maxBodyBytes while it is still being sent", async () => {
    const before = upstreamCalls();
    const chunk = new TextEncoder().encode(" ".repeat(MAX_BODY * 0.6));
    const reply = await rawRequest(at("/agents/echo"), {
      headers: { authorization: "Bearer t-bob", "content-type": "application/json", "transfer-encoding": "chunked" },
      chunks: [chunk, chunk],
    });
    expect(reply.status).toBe(413);
    expect(JSON.parse(reply.body)).toEqual({ error: `request body too large: expected at most ${MAX_BODY} bytes, found more than ${MAX_BODY} bytes` });
    expect(upstreamCalls()).toBe(before);
  });

  it("applies an agent's own maxBodyBytes over the top-level one", async () => {
    const body = bodyOfSize(5000);
    expect((await run(at("/agents/echo"), "t-carol", { body })).status).toBe(413);
    const reply = await run(at("/agents/big"), "t-carol", { body });
    expect(reply.status).toBe(200);
    expect(sseEvents(reply.body).at(-1)?.type).toBe("RUN_FINISHED");
  });

  it("answers 429 with Retry-After at concurrentRuns, per principal and agent, and admits again once a run ended", async () => {
    const before = held.server.requests.length;
    const first = await startRun(at("/agents/held"), "t-carol");
    expect(first.status).toBe(200);

    const refused = await run(at("/agents/held"), "t-carol");
    expect(refused.status).toBe(429);
    expect(refused.headers["retry-after"]).toBe("1");
    expect(errorOf(refused)).toBe("too many concurrent runs: at most 1 at a time for this agent, 1 running");
    expect(held.server.requests.length).toBe(before + 1);

    // Another principal has its own count.
    const other = await startRun(at("/agents/held"), "t-dave");
    expect(other.status).toBe(200);
    expect(held.open()).toBe(2);

    held.releaseAll();
    for (const response of [first, other]) {
      const events = await readEvents(response);
      expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
    }
    await expect.poll(() => records.filter((r) => r.agent === "held" && r.status === 200).length).toBe(2);

    const again = await startRun(at("/agents/held"), "t-carol");
    expect(again.status).toBe(200);
    await expect.poll(() => held.open()).toBe(1);
    held.releaseAll();
    expect((await readEvents(again)).at(-1)?.type).toBe("RUN_FINISHED");
  });

  it("frees a concurrentRuns slot when the client goes away mid-run, and stops the upstream's run", async () => {
    const leaving = new AbortController();
    const gone = await fetch(at("/agents/held"), {
      method: "POST",
      headers: { authorization: "Bearer t-carol", "content-type": "application/json", accept: SSE },
      body: JSON.stringify(runInput()),
      signal: leaving.signal,
    });
    expect(gone.status).toBe(200);
    await expect.poll(() => held.open()).toBe(1);
    expect((await run(at("/agents/held"), "t-carol")).status).toBe(429);
    leaving.abort();
    // The proxy aborts its upstream request, and logs the run as the client's leaving.
    await held.server.closedEarly;
    await expect.poll(() => records.at(-1)).toMatchObject({ agent: "held", principal: "carol", status: 200, outcome: "client_gone" });
    held.releaseAll();
    const again = await startRun(at("/agents/held"), "t-carol");
    expect(again.status).toBe(200);
    await expect.poll(() => held.open()).toBe(1);
    held.releaseAll();
    expect((await readEvents(again)).at(-1)?.type).toBe("RUN_FINISHED");
  });

  it("answers 429 with Retry-After once runsPerMinute is reached (an agent's own, under a looser top level)", async () => {
    for (let i = 0; i < 2; i++) expect((await run(at("/agents/rated"), "t-carol")).status).toBe(200);
    const before = upstreamCalls();
    const refused = await run(at("/agents/rated"), "t-carol");
    expect(refused.status).toBe(429);
    const retry = Number(refused.headers["retry-after"]);
    expect(Number.isInteger(retry) && retry >= 1 && retry <= 60).toBe(true);
    expect(errorOf(refused)).toMatch(/^too many runs: at most 2 a minute for this agent; retry in \d+ s$/);
    expect(upstreamCalls()).toBe(before);
    // Per principal: bob may not use `rated`, but a JWT principal with every agent may.
    expect((await run(at("/agents/rated"), await jwt({ sub: "rate-other" }))).status).toBe(200);
  });

  it("answers 415 for a wrong content type, before the upstream is asked", async () => {
    const before = upstreamCalls();
    for (const type of ["text/plain", "application/x-www-form-urlencoded"]) {
      const reply = await run(at("/agents/echo"), "t-bob", { headers: { "content-type": type } });
      expect(reply.status).toBe(415);
      expect(errorOf(reply)).toBe(`unsupported Content-Type "${type}": expected application/json`);
    }
    expect(upstreamCalls()).toBe(before);
  });

  it("answers 422 for an invalid RunAgentInput, naming the path", async () => {
    const before = upstreamCalls();
    const input = { ...runInput(), messages: [{ id: "u1", role: "user", content: 5 }] };
    const reply = await run(at("/agents/echo"), "t-bob", { body: JSON.stringify(input) });
    expect(reply.status).toBe(422);
    expect(errorOf(reply)).toBe("invalid RunAgentInput: messages[0].content: expected string or array, found 5");
    const notJson = await run(at("/agents/echo"), "t-bob", { body: "{" });
    expect(notJson.status).toBe(422);
    expect(errorOf(notJson)).toMatch(/^request body is not valid JSON: /);
    expect(upstreamCalls()).toBe(before);
  });
});

describe("CORS", () => {
  const preflight = (path: string, method: string, origin = APP_ORIGIN, requestHeaders?: string) =>
    send(at(path), {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": method,
        ...(requestHeaders === undefined ? {} : { "access-control-request-headers": requestHeaders }),
      },
    });

  it("answers a preflight for POST /agents/{name} from the allowed origin with 204, without credentials", async () => {
    const before = upstreamCalls();
    const reply = await preflight("/agents/echo", "POST", APP_ORIGIN, "content-type, authorization, x-trace");
    expect(reply.status).toBe(204);
    expect(reply.body).toBe("");
    expect(reply.headers["access-control-allow-origin"]).toBe(APP_ORIGIN);
    expect(reply.headers["access-control-allow-methods"]).toBe("POST");
    expect(reply.headers["access-control-allow-headers"]).toBe("authorization, content-type, x-trace");
    expect(reply.headers["access-control-allow-credentials"]).toBeUndefined();
    expect(reply.headers.vary).toBe("Origin, Access-Control-Request-Method, Access-Control-Request-Headers");
    expect(upstreamCalls()).toBe(before);
  });

  it("allows authorization and content-type even when the preflight names no headers", async () => {
    const reply = await preflight("/agents/echo", "POST");
    expect(reply.status).toBe(204);
    expect(reply.headers["access-control-allow-headers"]).toBe("authorization, content-type");
  });

  it("answers a preflight for GET /agents with GET allowed", async () => {
    const reply = await preflight("/agents", "GET", APP_ORIGIN, "authorization");
    expect(reply.status).toBe(204);
    expect(reply.headers["access-control-allow-origin"]).toBe(APP_ORIGIN);
    expect(reply.headers["access-control-allow-methods"]).toBe("GET");
    expect(reply.headers["access-control-allow-headers"]).toBe("authorization, content-type");
  });

  it("refuses a preflight from another origin, or for another method, with 403", async () => {
    const other = await preflight("/agents/echo", "POST", "http://evil.example");
    expect(other.status).toBe(403);
    expect(other.headers["access-control-allow-origin"]).toBeUndefined();
    expect(errorOf(other)).toBe('CORS preflight refused: origin "http://evil.example" is not allowed');
    const method = await preflight("/agents/echo", "PUT");
    expect(method.status).toBe(403);
    expect(errorOf(method)).toBe('CORS preflight refused: method "PUT" is not allowed here: expected POST');
  });

  it("gives a run's 200 stream Access-Control-Allow-Origin and exposes WWW-Authenticate and Retry-After", async () => {
    const reply = await run(at("/agents/echo"), "t-bob", { headers: { origin: APP_ORIGIN } });
    expect(reply.status).toBe(200);
    expect(reply.headers["access-control-allow-origin"]).toBe(APP_ORIGIN);
    expect(reply.headers["access-control-expose-headers"]).toBe("Retry-After, WWW-Authenticate");
    expect(reply.headers.vary).toBe("Accept, Accept-Encoding, Origin");
    expect(sseEvents(reply.body).at(-1)?.type).toBe("RUN_FINISHED");
  });

  it("gives a 401 the same, so that a page can read the challenge", async () => {
    const reply = await run(at("/agents/echo"), undefined, { headers: { origin: APP_ORIGIN } });
    expect(reply.status).toBe(401);
    expect(reply.headers["access-control-allow-origin"]).toBe(APP_ORIGIN);
    expect(reply.headers["access-control-expose-headers"]).toBe("Retry-After, WWW-Authenticate");
    expect(reply.headers["www-authenticate"]).toBe(REALM);
  });

  it("gives no Access-Control-Allow-Origin to a request from another origin, only Vary: Origin", async () => {
    const reply = await send(at("/agents"), { token: "t-bob", headers: { origin: "http://evil.example" } });
    expect(reply.status).toBe(200);
    expect(reply.headers["access-control-allow-origin"]).toBeUndefined();
    expect(reply.headers["access-control-expose-headers"]).toBeUndefined();
    expect(reply.headers.vary).toBe("Origin");
  });

  it("treats an OPTIONS without Access-Control-Request-Method as an ordinary request", async () => {
    expect((await send(at("/agents/echo"), { method: "OPTIONS", headers: { origin: APP_ORIGIN } })).status).toBe(401);
    const reply = await send(at("/agents/echo"), { method: "OPTIONS", token: "t-bob", headers: { origin: APP_ORIGIN } });
    expect(reply.status).toBe(405);
    expect(reply.headers.allow).toBe("POST");
  });
});

describe("metrics", () => {
  const m = (path: string): string => `${metricsProxy.origin}${path}`;

  it("answers GET /metrics without credentials in the Prometheus text format, counting runs by outcome and refusals by status", async () => {
    const empty = await send(m("/metrics"));
    expect(empty.status).toBe(200);
    expect(empty.headers["content-type"]).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(empty.body).toContain("# TYPE agui_proxy_runs_total counter\n");
    expect(empty.body).not.toMatch(/^agui_proxy_runs_total\{/m);

    const N = 3;
    for (let i = 0; i < N; i++) expect((await run(m("/agents/echo"), "t-m")).status).toBe(200);
    expect((await run(m("/agents/echo"), undefined)).status).toBe(401);
    expect((await send(m("/agents"))).status).toBe(401);
    expect((await run(m("/agents/nope"), "t-m")).status).toBe(404);
    expect((await run(m("/agents/echo"), "t-m", { headers: { "content-type": "text/plain" } })).status).toBe(415);

    const runs = shortRun(runInput()).length;
    await expect.poll(async () => (await send(m("/metrics"))).body).toContain(`agui_proxy_runs_total{agent="echo",outcome="finished"} ${N}\n`);
    const body = (await send(m("/metrics"))).body;
    expect(body).toContain(`agui_proxy_events_total{agent="echo"} ${N * runs}\n`);
    expect(body).toMatch(/^agui_proxy_bytes_total\{agent="echo"\} [1-9]\d*$/m);
    expect(body).toContain('agui_proxy_active_runs{agent="echo"} 0\n');
    expect(body).toContain('agui_proxy_refused_total{status="401"} 2\n');
    expect(body).toContain('agui_proxy_refused_total{status="404"} 1\n');
    expect(body).toContain('agui_proxy_refused_total{status="415"} 1\n');
  });

  it("answers another method on /metrics with 405", async () => {
    const reply = await send(m("/metrics"), { method: "POST", body: "" });
    expect(reply.status).toBe(405);
    expect(reply.headers.allow).toBe("GET");
  });

  it("is a path like any other without `metrics: true`: 401 without credentials, 404 with", async () => {
    const anonymous = await send(at("/metrics"));
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers["www-authenticate"]).toBe(REALM);
    expect((await send(at("/metrics"), { token: "t-alice" })).status).toBe(404);
  });
});

describe("the run log", () => {
  it("logs one record per admitted run, when it ends", async () => {
    const before = records.length;
    const reply = await run(at("/agents/weather"), "t-alice");
    expect(reply.status).toBe(200);
    await expect.poll(() => records.length).toBe(before + 1);
    const record = records.at(-1)!;
    expect(Object.keys(record).sort()).toEqual(["agent", "bytes", "durationMs", "events", "outcome", "principal", "status", "transportIn", "transportOut"]);
    expect(record).toMatchObject({
      agent: "weather",
      principal: "alice",
      // Our upstream answers the binary transport the proxy asks for first; the client asked for SSE.
      transportIn: "binary",
      transportOut: "sse",
      status: 200,
      events: shortRun(runInput()).length,
      outcome: "finished",
    });
    expect(record.bytes).toBe(Buffer.byteLength(reply.body));
    expect(record.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("logs refusals of a run after authentication (415, 413, 422, 429) with their outcome", async () => {
    const before = records.length;
    await run(at("/agents/echo"), "t-bob", { headers: { "content-type": "text/plain" } });
    await run(at("/agents/echo"), "t-bob", { body: bodyOfSize(MAX_BODY + 1) });
    await run(at("/agents/echo"), "t-bob", { body: "{}" });
    const open = await startRun(at("/agents/held"), "t-dave");
    expect(open.status).toBe(200);
    expect((await run(at("/agents/held"), "t-dave")).status).toBe(429);
    held.releaseAll();
    await readEvents(open);
    await expect.poll(() => records.length).toBe(before + 5);
    const refusals = records.slice(before).filter((r) => r.status !== 200);
    expect(refusals.map(({ agent, principal, status, outcome, events, bytes, transportOut }) => ({ agent, principal, status, outcome, events, bytes, transportOut }))).toEqual([
      { agent: "echo", principal: "bob", status: 415, outcome: "unsupported_media_type", events: 0, bytes: 0, transportOut: undefined },
      { agent: "echo", principal: "bob", status: 413, outcome: "body_too_large", events: 0, bytes: 0, transportOut: undefined },
      { agent: "echo", principal: "bob", status: 422, outcome: "invalid_input", events: 0, bytes: 0, transportOut: undefined },
      // The limiter's reason: `concurrent_runs` here, `runs_per_minute` for the rate.
      { agent: "held", principal: "dave", status: 429, outcome: "concurrent_runs", events: 0, bytes: 0, transportOut: undefined },
    ]);
    // Refused before any upstream answered: neither transport is known.
    for (const r of refusals) {
      expect("transportOut" in r).toBe(false);
      expect("transportIn" in r).toBe(false);
    }
  });

  it("logs a 403 as `forbidden` (an audit wants refused attempts on an agent), and nothing for 401, 404 and 405", async () => {
    const before = records.length;
    await run(at("/agents/echo"), undefined);
    expect((await run(at("/agents/weather"), "t-bob")).status).toBe(403);
    await run(at("/agents/nope"), "t-bob");
    await send(at("/agents/echo"), { token: "t-bob" });
    // A run after them, so that a late record of theirs would show up before this one.
    await run(at("/agents/echo"), "t-bob");
    await expect.poll(() => records.length).toBe(before + 2);
    const [forbidden, ran] = records.slice(before);
    expect(forbidden).toEqual({ agent: "weather", principal: "bob", status: 403, events: 0, bytes: 0, durationMs: 0, outcome: "forbidden" });
    expect(ran).toMatchObject({ agent: "echo", principal: "bob", status: 200, outcome: "finished" });
  });

  it("keeps serving when the logger throws", async () => {
    const local = await listen(
      createNodeProxyHandler(
        { agents: { echo: { url: echoUp.url } }, auth: { tokens: [{ token: "t", subject: "s" }] } },
        {
          logger: () => {
            throw new Error("logger down");
          },
        },
      ),
    );
    try {
      for (let i = 0; i < 2; i++) expect(sseEvents((await run(`${local.origin}/agents/echo`, "t")).body).at(-1)?.type).toBe("RUN_FINISHED");
      expect((await run(`${local.origin}/agents/echo`, "t", { headers: { "content-type": "text/plain" } })).status).toBe(415);
    } finally {
      await local.close();
    }
  });
});

describe("the fetch-style handler, called with new Request(...)", () => {
  const request = (path: string, init: RequestInit & { token?: string } = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    if (init.token !== undefined) headers.set("authorization", `Bearer ${init.token}`);
    return fetchProxy(new Request(`http://proxy.test${path}`, { ...init, headers }));
  };

  it("answers 401 with the challenge without credentials", async () => {
    const response = await request("/agents");
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe(REALM);
    expect(await response.json()).toEqual({ error: "missing credentials: expected an Authorization header with a Bearer token" });
  });

  it("lists alice's agents, refuses bob's weather with 403 and an unknown path with 404", async () => {
    expect(await (await request("/agents", { token: "t-alice" })).json()).toEqual({
      agents: [
        { name: "weather", description: "Forecasts" },
        { name: "echo", description: "Echoes" },
      ],
    });
    const forbidden = await request("/agents/weather", { method: "POST", token: "t-bob", headers: { "content-type": "application/json" }, body: JSON.stringify(runInput()) });
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toEqual({ error: '"bob" may not use agent "weather"' });
    expect((await request("/else", { token: "t-bob" })).status).toBe(404);
  });

  it("runs weather through its upstream over HTTP with the route's Authorization, not the client's", async () => {
    const before = weatherUp.requests.length;
    const response = await request("/agents/weather", {
      method: "POST",
      token: "t-alice",
      headers: { "content-type": "application/json", accept: SSE, cookie: "session=abc" },
      body: JSON.stringify(runInput()),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe(SSE);
    expect((await readEvents(response)).map((e) => e.type)).toEqual(shortRun(runInput()).map((e) => e.type));
    expect(weatherUp.requests.length).toBe(before + 1);
    expect(weatherUp.requests.at(-1)!.headers.authorization).toBe("Bearer upstream-secret");
    expect(weatherUp.requests.at(-1)!.headers.cookie).toBeUndefined();
  });

  it("answers 413 for a streamed body without Content-Length that passes maxBodyBytes, before the upstream is asked", async () => {
    const before = upstreamCalls();
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(512).fill(0x20));
      },
    });
    const response = await request("/agents/echo", {
      method: "POST",
      token: "t-bob",
      headers: { "content-type": "application/json" },
      body: endless,
      duplex: "half",
    } as RequestInit & { token: string });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: `request body too large: expected at most ${MAX_BODY} bytes, found more than ${MAX_BODY} bytes` });
    expect(pulled).toBeLessThan(20);
    expect(upstreamCalls()).toBe(before);
  });

  it("answers a CORS preflight with 204 and a 401 with Access-Control-Allow-Origin", async () => {
    const response = await request("/agents/echo", {
      method: "OPTIONS",
      headers: { origin: APP_ORIGIN, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe(APP_ORIGIN);
    expect(response.headers.get("access-control-allow-headers")).toBe("authorization, content-type");
    const refused = await request("/agents", { headers: { origin: APP_ORIGIN } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("access-control-allow-origin")).toBe(APP_ORIGIN);
    expect(refused.headers.get("access-control-expose-headers")).toBe("Retry-After, WWW-Authenticate");
  });
});

describe("the issue's example configuration", () => {
  const i = (path: string): string => `${issueProxy.origin}${path}`;

  it("lists weather and echo for alice, echo for bob", async () => {
    expect(JSON.parse((await send(i("/agents"), { token: "t-alice" })).body)).toEqual({
      agents: [
        { name: "weather", description: "Forecasts" },
        { name: "echo", description: "" },
      ],
    });
    expect(JSON.parse((await send(i("/agents"), { token: "t-bob" })).body)).toEqual({ agents: [{ name: "echo", description: "" }] });
  });

  it("runs weather for alice with the upstream's own credential, and refuses it to bob", async () => {
    const reply = await run(i("/agents/weather"), "t-alice", { headers: { origin: "http://localhost:5173" } });
    expect(reply.status).toBe(200);
    expect(reply.headers["access-control-allow-origin"]).toBe("http://localhost:5173");
    expect(sseEvents(reply.body).at(-1)?.type).toBe("RUN_FINISHED");
    expect(issueWeatherUp.requests.at(-1)!.headers.authorization).toBe("Bearer upstream-secret");
    const before = issueWeatherUp.requests.length;
    expect((await run(i("/agents/weather"), "t-bob")).status).toBe(403);
    expect(issueWeatherUp.requests.length).toBe(before);
    await expect.poll(() => issueRecords.length).toBe(2);
    expect(issueRecords[0]).toMatchObject({ agent: "weather", principal: "alice", transportIn: "binary", transportOut: "sse", status: 200, outcome: "finished" });
    expect(issueRecords[1]).toMatchObject({ agent: "weather", principal: "bob", status: 403, outcome: "forbidden" });
  });

  it("admits a JWT of https://issuer.example for agui, and refuses an expired one", async () => {
    const list = await send(i("/agents"), { token: await jwt({ sub: "jay" }) });
    expect(list.status).toBe(200);
    expect((JSON.parse(list.body) as { agents: { name: string }[] }).agents.map((a) => a.name)).toEqual(["weather", "echo"]);
    const expired = await send(i("/agents"), { token: await jwt({ sub: "jay" }, { exp: NOW_S - 3600 }) });
    expect(expired.status).toBe(401);
    expect(expired.headers["www-authenticate"]).toMatch(/error="invalid_token", error_description="the token has expired"$/);
  });

  it("admits two concurrent echo runs per principal and refuses a third with 429", async () => {
    const runs = [await startRun(i("/agents/echo"), "t-bob"), await startRun(i("/agents/echo"), "t-bob")];
    for (const r of runs) expect(r.status).toBe(200);
    const third = await run(i("/agents/echo"), "t-bob");
    expect(third.status).toBe(429);
    expect(third.headers["retry-after"]).toBe("1");
    runs.push(await startRun(i("/agents/echo"), "t-alice"));
    expect(runs[2]!.status).toBe(200);
    expect(issueEcho.open()).toBe(3);
    issueEcho.releaseAll();
    for (const r of runs) expect((await readEvents(r)).map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
  });

  it("answers the preflight of http://localhost:5173 and refuses a body over 1 MiB", async () => {
    const pre = await send(i("/agents/echo"), {
      method: "OPTIONS",
      headers: { origin: "http://localhost:5173", "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers["access-control-allow-origin"]).toBe("http://localhost:5173");
    const before = issueEcho.server.requests.length;
    const tooLarge = await run(i("/agents/echo"), "t-bob", { body: bodyOfSize(1048577) });
    expect(tooLarge.status).toBe(413);
    expect(errorOf(tooLarge)).toBe("request body too large: expected at most 1048576 bytes, found Content-Length 1048577");
    expect(issueEcho.server.requests.length).toBe(before);
  });
});
