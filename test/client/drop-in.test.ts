/**
 * What `@ag-ui/client` 1.0 code does with its `HttpAgent` works with ours unchanged: a subclass's
 * `requestInit(input)` override is called and what it returns is sent (on the POST, and on the
 * run's reattach after a cut), `run(input)` answers `.subscribe(observer)` without rxjs and is
 * what rxjs's `from()` takes, and a `fetch` typed as their `HttpAgentFetchFn` is accepted.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { HttpAgentFetchFn as TheirFetchFn } from "@ag-ui/client";
import { from, toArray, lastValueFrom } from "rxjs";
import { afterEach, describe, expect, it } from "vitest";
import { HttpAgent } from "../../src/client/index.js";
import type { AguiEvent, RunAgentInput } from "../../src/index.js";
import { listen, readBody, type TestServer } from "./helpers.js";

const open: TestServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

interface Seen {
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A server keeping its runs: a POST's answer names the run and is cut after its first event when
 * `cut` is set; a reattach answers the rest.
 */
async function server(cut: boolean): Promise<{ server: TestServer; seen: Seen[] }> {
  const seen: Seen[] = [];
  let events: string[] = [];
  const s = await listen(async (req, res) => {
    const body = await readBody(req);
    seen.push({ method: req.method!, headers: req.headers, body });
    let runId: string;
    let from = 0;
    if (req.method === "POST") {
      const input = JSON.parse(body) as RunAgentInput;
      runId = input.runId;
      events = [
        { type: "RUN_STARTED", threadId: input.threadId, runId },
        { type: "CUSTOM", name: "body", value: input.forwardedProps },
        { type: "RUN_FINISHED", threadId: input.threadId, runId },
      ].map((e, i) => `id: ${i}\ndata: ${JSON.stringify(e)}\n\n`);
    } else {
      runId = new URL(req.url!, "http://x").searchParams.get("runId")!;
      from = Number(req.headers["last-event-id"]) + 1;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "AG-UI-Run-Id": runId });
    if (req.method === "POST" && cut) res.write(events[0], () => res.socket?.destroy());
    else res.end(events.slice(from).join(""));
  });
  open.push(s);
  return { server: s, seen };
}

class Authorised extends HttpAgent {
  protected override requestInit(input: RunAgentInput): RequestInit {
    const init = super.requestInit(input);
    return { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer for-${input.threadId}` } };
  }
}

describe("a drop-in for @ag-ui/client's HttpAgent", () => {
  it("sends what a requestInit override returns, on the POST and on the reattach after a cut", async () => {
    const { server: s, seen } = await server(true);
    const agent = new Authorised({ url: s.url, threadId: "t1", transport: "sse", resume: { backoffMs: 1 } });
    await agent.runAgent();
    expect(seen.map((r) => r.method)).toEqual(["POST", "GET"]);
    for (const request of seen) expect(request.headers.authorization).toBe("Bearer for-t1");
    expect(seen[0]!.headers.accept).toBe("text/event-stream");
    expect(seen[0]!.headers["content-type"]).toBe("application/json");
  });

  it("sends a requestInit override's own body", async () => {
    const { server: s } = await server(false);
    class Rewriting extends HttpAgent {
      protected override requestInit(input: RunAgentInput): RequestInit {
        return { ...super.requestInit(input), body: JSON.stringify({ ...input, forwardedProps: { rewritten: true } }) };
      }
    }
    const events: AguiEvent[] = [];
    for await (const event of new Rewriting({ url: s.url, transport: "sse" }).events()) events.push(event);
    expect(events[1]).toEqual({ type: "CUSTOM", name: "body", value: { rewritten: true } });
  });

  it("sends the agent's headers, unchanged, without an override", async () => {
    const { server: s, seen } = await server(false);
    await new HttpAgent({ url: s.url, headers: { "x-team": "blue" } }).runAgent();
    expect(seen[0]!.headers["x-team"]).toBe("blue");
    expect(seen[0]!.headers.authorization).toBeUndefined();
  });

  it("answers run(input).subscribe(observer) without rxjs, and rxjs's from() takes it", async () => {
    const { server: s } = await server(false);
    const agent = new HttpAgent({ url: s.url, transport: "sse" });
    const input: RunAgentInput = { threadId: "t", runId: "r", messages: [], tools: [], context: [], state: {}, forwardedProps: {} };
    const types = await new Promise<string[]>((resolve, reject) => {
      const got: string[] = [];
      agent.run(input).subscribe({ next: (e) => void got.push(e.type), error: reject, complete: () => resolve(got) });
    });
    expect(types).toEqual(["RUN_STARTED", "CUSTOM", "RUN_FINISHED"]);
    const viaRx = await lastValueFrom(from(agent.run({ ...input, runId: "r2" })).pipe(toArray()));
    expect(viaRx.map((e) => e.type)).toEqual(["RUN_STARTED", "CUSTOM", "RUN_FINISHED"]);
  });

  it("takes a fetch typed as @ag-ui/client's HttpAgentFetchFn", async () => {
    const { server: s, seen } = await server(false);
    const calls: string[] = [];
    const theirs: TheirFetchFn = (url, init) => {
      calls.push(url);
      return fetch(url, init);
    };
    await new HttpAgent({ url: s.url, fetch: theirs }).runAgent();
    expect(calls).toEqual([s.url]);
    expect(seen).toHaveLength(1);
  });
});
