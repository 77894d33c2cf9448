/**
 * The `cors` option over real HTTP, against both handlers: off by default (no CORS header,
 * OPTIONS gets 405), and on: preflights answered 204 or 403, and the run's response (stream or
 * error) allowing the listed origin to read it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventType, decodeEventStream, type AguiEvent, type RunAgentInput } from "../../src/index.js";
import { createAgentHandler, createNodeHandler, type AgentHandlerOptions } from "../../src/server/index.js";
import { BINARY, HANDLERS, SSE, rawRequest, runInput, shortRun, type RawResult, type Served } from "./helpers.js";

const APP = "https://app.example.com";
const EVIL = "https://evil.example";
const PREFLIGHT_VARY = "Origin, Access-Control-Request-Method, Access-Control-Request-Headers";
const utf8 = new TextEncoder();

/** Sends one request with exactly these headers (node:http lets a test set Origin). */
function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<RawResult> {
  const chunks = body === undefined ? [] : [utf8.encode(body)];
  return rawRequest(url, { method, headers: body === undefined ? headers : { ...headers, "Content-Length": String(chunks[0]!.byteLength) }, chunks, end: true });
}

const preflightFrom = (url: string, origin: string, method = "POST", requestHeaders = "content-type") =>
  send(url, "OPTIONS", { Origin: origin, "Access-Control-Request-Method": method, "Access-Control-Request-Headers": requestHeaders });

const postFrom = (url: string, origin: string | undefined, input: unknown = runInput(), contentType = "application/json", accept = SSE) =>
  send(url, "POST", { ...(origin === undefined ? {} : { Origin: origin }), "Content-Type": contentType, Accept: accept }, typeof input === "string" ? input : JSON.stringify(input));

/** The access-control-* headers of a response. */
const corsHeadersOf = (result: RawResult): Record<string, unknown> =>
  Object.fromEntries(Object.entries(result.headers).filter(([name]) => name.startsWith("access-control-")));

async function eventsOf(result: RawResult): Promise<AguiEvent[]> {
  const events: AguiEvent[] = [];
  const body = new Response(result.body).body!;
  for await (const event of decodeEventStream(body, result.headers["content-type"])) events.push(event);
  return events;
}

