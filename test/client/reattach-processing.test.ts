/**
 * A reattach goes through the same stages as the live stream (AG-UI 1.1, basic/processing: every
 * path that feeds the application, reconnection and replay included): an event of an unknown type
 * is dropped and a member of unknown kind stripped, each with a warning, after a cut as before
 * it. A dropped event still counts in the run's numbering, so the reattach after it asks for the
 * events after it, and the ids that follow are in sequence.
 */
import { afterEach, describe, expect, it } from "vitest";
import { HttpAgent } from "../../src/client/index.js";
import type { AguiEvent, ProtocolWarning, RunAgentInput } from "../../src/index.js";
import { listen, readBody, type TestServer } from "./helpers.js";

const open: TestServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

/** The numbered run a server stored: a cut falls after `cuts[i]` events of the i-th answer. */
function run(threadId: string, runId: string): object[] {
  return [
    { type: "RUN_STARTED", threadId, runId },
    { type: "STATE_SNAPSHOT", snapshot: { n: 0 } },
    { type: "HOLOGRAM_STARTED", beam: 1 },
    { type: "STATE_DELTA", delta: [{ op: "increment", path: "/n" }, { op: "replace", path: "/n", value: 1 }] },
    { type: "RUN_FINISHED", threadId, runId, outcome: { type: "paused" } },
  ];
}

describe("a reattach applies the same stages as the live stream", () => {
  it("drops, strips and warns after a cut as before it, counting what it dropped in the numbering", async () => {
    let events: object[] = [];
    const lastIds: (string | undefined)[] = [];
    // The POST's answer is cut after 2 events; the first reattach's after the dropped one.
    const answers = [2, 3, Infinity];
    const server = await listen(async (req, res) => {
      let from = 0;
      let runId: string;
      if (req.method === "POST") {
        const input = JSON.parse(await readBody(req)) as RunAgentInput;
        runId = input.runId;
        events = run(input.threadId, runId);
      } else {
        const url = new URL(req.url!, "http://x");
        runId = url.searchParams.get("runId")!;
        const last = req.headers["last-event-id"] as string | undefined;
        lastIds.push(last);
        from = last === undefined ? 0 : Number(last) + 1;
      }
      const until = Math.min(answers[lastIds.length]!, events.length);
      res.writeHead(200, { "content-type": "text/event-stream", "AG-UI-Run-Id": runId });
      const text = events
        .slice(from, until)
        .map((event, i) => `id: ${from + i}\ndata: ${JSON.stringify(event)}\n\n`)
        .join("");
      if (until === events.length) res.end(text);
      // Flushed, then the connection dies mid-body: the client sees a cut.
      else res.write(text, () => res.socket?.destroy());
    });
    open.push(server);

    const warnings: ProtocolWarning[] = [];
    const agent = new HttpAgent({ url: server.url, transport: "sse", onWarning: (w) => void warnings.push(w), resume: { backoffMs: 1 } });
    const seen: AguiEvent[] = [];
    for await (const event of agent.events()) seen.push(event);

    expect(lastIds).toEqual(["1", "2"]);
    expect(seen.map((e) => e.type)).toEqual(["RUN_STARTED", "STATE_SNAPSHOT", "STATE_DELTA", "RUN_FINISHED"]);
    expect(seen[2]).toEqual({ type: "STATE_DELTA", delta: [{ op: "replace", path: "/n", value: 1 }] });
    expect(seen[3]).not.toHaveProperty("outcome");
    expect(warnings.map((w) => [w.kind, w.type, w.path])).toEqual([
      ["unknown_event", "HOLOGRAM_STARTED", undefined],
      ["unknown_member", "STATE_DELTA", "/delta/0"],
      ["unknown_member", "RUN_FINISHED", "/outcome"],
    ]);
  });

  it("counts an event stripped whole (an encrypted value of unknown subtype) in the numbering of a live run", async () => {
    const server = await listen(async (req, res) => {
      const { threadId, runId } = JSON.parse(await readBody(req)) as RunAgentInput;
      const events = [
        { type: "RUN_STARTED", threadId, runId },
        { type: "REASONING_ENCRYPTED_VALUE", subtype: "image", entityId: "e", encryptedValue: "opaque" },
        { type: "RUN_FINISHED", threadId, runId },
      ];
      res.writeHead(200, { "content-type": "text/event-stream", "AG-UI-Run-Id": runId });
      // One chunk a event, so that the ids are checked after the dropped one.
      for (const [i, event] of events.entries()) await new Promise((done) => res.write(`id: ${i}\ndata: ${JSON.stringify(event)}\n\n`, done));
      res.end();
    });
    open.push(server);
    const warnings: ProtocolWarning[] = [];
    const agent = new HttpAgent({ url: server.url, transport: "sse", onWarning: (w) => void warnings.push(w), resume: { backoffMs: 1, retries: 0 } });
    const seen: AguiEvent[] = [];
    for await (const event of agent.events()) seen.push(event);
    expect(seen.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
    expect(warnings.map((w) => [w.kind, w.type, w.path])).toEqual([["unknown_member", "REASONING_ENCRYPTED_VALUE", ""]]);
  });

  it("reattaches after an event stripped whole with that event counted, so nothing arrives twice", async () => {
    let events: object[] = [];
    const lastIds: (string | undefined)[] = [];
    const server = await listen(async (req, res) => {
      let from = 0;
      let runId: string;
      if (req.method === "POST") {
        const input = JSON.parse(await readBody(req)) as RunAgentInput;
        runId = input.runId;
        events = [
          { type: "RUN_STARTED", threadId: input.threadId, runId },
          { type: "REASONING_ENCRYPTED_VALUE", subtype: "image", entityId: "e", encryptedValue: "opaque" },
          { type: "CUSTOM", name: "after", value: 1 },
          { type: "RUN_FINISHED", threadId: input.threadId, runId },
        ];
      } else {
        runId = new URL(req.url!, "http://x").searchParams.get("runId")!;
        const last = req.headers["last-event-id"] as string | undefined;
        lastIds.push(last);
        from = last === undefined ? 0 : Number(last) + 1;
      }
      res.writeHead(200, { "content-type": "text/event-stream", "AG-UI-Run-Id": runId });
      // The POST's answer is cut right after the event the client strips whole.
      const until = req.method === "POST" ? 2 : events.length;
      const text = events
        .slice(from, until)
        .map((event, i) => `id: ${from + i}\ndata: ${JSON.stringify(event)}\n\n`)
        .join("");
      if (until === events.length) res.end(text);
      else res.write(text, () => res.socket?.destroy());
    });
    open.push(server);
    const warnings: ProtocolWarning[] = [];
    const agent = new HttpAgent({ url: server.url, transport: "sse", onWarning: (w) => void warnings.push(w), resume: { backoffMs: 1 } });
    const seen: AguiEvent[] = [];
    for await (const event of agent.events()) seen.push(event);
    expect(lastIds).toEqual(["1"]);
    expect(seen.map((e) => e.type)).toEqual(["RUN_STARTED", "CUSTOM", "RUN_FINISHED"]);
    expect(warnings.map((w) => [w.kind, w.type])).toEqual([["unknown_member", "REASONING_ENCRYPTED_VALUE"]]);
  });
});
