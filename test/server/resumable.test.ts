/**
 * Resumable runs over real HTTP, with the memory store: numbering, the run's header, detached
 * runs, reattach (GET), cancel (DELETE), and every refusal, on both handlers and both transports.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpAgent as TheirHttpAgent } from "@ag-ui/client";
import { EventType, SSE_KEEP_ALIVE, decodeEventStream, type AguiEvent, type AguiEventInput, type RunAgentInput } from "../../src/index.js";
import type { RunContext } from "../../src/agent/contract.js";
import { memoryStore, RESUME_TOKEN_HEADER, RUN_ID_HEADER, type RunStore } from "../../src/server/index.js";
import { BINARY, HANDLERS, SSE, post, postRun, runInput, sleep, waitFor, type Served } from "./helpers.js";

/** What the agents did, by runId. */
interface Trace {
  aborted: boolean;
  finallyRan: boolean;
  yielded: number;
}
const traces = new Map<string, Trace>();
/** Releases the "gated" runs: each waits for its gate before its last events. */
const gates = new Map<string, () => void>();

const TICKS = 20;

/** A run of TICKS CUSTOM events between RUN_STARTED and RUN_FINISHED; its runId picks the pace. */
async function* agent(input: RunAgentInput, { signal }: RunContext): AsyncGenerator<AguiEventInput> {
  const trace: Trace = { aborted: false, finallyRan: false, yielded: 0 };
  traces.set(input.runId, trace);
  signal.addEventListener("abort", () => (trace.aborted = true));
  const { threadId, runId } = input;
  try {
    yield { type: EventType.RUN_STARTED, threadId, runId };
    for (let i = 0; i < TICKS; i++) {
      if (runId.startsWith("gated") && i === TICKS / 2) await new Promise<void>((resolve) => gates.set(runId, resolve));
      if (runId.startsWith("slow")) await sleep(5);
      if (runId.startsWith("forever")) await sleep(5);
      trace.yielded++;
      yield { type: EventType.CUSTOM, name: "tick", value: i };
      if (runId.startsWith("forever") && i === TICKS - 1) i = -1;
    }
    yield { type: EventType.RUN_FINISHED, threadId, runId };
  } finally {
    trace.finallyRan = true;
  }
}

/** The events of a response, decoded; and the SSE ids seen, for SSE. */
async function eventsOf(response: Response): Promise<AguiEvent[]> {
  const events: AguiEvent[] = [];
  for await (const event of decodeEventStream(response.body!, response.headers.get("content-type"))) events.push(event);
  return events;
}

const ticksOf = (events: AguiEvent[]): unknown[] => events.map((e) => (e.type === EventType.CUSTOM ? e.value : e.type));

/** The whole run as the agent makes it. */
const WHOLE = [EventType.RUN_STARTED, ...Array.from({ length: TICKS }, (_, i) => i), EventType.RUN_FINISHED];

/** A reattach to run `runId`, presenting its resume token in the header. */
const get = (url: string, runId: string, token: string, accept: string, lastEventId?: string | number): Promise<Response> =>
  fetch(`${url}?runId=${encodeURIComponent(runId)}`, {
    headers: { accept, [RESUME_TOKEN_HEADER]: token, ...(lastEventId === undefined ? {} : { "last-event-id": String(lastEventId) }) },
  });

/** A cancel of run `runId`, presenting its resume token in the header. */
const del = (url: string, runId: string, token: string): Promise<Response> =>
  fetch(`${url}?runId=${encodeURIComponent(runId)}`, { method: "DELETE", headers: { [RESUME_TOKEN_HEADER]: token } });

/** The 404 of a run a request cannot reach, whether or not it exists. */
const noSuchRun = (runId: string): string =>
  `no run ${JSON.stringify(runId)} that this request can reach: it never started, it has expired, or its resume token was not presented`;

