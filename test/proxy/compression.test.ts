// The proxy compresses what it sends its clients as their Accept-Encoding asks (as the agent
// server does, flushed per batch), whatever its upstream sent, over real HTTP on 127.0.0.1.
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNodeHandler } from "../../src/server/index.js";
import { createNodeProxyHandler, ProxyConfigError } from "../../src/proxy/index.js";
import { listen, type TestServer } from "../client/helpers.js";
import { BINARY, readEvents, runInput, SSE } from "../server/helpers.js";
import { mixedTrace } from "../fixtures/corpus.js";

const TOKEN = "t-compress";
const TRACE = mixedTrace(200);

describe("the proxy's compression", () => {
  let upstream: TestServer;
  let proxy: TestServer;
  let plainProxy: TestServer;
  const upstreamAsked: (string | undefined)[] = [];

  beforeAll(async () => {
    const handler = createNodeHandler(() => TRACE);
    upstream = await listen((req, res) => {
      upstreamAsked.push(req.headers["accept-encoding"]);
      handler(req, res);
    });
    const config = (extra: object) => ({ agents: { echo: { url: `${upstream.origin}/agent` } }, auth: { tokens: [{ token: TOKEN, subject: "tester" }] }, ...extra });
    proxy = await listen(createNodeProxyHandler(config({})));
    plainProxy = await listen(createNodeProxyHandler(config({ compression: false })));
  });

  afterAll(async () => {
    await Promise.all([proxy?.close(), plainProxy?.close(), upstream?.close()]);
  });

  const post = (origin: string, accept: string, acceptEncoding?: string) =>
    fetch(`${origin}/agents/echo`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", accept, ...(acceptEncoding ? { "accept-encoding": acceptEncoding } : {}) },
      body: JSON.stringify(runInput()),
    });

  for (const accept of [BINARY, SSE]) {
    for (const coding of ["gzip", "br"]) {
      it(`sends ${accept} as ${coding} to a client that accepts it, every event intact`, async () => {
        const response = await post(proxy.origin, accept, coding);
        expect(response.status).toBe(200);
        expect(response.headers.get("content-encoding")).toBe(coding);
        expect(response.headers.get("vary")).toContain("Accept-Encoding");
        expect((await readEvents(response)).map((e) => e.type)).toEqual(TRACE.map((e) => e.type));
      });
    }

    it(`sends ${accept} as identity with compression: false`, async () => {
      const response = await post(plainProxy.origin, accept, "gzip");
      expect(response.headers.get("content-encoding")).toBeNull();
      expect((await readEvents(response)).map((e) => e.type)).toEqual(TRACE.map((e) => e.type));
    });
  }

  it("asks its upstream for identity over node:http, and compresses for the client itself", async () => {
    upstreamAsked.length = 0;
    const reply = await new Promise<{ headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const req = httpRequest(`${proxy.origin}/agents/echo`, { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", accept: SSE, "accept-encoding": "gzip" }, agent: false }, (res) => {
        const parts: Buffer[] = [];
        res.on("data", (c: Buffer) => parts.push(c));
        res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(parts) }));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(JSON.stringify(runInput()));
    });
    expect(upstreamAsked).toEqual([undefined]);
    expect(reply.headers["content-encoding"]).toBe("gzip");
    const text = gunzipSync(reply.body).toString("utf8");
    expect(text.split("\n\n").filter((e) => e.startsWith("data: ")).length).toBe(TRACE.length);
  });

  it("refuses a bad compression setting with a ProxyConfigError naming it", () => {
    const base = { agents: { echo: { url: "http://127.0.0.1:1/agent" } }, auth: { tokens: [{ token: TOKEN, subject: "x" }] } };
    expect(() => createNodeProxyHandler({ ...base, compression: { level: { gzip: 42 } } })).toThrow(ProxyConfigError);
    expect(() => createNodeProxyHandler({ ...base, compression: { level: { gzip: 42 } } })).toThrow(/compression\.level\.gzip must be an integer from 1 to 9, found number 42/);
    expect(() => createNodeProxyHandler({ ...base, compression: "yes" })).toThrow(/compression/);
  });
});
