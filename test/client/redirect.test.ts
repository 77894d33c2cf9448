/**
 * Redirects of a run's POST, over real loopback HTTP with two servers (two ports, so two
 * origins): by default a 307/308 to the same origin is followed with the same method, body and
 * headers, and one to another origin is refused before anything reaches it.
 */
import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { HttpAgent, HttpStatusError, MAX_REDIRECTS, type RedirectPolicy } from "../../src/client/index.js";
import type { RunAgentInput } from "../../src/index.js";
import { createNodeHandler } from "../../src/server/index.js";
import { collect, listen, normalizedServed, readBody, recordingSampleAgent, trackServers, type TestServer } from "./helpers.js";

const track = trackServers();

/** Answers `status` with `location`, after reading the request's body (as a real server would). */
function redirect(res: ServerResponse, status: number, location: string): void {
  res.writeHead(status, { location, "content-type": "text/plain" });
  res.end(`moved to ${location}`);
}

/**
 * A server whose `/agent` redirects (`status`, to `location(server)`), and whose `/real` serves
 * the sample agent, recording each request body it got.
 */
async function redirecting(status: number, location: (self: TestServer) => string) {
  const sample = recordingSampleAgent();
  const serveAgent = createNodeHandler(sample.agent);
  const bodies: string[] = [];
  let self!: TestServer;
  self = await track(
    listen((req, res) => {
      if (req.url === "/real") return serveAgent(req, res);
      void readBody(req).then((body) => {
        bodies.push(body);
        redirect(res, status, location(self));
      });
    }),
  );
  return { server: self, sample, bodies };
}

/** A second origin that serves the sample agent, and records what reached it. */
async function otherOrigin() {
  const sample = recordingSampleAgent();
  const server = await track(listen(createNodeHandler(sample.agent)));
  return { server, sample };
}

const params = { runId: "run-7", messages: [{ id: "u1", role: "user" as const, content: "secret plans" }] };
const headers = { authorization: "Bearer s3cret", "x-tenant": "acme" };