for (const { name, serve } of HANDLERS) {
  describe(`${name} with a memory store`, () => {
    let served: Served;
    let store: RunStore;
    beforeAll(async () => {
      store = memoryStore();
      served = await serve(agent, { store, onError: () => {} });
    });
    afterAll(async () => {
      await served.close();
      await store.close();
    });

    it("numbers SSE events with id: 0, 1, 2, … and names the run in AG-UI-Run-Id", async () => {
      const response = await post(served.url, runInput({ runId: "ids" }), SSE);
      expect(response.status).toBe(200);
      expect(response.headers.get(RUN_ID_HEADER)).toBe("ids");
      // A new token of 256 random bits, as the client sent none.
      expect(response.headers.get(RESUME_TOKEN_HEADER)).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const text = await response.text();
      const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
      expect(ids).toEqual(WHOLE.map((_, i) => i));
      // Each id comes right before its event's data line.
      expect(text.split("\n\n").filter((block) => block !== "").every((block) => /^id: \d+\ndata: /.test(block))).toBe(true);
    });

    for (const accept of [SSE, BINARY]) {
      const transport = accept === SSE ? "SSE" : "binary";

      it(`${transport}: a run goes on when its client leaves, and a reattach gets exactly the missing events`, async () => {
        const runId = `gated-${transport}`;
        const { response, token } = await postRun(served.url, runInput({ runId }), accept);
        const reader = decodeEventStream(response.body!, response.headers.get("content-type"))[Symbol.asyncIterator]();
        const seen: AguiEvent[] = [];
        for (let i = 0; i < 4; i++) seen.push((await reader.next()).value as AguiEvent);
        await reader.return!();
        // The agent is past the client's leaving: it finishes into the store.
        await waitFor(() => gates.has(runId), 3000, "the agent to reach its gate");
        gates.get(runId)!();
        await waitFor(() => traces.get(runId)!.finallyRan, 3000, "the agent to finish");
        expect(traces.get(runId)!.aborted).toBe(false);
        expect(traces.get(runId)!.yielded).toBe(TICKS);
        const rest = await get(served.url, runId, token, accept, seen.length - 1);
        expect(rest.status).toBe(200);
        expect(rest.headers.get(RUN_ID_HEADER)).toBe(runId);
        expect(rest.headers.get("content-type")).toBe(accept);
        expect(ticksOf([...seen, ...(await eventsOf(rest))])).toEqual(WHOLE);
      });

      it(`${transport}: a reattach to a live run replays, then follows it to its end`, async () => {
        const runId = `gated-live-${transport}`;
        const { response: first, token } = await postRun(served.url, runInput({ runId }), accept);
        await waitFor(() => gates.has(runId), 3000, "the agent to reach its gate");
        const second = await get(served.url, runId, token, accept);
        const [a, b] = [eventsOf(first), eventsOf(second)];
        await sleep(20);
        gates.get(runId)!();
        expect(ticksOf(await a)).toEqual(WHOLE);
        expect(ticksOf(await b)).toEqual(WHOLE);
      });

      it(`${transport}: Last-Event-ID of the last event of an ended run is 204; past it, 400`, async () => {
        const runId = `ended-${transport}`;
        const { response, token } = await postRun(served.url, runInput({ runId }), accept);
        await response.arrayBuffer();
        const last = WHOLE.length - 1;
        const all = await get(served.url, runId, token, accept);
        expect(ticksOf(await eventsOf(all))).toEqual(WHOLE);
        const fromLastButOne = await get(served.url, runId, token, accept, last - 1);
        expect(ticksOf(await eventsOf(fromLastButOne))).toEqual([EventType.RUN_FINISHED]);
        const none = await get(served.url, runId, token, accept, last);
        expect(none.status).toBe(204);
        expect(await none.text()).toBe("");
        const past = await get(served.url, runId, token, accept, last + 1);
        expect(past.status).toBe(400);
        expect((await past.json()).error).toMatch(/ended with event 21: expected a sequence number up to it, found 22/);
      });
    }

    it("a run started over SSE reattaches over binary, and one started over binary over SSE, the same events", async () => {
      for (const [first, then] of [
        [SSE, BINARY],
        [BINARY, SSE],
      ]) {
        const runId = `cross-${first === SSE ? "sse" : "binary"}`;
        const { response, token } = await postRun(served.url, runInput({ runId }), first!);
        const whole = await eventsOf(response);
        expect(ticksOf(whole)).toEqual(WHOLE);
        expect(await eventsOf(await get(served.url, runId, token, then!))).toEqual(whole);
        expect(await eventsOf(await get(served.url, runId, token, then!, 9))).toEqual(whole.slice(10));
      }
    });

    it("takes the sequence number from the lastEventId query parameter too", async () => {
      const { response: run, token } = await postRun(served.url, runInput({ runId: "query-seq" }), SSE);
      await run.arrayBuffer();
      const response = await fetch(`${served.url}?runId=query-seq&lastEventId=19`, { headers: { accept: SSE, [RESUME_TOKEN_HEADER]: token } });
      expect(ticksOf(await eventsOf(response))).toEqual([19, EventType.RUN_FINISHED]);
    });

    it("refuses what is not a sequence number, a missing runId, an unknown run and a runId in use", async () => {
      const { response: run, token } = await postRun(served.url, runInput({ runId: "taken" }), SSE);
      await run.arrayBuffer();
      for (const bad of ["-1", "01", "1.5", "x", "99999999999999999999"]) {
        const response = await get(served.url, "taken", token, SSE, bad);
        expect(response.status, bad).toBe(400);
        expect((await response.json()).error).toContain("Last-Event-ID must be the sequence number");
      }
      const noId = await fetch(served.url, { headers: { accept: SSE } });
      expect(noId.status).toBe(400);
      expect((await noId.json()).error).toBe("GET needs the run: expected a runId query parameter (?runId=…), found none");
      // A well-formed token (another run's) that reaches no run: the store is asked, and knows none.
      const unknown = await get(served.url, "never-started", token, SSE);
      expect(unknown.status).toBe(404);
      expect((await unknown.json()).error).toBe(noSuchRun("never-started"));
      const again = await post(served.url, runInput({ runId: "taken" }), SSE);
      expect(again.status).toBe(409);
      expect((await again.json()).error).toContain("expected a new runId");
      const put = await fetch(`${served.url}?runId=taken`, { method: "PUT" });
      expect(put.status).toBe(405);
      expect(put.headers.get("allow")).toBe("POST, GET, DELETE");
    });

    for (const accept of [SSE, BINARY]) {
      it(`DELETE cancels a live run (${accept === SSE ? "SSE" : "binary"}): the agent's signal fires, its finally runs, and every stream ends with RUN_ERROR cancelled`, async () => {
        const runId = `forever-${accept === SSE ? "sse" : "binary"}`;
        const { response: open, token } = await postRun(served.url, runInput({ runId }), accept);
        await waitFor(() => (traces.get(runId)?.yielded ?? 0) > 3, 3000, "some events");
        const follower = await get(served.url, runId, token, accept);
        const deleted = await del(served.url, runId, token);
        expect(deleted.status).toBe(204);
        const [mine, theirs] = [await eventsOf(open), await eventsOf(follower)];
        for (const events of [mine, theirs]) {
          expect(events.at(-1)).toEqual({ type: EventType.RUN_ERROR, code: "cancelled", message: "the run was cancelled" });
          expect(events.filter((e) => e.type === EventType.RUN_ERROR)).toHaveLength(1);
        }
        expect(theirs).toEqual(mine);
        await waitFor(() => traces.get(runId)!.finallyRan, 3000, "the agent's finally");
        expect(traces.get(runId)!.aborted).toBe(true);
        // An ended run stays as it was.
        expect((await del(served.url, runId, token)).status).toBe(204);
        expect(await eventsOf(await get(served.url, runId, token, accept))).toEqual(mine);
      });
    }

    it("DELETE of an unknown run is 404, and without runId 400", async () => {
      const response = await del(served.url, "nobody", "a-well-formed-token-of-no-run");
      expect(response.status).toBe(404);
      expect((await response.json()).error).toBe(noSuchRun("nobody"));
      expect((await fetch(served.url, { method: "DELETE" })).status).toBe(400);
    });

    it("@ag-ui/client 1.0's HttpAgent runs against it unchanged (SSE ids are ignored)", async () => {
      const theirs = new TheirHttpAgent({ url: served.url });
      const types: string[] = [];
      await theirs.runAgent({ runId: "their-client" }, { onEvent: ({ event }) => void types.push(event.type) });
      expect(types).toEqual(WHOLE.map((t) => (typeof t === "number" ? EventType.CUSTOM : t)));
    });

    it("sends SSE keep-alive comments while a stored run's agent is silent, and none over binary; the run comes whole either way", async () => {
      const silentStore = memoryStore();
      const silent = await serve(
        async function* (input: RunAgentInput): AsyncGenerator<AguiEventInput> {
          yield { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId };
          await sleep(170);
          yield { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId };
        },
        { store: silentStore, keepAliveMs: 40 },
      );
      try {
        const sse = await (await post(silent.url, runInput({ runId: "silent-sse" }), SSE)).text();
        const comments = sse.split(SSE_KEEP_ALIVE).length - 1;
        expect(comments).toBeGreaterThanOrEqual(2);
        expect(comments).toBeLessThanOrEqual(5);
        expect(sse.replaceAll(SSE_KEEP_ALIVE, "")).toMatch(/^id: 0\ndata: \{"type":"RUN_STARTED"[^\n]*\n\nid: 1\ndata: \{"type":"RUN_FINISHED"[^\n]*\n\n$/);
        const binary = await post(silent.url, runInput({ runId: "silent-binary" }), BINARY);
        expect((await eventsOf(binary)).map((e) => e.type)).toEqual([EventType.RUN_STARTED, EventType.RUN_FINISHED]);
      } finally {
        await silent.close();
        await silentStore.close();
      }
    });
  });
}

describe("SSE text with a store", () => {
  it("is the same as without one, whoever started the run, keys in the model's order", async () => {
    // Keys out of the model's order, as an agent may write them.
    const scrambled = async function* (input: RunAgentInput): AsyncGenerator<AguiEventInput> {
      yield { runId: input.runId, threadId: input.threadId, type: EventType.RUN_STARTED } as AguiEventInput;
      yield { value: { b: 1, a: 2 }, name: "n", type: EventType.CUSTOM } as AguiEventInput;
      yield { runId: input.runId, threadId: input.threadId, type: EventType.RUN_FINISHED } as AguiEventInput;
    };
    const store = memoryStore();
    const plain = await HANDLERS[1]!.serve(scrambled);
    const stored = await HANDLERS[1]!.serve(scrambled, { store });
    try {
      const strip = (text: string) => text.replace(/^id: \d+\n/gm, "");
      const expected = await (await post(plain.url, runInput({ runId: "k" }), SSE)).text();
      expect(expected).toContain('data: {"type":"CUSTOM","name":"n","value":{"b":1,"a":2}}');
      const tokens = new Map<string, string>();
      const sse = await postRun(stored.url, runInput({ runId: "k-sse" }), SSE);
      tokens.set("k-sse", sse.token);
      expect(strip(await sse.response.text())).toBe(expected.replaceAll('"k"', '"k-sse"'));
      const binary = await postRun(stored.url, runInput({ runId: "k-bin" }), BINARY);
      tokens.set("k-bin", binary.token);
      await binary.response.arrayBuffer();
      for (const runId of ["k-sse", "k-bin"]) {
        expect(strip(await (await get(stored.url, runId, tokens.get(runId)!, SSE)).text())).toBe(expected.replaceAll('"k"', `"${runId}"`));
      }
    } finally {
      await plain.close();
      await stored.close();
      await store.close();
    }
  });
});

describe("without a store", () => {
  it("GET and DELETE stay 405, and no run id is sent", async () => {
    const served = await HANDLERS[1]!.serve(agent);
    try {
      const response = await fetch(`${served.url}?runId=x`, { headers: { accept: SSE } });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
      expect((await fetch(`${served.url}?runId=x`, { method: "DELETE" })).status).toBe(405);
      const run = await post(served.url, runInput({ runId: "plain" }), SSE);
      expect(run.headers.get(RUN_ID_HEADER)).toBeNull();
      expect(run.headers.get(RESUME_TOKEN_HEADER)).toBeNull();
      expect(await run.text()).not.toMatch(/^id:/m);
    } finally {
      await served.close();
    }
  });
});

describe("CORS with a store", () => {
  it("preflights GET and DELETE and exposes AG-UI-Run-Id and AG-UI-Resume-Token", async () => {
    const store = memoryStore();
    const served = await HANDLERS[1]!.serve(agent, { store, cors: { origins: ["http://app.test"] } });
    try {
      for (const method of ["POST", "GET", "DELETE"]) {
        const preflight = await fetch(served.url, { method: "OPTIONS", headers: { origin: "http://app.test", "access-control-request-method": method } });
        expect(preflight.status).toBe(204);
        expect(preflight.headers.get("access-control-allow-methods")).toBe("POST, GET, DELETE");
      }
      const put = await fetch(served.url, { method: "OPTIONS", headers: { origin: "http://app.test", "access-control-request-method": "PUT" } });
      expect(put.status).toBe(403);
      const run = await fetch(served.url, {
        method: "POST",
        headers: { origin: "http://app.test", "content-type": "application/json", accept: SSE },
        body: JSON.stringify(runInput({ runId: "cors" })),
      });
      expect(run.headers.get("access-control-expose-headers")).toBe(`${RUN_ID_HEADER}, ${RESUME_TOKEN_HEADER}`);
      await run.arrayBuffer();
    } finally {
      await served.close();
      await store.close();
    }
  });
});