describe.each(HANDLERS)("$name", ({ serve }) => {
  const runs: RunAgentInput[] = [];
  const agent = (input: RunAgentInput) => {
    runs.push(input);
    return shortRun(input);
  };
  const servers: Served[] = [];
  // Only `cors` is passed, which does not depend on the request type.
  const start = async (options?: Pick<AgentHandlerOptions, "cors">): Promise<string> => {
    const served = await serve(agent, options);
    servers.push(served);
    return served.url;
  };
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  describe("without cors (the default)", () => {
    let url: string;
    beforeAll(async () => {
      url = await start();
    });

    it("answers a preflight with 405 and no CORS header, so browsers keep other origins out", async () => {
      const result = await preflightFrom(url, APP);
      expect(result.status).toBe(405);
      expect(result.headers.allow).toBe("POST");
      expect(corsHeadersOf(result)).toEqual({});
    });

    it("answers a POST with an Origin without any CORS header", async () => {
      const result = await postFrom(url, APP);
      expect(result.status).toBe(200);
      expect(corsHeadersOf(result)).toEqual({});
      expect(result.headers.vary).toBe("Accept, Accept-Encoding");
    });
  });

  describe("with cors: { origins: [APP], credentials: true, maxAgeSeconds: 600 }", () => {
    let url: string;
    beforeAll(async () => {
      url = await start({ cors: { origins: [`${APP.toUpperCase()}/`], credentials: true, maxAgeSeconds: 600 } });
    });

    it("answers a preflight from the listed origin with 204 and the allow headers", async () => {
      const before = runs.length;
      const result = await preflightFrom(url, APP, "POST", "content-type,authorization,last-event-id,x-api-key");
      expect(result.status).toBe(204);
      expect(result.body).toBe("");
      expect(result.headers["content-length"]).toBeUndefined();
      expect(corsHeadersOf(result)).toEqual({
        "access-control-allow-origin": APP,
        "access-control-allow-methods": "POST",
        "access-control-allow-headers": "content-type, authorization, last-event-id, x-api-key",
        "access-control-allow-credentials": "true",
        "access-control-max-age": "600",
      });
      expect(result.headers.vary).toBe(PREFLIGHT_VARY);
      expect(runs).toHaveLength(before);
    });

    it("answers a preflight from another origin with 403 and a JSON error, allowing nothing", async () => {
      const result = await preflightFrom(url, EVIL);
      expect(result.status).toBe(403);
      expect(result.headers["content-type"]).toBe("application/json");
      expect(JSON.parse(result.body)).toEqual({ error: `CORS preflight refused: origin "${EVIL}" is not allowed` });
      expect(corsHeadersOf(result)).toEqual({});
      expect(result.headers.vary).toBe(PREFLIGHT_VARY);
    });

    it("answers a preflight for another method with 403", async () => {
      const result = await preflightFrom(url, APP, "PUT");
      expect(result.status).toBe(403);
      expect(JSON.parse(result.body)).toEqual({ error: 'CORS preflight refused: method "PUT" is not allowed: expected POST' });
    });

    it("answers an OPTIONS that is not a preflight with 405", async () => {
      const result = await send(url, "OPTIONS", { Origin: APP });
      expect(result.status).toBe(405);
      expect(corsHeadersOf(result)).toMatchObject({ "access-control-allow-origin": APP });
    });

    it.each([SSE, BINARY])("lets the listed origin read the run (%s): allow headers, Vary: Accept, Accept-Encoding, Origin", async (accept) => {
      const input = runInput({ runId: `cors-${accept}` });
      const result = await postFrom(url, APP, input, "application/json", accept);
      expect(result.status).toBe(200);
      expect(result.headers["content-type"]).toBe(accept);
      expect(corsHeadersOf(result)).toEqual({ "access-control-allow-origin": APP, "access-control-allow-credentials": "true" });
      expect(result.headers.vary).toBe("Accept, Accept-Encoding, Origin");
      expect((await eventsOf(result)).at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, runId: input.runId });
      expect(runs.at(-1)).toEqual(input);
    });

    it("lets the listed origin read its errors: 415, 422", async () => {
      runs.length = 0;
      const wrongType = await postFrom(url, APP, runInput(), "text/plain");
      expect(wrongType.status).toBe(415);
      expect(corsHeadersOf(wrongType)).toEqual({ "access-control-allow-origin": APP, "access-control-allow-credentials": "true" });
      expect(wrongType.headers.vary).toBe("Origin");
      const invalid = await postFrom(url, APP, { ...runInput(), threadId: 1 });
      expect(invalid.status).toBe(422);
      expect(corsHeadersOf(invalid)).toEqual({ "access-control-allow-origin": APP, "access-control-allow-credentials": "true" });
      expect(runs).toEqual([]);
    });

    it("serves a POST from another origin or none without allow headers (the browser withholds it)", async () => {
      // Same-origin pages and non-browser clients send such requests too: refusing is the
      // browser's job, from the missing Access-Control-Allow-Origin.
      for (const origin of [EVIL, undefined]) {
        const result = await postFrom(url, origin);
        expect(result.status).toBe(200);
        expect(corsHeadersOf(result)).toEqual({});
        expect(result.headers.vary).toBe("Accept, Accept-Encoding, Origin");
      }
    });
  });

  describe('with cors: { origins: ["*"] }', () => {
    let url: string;
    beforeAll(async () => {
      url = await start({ cors: { origins: ["*"] } });
    });

    it("allows any origin with *, and no credentials", async () => {
      const preflight = await preflightFrom(url, EVIL);
      expect(preflight.status).toBe(204);
      expect(corsHeadersOf(preflight)).toEqual({
        "access-control-allow-origin": "*",
        "access-control-allow-methods": "POST",
        "access-control-allow-headers": "content-type",
      });
      const result = await postFrom(url, EVIL);
      expect(result.status).toBe(200);
      expect(corsHeadersOf(result)).toEqual({ "access-control-allow-origin": "*" });
    });
  });
});

describe("the cors option is checked when a handler is made", () => {
  const agent = () => [];
  it.each([
    [{ origins: "https://a.example" }, TypeError, /cors\.origins must be an array/],
    [{ origins: ["https://a.example/path"] }, RangeError, /cors\.origins\[0\] must be an origin/],
    [{ origins: ["*"], credentials: true }, RangeError, /cannot be combined with credentials/],
    [{ origins: ["https://a.example"], maxAgeSeconds: -5 }, RangeError, /cors\.maxAgeSeconds/],
    [{ origins: ["https://a.example"], credential: true }, TypeError, /cors has no option "credential"/],
  ])("refuses %j in both handlers", (cors, type, message) => {
    expect(() => createAgentHandler(agent, { cors: cors as never })).toThrow(type);
    expect(() => createAgentHandler(agent, { cors: cors as never })).toThrow(message);
    expect(() => createNodeHandler(agent, { cors: cors as never })).toThrow(type);
    expect(() => createNodeHandler(agent, { cors: cors as never })).toThrow(message);
  });
});