describe("redirect: same-origin (the default)", () => {
  for (const status of [307, 308]) {
    it(`follows a ${status} to the same origin with the same method, body and headers`, async () => {
      const { server, sample, bodies } = await redirecting(status, () => "/real");
      const agent = new HttpAgent({ url: server.url, headers });
      expect(agent.redirect).toBe("same-origin");
      const outcome = await collect(agent.events(params));
      expect(outcome.error).toBeUndefined();
      expect(outcome.completed).toBe(true);
      expect(outcome.events).toEqual(normalizedServed(sample.sent[0]!));
      expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual(["POST /agent", "POST /real"]);
      const [first, second] = server.requests;
      for (const name of ["authorization", "x-tenant", "content-type", "accept"]) expect(second!.headers[name], name).toBe(first!.headers[name]);
      expect(JSON.parse(bodies[0]!)).toEqual(sample.inputs[0]);
      expect(sample.inputs[0]).toMatchObject(params satisfies Partial<RunAgentInput>);
    });
  }

  it("follows an absolute Location on the same origin too", async () => {
    const { server, sample } = await redirecting(307, (self) => `${self.origin}/real`);
    const outcome = await collect(new HttpAgent({ url: server.url }).events());
    expect(outcome.completed).toBe(true);
    expect(outcome.events).toEqual(normalizedServed(sample.sent[0]!));
  });

  for (const status of [307, 308]) {
    it(`refuses a ${status} to another origin, which never receives the request`, async () => {
      const other = await otherOrigin();
      const { server } = await redirecting(status, () => `${other.server.origin}/agent`);
      const outcome = await collect(new HttpAgent({ url: server.url, headers }).events(params));
      expect(outcome.completed).toBe(false);
      expect(outcome.events).toEqual([]);
      const error = outcome.error as HttpStatusError;
      expect(error).toBeInstanceOf(HttpStatusError);
      expect(error).toMatchObject({ code: "http_status", status, body: undefined });
      expect(error.message).toBe(
        `HTTP ${status}: POST ${server.url} redirects to another origin, ${other.server.origin}: refused (redirect: "same-origin"; "follow" allows it)`,
      );
      expect(other.server.requests).toEqual([]);
      expect(other.sample.inputs).toEqual([]);
    });
  }

  it("refuses a 301, 302 or 303, which would turn the run's POST into a GET without its input", async () => {
    for (const status of [301, 302, 303]) {
      const { server, sample } = await redirecting(status, () => "/real");
      const { error } = await collect(new HttpAgent({ url: server.url }).events());
      expect(error).toMatchObject({ code: "http_status", status });
      expect((error as Error).message).toBe(
        `HTTP ${status}: POST ${server.url} redirects to ${server.origin}/real with a ${status}, which turns the POST into a GET without the run's input: refused (redirect: "same-origin"; "follow" allows it)`,
      );
      expect(server.requests).toHaveLength(1);
      expect(sample.inputs).toEqual([]);
    }
  });

  it(`stops after ${MAX_REDIRECTS} redirects`, async () => {
    const { server } = await redirecting(307, () => "/agent");
    const { error } = await collect(new HttpAgent({ url: server.url }).events());
    expect(error).toMatchObject({ code: "http_status", status: 307 });
    expect((error as Error).message).toContain(`more than ${MAX_REDIRECTS} times`);
    expect(server.requests).toHaveLength(MAX_REDIRECTS + 1);
  });

  it("a redirect status without a Location is an http_status error, as before", async () => {
    const server = await track(listen((_req, res) => res.writeHead(307, { "content-type": "text/plain" }).end("nowhere")));
    const { error } = await collect(new HttpAgent({ url: server.url }).events());
    expect(error).toMatchObject({ code: "http_status", status: 307, body: "nowhere", message: "HTTP 307" });
  });

  it("a Location that is not a URL is not followed: an http_status error with the body", async () => {
    const server = await track(listen((_req, res) => res.writeHead(307, { location: "http://[::1", "content-type": "text/plain" }).end("broken")));
    const { error } = await collect(new HttpAgent({ url: server.url }).events());
    expect(error).toMatchObject({ code: "http_status", status: 307, body: "broken", message: "HTTP 307" });
    expect(server.requests).toHaveLength(1);
  });
});

describe("redirect: follow and error", () => {
  for (const status of [307, 308]) {
    it(`"follow" follows a ${status} to another origin, as fetch does`, async () => {
      const other = await otherOrigin();
      const { server } = await redirecting(status, () => `${other.server.origin}/agent`);
      const outcome = await collect(new HttpAgent({ url: server.url, redirect: "follow" }).events(params));
      expect(outcome.error).toBeUndefined();
      expect(outcome.completed).toBe(true);
      expect(outcome.events).toEqual(normalizedServed(other.sample.sent[0]!));
      expect(other.sample.inputs[0]).toMatchObject(params);
    });
  }

  it(`"error" refuses even a redirect to the same origin`, async () => {
    const { server, sample } = await redirecting(307, () => "/real");
    const { error } = await collect(new HttpAgent({ url: server.url, redirect: "error" }).events());
    expect(error).toBeInstanceOf(HttpStatusError);
    expect(error).toMatchObject({ code: "http_status", status: 307 });
    expect((error as Error).message).toBe(`HTTP 307: POST ${server.url} redirects to ${server.origin}: refused (redirect: "error"; "follow" allows it)`);
    expect(sample.inputs).toEqual([]);
  });

  it("any other value is a TypeError naming the choices", () => {
    expect(() => new HttpAgent({ url: "http://127.0.0.1/", redirect: "manual" as RedirectPolicy })).toThrow(
      new TypeError('redirect must be one of "same-origin", "follow", "error"; found "manual"'),
    );
  });
});
