/**
 * A run request must declare `Content-Type: application/json`: anything a web page of another
 * origin can send without a preflight (text/plain, a form, no type) gets 415, unread, and never
 * runs the agent. Over real HTTP, against both handlers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventType, type RunAgentInput } from "../../src/index.js";
import { createNodeHandler } from "../../src/server/index.js";
import { HANDLERS, SSE, listen, parsingBody, rawRequest, readEvents, runInput, shortRun, type Served } from "./helpers.js";

const body = JSON.stringify(runInput());
const utf8 = new TextEncoder();

const expected415 = (found: string) => ({ error: `unsupported Content-Type ${JSON.stringify(found)}: expected application/json` });

describe.each(HANDLERS)("$name", ({ serve }) => {
  let served: Served;
  const runs: RunAgentInput[] = [];
  beforeAll(async () => {
    served = await serve((input) => {
      runs.push(input);
      return shortRun(input);
    });
  });
  afterAll(() => served.close());

  /** Expects a 415 JSON answer with `error`, and no run started by it. */
  async function expect415(response: Response, error: { error: string }): Promise<void> {
    const before = runs.length;
    expect(response.status).toBe(415);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toEqual(error);
    expect(runs).toHaveLength(before);
  }

  it("answers text/plain with 415 and runs nothing, though the body is a valid RunAgentInput", async () => {
    await expect415(await fetch(served.url, { method: "POST", body, headers: { "Content-Type": "text/plain" } }), expected415("text/plain"));
    // What fetch sends, and a page's `fetch(url, { method: "POST", body: string })`, with no type given.
    await expect415(await fetch(served.url, { method: "POST", body }), expected415("text/plain;charset=UTF-8"));
    expect(runs).toEqual([]);
  });

  it("answers a form (urlencoded or multipart) with 415 and runs nothing", async () => {
    await expect415(
      await fetch(served.url, { method: "POST", body: new URLSearchParams({ [body]: "" }) }),
      expected415("application/x-www-form-urlencoded;charset=UTF-8"),
    );
    const form = new FormData();
    form.set("input", body);
    const response = await fetch(served.url, { method: "POST", body: form });
    expect(response.status).toBe(415);
    expect((await response.json()).error).toMatch(/^unsupported Content-Type "multipart\/form-data; boundary=[^"]+": expected application\/json$/);
    expect(runs).toEqual([]);
  });

  it("answers a request without Content-Type with 415 and runs nothing", async () => {
    const result = await rawRequest(served.url, { headers: { "Content-Length": utf8.encode(body).byteLength }, chunks: [utf8.encode(body)], end: true });
    expect(result.status).toBe(415);
    expect(result.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(result.body)).toEqual({ error: "missing Content-Type: expected application/json" });
    expect(runs).toEqual([]);
  });

  it.each(["application/vnd.ag-ui+json", "text/json", "application/json-patch+json", "application/json, text/plain"])(
    "answers %s with 415: only application/json is accepted",
    async (type) => {
      await expect415(await fetch(served.url, { method: "POST", body, headers: { "Content-Type": type } }), expected415(type));
      expect(runs).toEqual([]);
    },
  );

  it("answers 415 before reading the body: the upload is still open", async () => {
    // Declares a megabyte of text/plain, sends a few bytes and waits: only an answer from the
    // headers can come back, and the connection is closed rather than the rest read.
    const result = await rawRequest(served.url, {
      headers: { "Content-Type": "text/plain", "Content-Length": 1_000_000 },
      chunks: [utf8.encode('{"threadId"')],
    });
    expect(result.status).toBe(415);
    expect(result.headers.connection).toBe("close");
    expect(JSON.parse(result.body)).toEqual(expected415("text/plain"));
    expect(runs).toEqual([]);
  });

  it.each(["application/json", "Application/JSON; charset=utf-8", "APPLICATION/JSON;charset=UTF-8", "application/json ; foo=bar"])(
    "accepts %j and runs the agent",
    async (type) => {
      const input = runInput({ runId: `type-${type}` });
      const response = await fetch(served.url, { method: "POST", body: JSON.stringify(input), headers: { "Content-Type": type, Accept: SSE } });
      expect(response.status).toBe(200);
      expect((await readEvents(response)).at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, runId: input.runId });
      expect(runs.at(-1)).toEqual(input);
      runs.length = 0;
    },
  );

  it("still answers a method other than POST with 405 first", async () => {
    const response = await fetch(served.url, { method: "PUT", body, headers: { "Content-Type": "text/plain" } });
    expect(response.status).toBe(405);
  });
});

describe("createNodeHandler with a body middleware already parsed", () => {
  let served: Served;
  const runs: RunAgentInput[] = [];
  const handler = createNodeHandler((input) => {
    runs.push(input);
    return shortRun(input);
  });

  beforeAll(async () => {
    served = await listen(parsingBody(handler));
  });
  afterAll(() => served.close());

  it("answers 415 to a text/plain request whose body the middleware parsed, and runs nothing", async () => {
    const response = await fetch(served.url, { method: "POST", body, headers: { "Content-Type": "text/plain" } });
    expect(response.status).toBe(415);
    expect(await response.json()).toEqual(expected415("text/plain"));
    expect(runs).toEqual([]);
  });

  it("uses the parsed body of an application/json request", async () => {
    const response = await fetch(served.url, { method: "POST", body, headers: { "Content-Type": "application/json", Accept: SSE } });
    expect(response.status).toBe(200);
    expect((await readEvents(response)).at(-1)).toMatchObject({ type: EventType.RUN_FINISHED });
    expect(runs).toHaveLength(1);
  });
});
