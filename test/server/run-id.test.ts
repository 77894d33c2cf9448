/**
 * Run ids a resumable run cannot have: the `AG-UI-Run-Id` header carries a run id unchanged only
 * when it is 1 to 256 visible ASCII characters, so a handler with a store refuses any other before
 * its agent runs (422), and a reattach or cancel naming one gets 400 without the store being asked.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AguiEventInput, RunAgentInput } from "../../src/index.js";
import { createAgentHandler, memoryStore, RESUME_TOKEN_HEADER, RUN_ID_HEADER } from "../../src/server/index.js";
import { HANDLERS, post, postRun, rawRequest, readEvents, runInput, shortRun, SSE, type Served } from "./helpers.js";

/** Ids the header cannot carry, and what the answer says of each (never the id itself). */
const UNCARRIABLE: [label: string, runId: string, found: string][] = [
  ["UTF-8 text", "café", "found U+00E9 at index 3"],
  ["a line feed", "run\n1", "found U+000A at index 3"],
  ["CR LF and a header", "r\r\nX-Injected: 1", "found U+000D at index 1"],
  ["a NUL", "run\u00001", "found U+0000 at index 3"],
  ["a space", "run 1", "found U+0020 at index 3"],
  ["10 KiB", "r".repeat(10_240), "found 10240 characters"],
];

describe.each(HANDLERS)("$name with a store, and a run id the AG-UI-Run-Id header cannot carry", ({ serve }) => {
  const started: string[] = [];
  async function* agent(input: RunAgentInput): AsyncGenerator<AguiEventInput> {
    started.push(input.runId);
    yield* shortRun(input);
  }
  let served: Served;
  beforeAll(async () => {
    served = await serve(agent, { store: memoryStore() });
  });
  afterAll(() => served.close());

  it.each(UNCARRIABLE)("refuses a POST whose run id holds %s with 422, before the agent runs", async (_label, runId, found) => {
    const response = await post(served.url, runInput({ runId }), SSE);
    expect(response.status).toBe(422);
    const { error } = (await response.json()) as { error: string };
    expect(error).toBe(`input.runId cannot name a resumable run: expected a runId of 1 to 256 visible ASCII characters (! to ~), ${found}`);
    expect(response.headers.get(RUN_ID_HEADER)).toBeNull();
    expect(started).not.toContain(runId);
  });

  it.each(UNCARRIABLE)("answers a GET or a DELETE naming a run id with %s with 400", async (_label, runId, found) => {
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(`${served.url}?runId=${encodeURIComponent(runId)}`, { method, headers: { accept: SSE } });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toBe(
        `${method} names no run this server could have started: expected a runId of 1 to 256 visible ASCII characters (! to ~), ${found}`,
      );
    }
  });

  it("runs a run id of 256 visible ASCII characters, which the header carries unchanged, and reattaches to it", async () => {
    const printable = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join("");
    const runId = (printable + printable + printable).slice(0, 256);
    const { response, token } = await postRun(served.url, runInput({ runId }), SSE);
    expect(response.status).toBe(200);
    expect(response.headers.get(RUN_ID_HEADER)).toBe(runId);
    expect((await readEvents(response)).map((e) => e.type)).toEqual(shortRun(runInput({ runId })).map((e) => e.type));
    const again = await fetch(`${served.url}?runId=${encodeURIComponent(runId)}`, { headers: { accept: SSE, "last-event-id": "2", [RESUME_TOKEN_HEADER]: token } });
    expect(again.status).toBe(200);
    expect(again.headers.get(RUN_ID_HEADER)).toBe(runId);
    expect((await readEvents(again)).length).toBe(shortRun(runInput({ runId })).length - 3);
    expect((await post(served.url, runInput({ runId: `${runId}x` }), SSE)).status).toBe(422);
  });

  it("answers repeated Last-Event-ID headers with 400", async () => {
    const { response: ended, token } = await postRun(served.url, runInput({ runId: "repeated-last-event-id" }), SSE);
    await readEvents(ended);
    const answer = await rawRequest(`${served.url}?runId=repeated-last-event-id`, {
      method: "GET",
      headers: { accept: SSE, "last-event-id": ["1", "2"] as unknown as string, [RESUME_TOKEN_HEADER]: token },
      end: true,
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({ error: 'Last-Event-ID must be the sequence number of an event of the run (0, 1, 2, …), found "1, 2"' });
  });
});

describe.each(HANDLERS)("$name without a store", ({ serve }) => {
  it("runs any run id the model accepts: no header carries it", async () => {
    const served = await serve(async function* (input: RunAgentInput) {
      yield* shortRun(input);
    });
    try {
      const response = await post(served.url, runInput({ runId: "café\n" }), SSE);
      expect(response.status).toBe(200);
      expect(response.headers.get(RUN_ID_HEADER)).toBeNull();
      expect((await readEvents(response)).at(-1)).toMatchObject({ type: "RUN_FINISHED", runId: "café\n" });
    } finally {
      await served.close();
    }
  });
});

describe("createAgentHandler with a store", () => {
  it("resolves to the 422 for a run id a header cannot hold, never rejecting", async () => {
    const store = memoryStore();
    const handler = createAgentHandler(async function* (input: RunAgentInput) {
      yield* shortRun(input);
    }, { store });
    try {
      const answer = await handler(
        new Request("http://localhost/agent", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(runInput({ runId: "a\r\nb" })) }),
      );
      expect(answer.status).toBe(422);
      expect(answer.headers.get(RUN_ID_HEADER)).toBeNull();
    } finally {
      await store.close();
    }
  });
});
