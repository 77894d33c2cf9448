/**
 * Every status the handlers answer, with its headers and body, over real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventType, type RunAgentInput } from "../../src/index.js";
import { createNodeHandler } from "../../src/server/index.js";
import { HANDLERS, SSE, listen, parsingBody, post, rawRequest, readEvents, runInput, shortRun, type Served } from "./helpers.js";

const LIMIT = 1000;

describe.each(HANDLERS)("$name", ({ serve }) => {
  let served: Served;
  let seen: RunAgentInput[] = [];
  beforeAll(async () => {
    served = await serve(
      (input) => {
        seen.push(input);
        return shortRun(input);
      },
      { maxBodyBytes: LIMIT },
    );
  });
  afterAll(() => served.close());

  it.each(["GET", "PUT", "DELETE", "PATCH", "OPTIONS"])("answers %s with 405, Allow: POST and a JSON error", async (method) => {
    const response = await fetch(served.url, { method, body: method === "GET" ? undefined : "{}" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toEqual({ error: `method ${method} not allowed: expected POST` });
  });

  it("answers HEAD with 405 and Allow: POST", async () => {
    const response = await fetch(served.url, { method: "HEAD" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
  });

  it("answers a body whose Content-Length is over the bound with 413 before it is sent", async () => {
    // Declares 2 MB and sends 10 bytes, then waits: only an answer from the header can come back.
    const result = await rawRequest(served.url, {
      headers: { "Content-Type": "application/json", "Content-Length": 2_000_000 },
      chunks: [new TextEncoder().encode('{"threadId"')],
    });
    expect(result.status).toBe(413);
    expect(result.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(result.body)).toEqual({
      error: `request body too large: expected at most ${LIMIT} bytes, found Content-Length 2000000`,
    });
  });

  it("answers a fetch body of bound + 1 bytes with 413", async () => {
    const response = await post(served.url, " ".repeat(LIMIT + 1));
    expect(response.status).toBe(413);
    expect((await response.json()).error).toMatch(/^request body too large: expected at most 1000 bytes/);
  });

  it("answers a chunked body that passes the bound with 413 while it is still being sent", async () => {
    // No Content-Length: the server must count, stop and answer while our upload stays open.
    const chunk = new TextEncoder().encode(" ".repeat(600));
    const result = await rawRequest(served.url, {
      headers: { "Content-Type": "application/json", "Transfer-Encoding": "chunked" },
      chunks: [chunk, chunk],
    });
    expect(result.status).toBe(413);
    expect(result.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(result.body)).toEqual({ error: `request body too large: expected at most ${LIMIT} bytes, found more than ${LIMIT} bytes` });
  });

  it("answers an endless upload with 413, having read only about the bound", async () => {
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
      },
    });
    const response = await fetch(served.url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: endless,
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(413);
    expect((await response.json()).error).toMatch(/found more than 1000 bytes$/);
    // What the sockets buffered before the server stopped reading: a few MiB, not an endless body.
    expect(pulled).toBeLessThan(256);
  });

  it("accepts a body of exactly the bound", async () => {
    const body = JSON.stringify(runInput());
    const response = await post(served.url, body + " ".repeat(LIMIT - body.length));
    expect(response.status).toBe(200);
    await response.arrayBuffer();
  });

  it("answers a body that is not JSON with 422", async () => {
    const response = await post(served.url, "{not json");
    expect(response.status).toBe(422);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect((await response.json()).error).toMatch(/^request body is not valid JSON: /);
  });

  it("answers a body that is not UTF-8 with 422", async () => {
    const response = await fetch(served.url, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: new Uint8Array([0x7b, 0xff, 0x7d]),
    });
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({ error: "request body is not valid UTF-8" });
  });

  it("answers a POST without a body with 422", async () => {
    const response = await fetch(served.url, { method: "POST", headers: { "Content-Type": "application/json" } });
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({ error: "request body is empty: expected a RunAgentInput JSON object" });
  });

  it("answers a body that does not match RunAgentInput with 422 naming the path and the problem", async () => {
    const response = await post(served.url, { ...runInput(), threadId: 42 });
    expect(response.status).toBe(422);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toEqual({ error: "invalid RunAgentInput: threadId: expected string, found 42" });
  });

  it("names nested paths and missing fields in a 422, and only those (1.0 needs threadId, runId and messages)", async () => {
    // state, forwardedProps, tools and context are absent: AG-UI 1.0 does not require them, so the
    // error does not name them; it names the missing runId and each faulty nested field.
    const body = {
      threadId: "t",
      messages: [{ id: "u1", role: "user", content: 7 }],
      tools: [{ name: "search" }],
      resume: [{ interruptId: "i1", status: "maybe" }],
    };
    const response = await post(served.url, body);
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({
      error:
        "invalid RunAgentInput: runId: expected string, found nothing; messages[0].content: expected string or array, found 7; " +
        'tools[0].description: expected string, found nothing; resume[0].status: expected "resolved" or "cancelled", found "maybe"',
    });
  });

  it("answers a JSON value that is not an object with 422", async () => {
    const response = await post(served.url, "[1,2]");
    expect(response.status).toBe(422);
    expect((await response.json()).error).toMatch(/^invalid RunAgentInput: expected object, found an array/);
  });

  it("answers a valid run with 200, the stream headers and the run's events", async () => {
    seen = [];
    const input = runInput({ runId: "run-200" });
    const response = await post(served.url, { ...input, extra: "dropped" }, SSE);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe(SSE);
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(response.headers.get("vary")).toBe("Accept, Accept-Encoding");
    // Node's fetch accepts gzip, and the handler compresses by default.
    expect(response.headers.get("content-encoding")).toBe("gzip");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    const events = await readEvents(response);
    expect(events.map((e) => e.type)).toEqual(shortRun(input).map((e) => e.type));
    // The agent gets the validated input, unknown keys dropped.
    expect(seen).toEqual([input]);
  });
});

describe("createNodeHandler with a body already parsed by middleware", () => {
  let served: Served;
  const seen: RunAgentInput[] = [];
  const agent = (input: RunAgentInput) => {
    seen.push(input);
    return shortRun(input);
  };
  const handler = createNodeHandler(agent);

  /** What `express.json()` does: read the body, parse it, leave it in `req.body`. */
  const expressJson = parsingBody(handler);

  beforeAll(async () => {
    served = await listen((req, res) => {
      if (req.url === "/parsed") return expressJson(req, res);
      if (req.url === "/default-empty") {
        // body-parser 1.x sets `req.body = {}` even when it does not parse (wrong content type).
        (req as { body?: unknown }).body = {};
        return handler(req, res);
      }
      if (req.url === "/parsed-invalid") {
        req.resume();
        req.on("end", () => {
          (req as { body?: unknown }).body = { threadId: "t" };
          handler(req, res);
        });
        return;
      }
      handler(req, res);
    });
  });
  afterAll(() => served.close());

  it("uses req.body as is", async () => {
    const input = runInput({ runId: "parsed" });
    const response = await post(served.url.replace("/agent", "/parsed"), input);
    expect(response.status).toBe(200);
    const events = await readEvents(response);
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, runId: "parsed" });
    expect(seen.at(-1)).toEqual(input);
  });

  it("reads the stream when req.body is a default {} over an unread body", async () => {
    const input = runInput({ runId: "default-empty" });
    const response = await post(served.url.replace("/agent", "/default-empty"), input);
    expect(response.status).toBe(200);
    expect((await readEvents(response)).at(-1)).toMatchObject({ runId: "default-empty" });
  });

  it("validates req.body and answers 422", async () => {
    const response = await post(served.url.replace("/agent", "/parsed-invalid"), "{}");
    expect(response.status).toBe(422);
    expect((await response.json()).error).toMatch(/^invalid RunAgentInput: runId: expected string, found nothing/);
  });
});
