/**
 * The proxy keeps upstream connections alive between runs, and an upstream closes an idle one
 * when its keep-alive timeout passes (5 s for a Node server). When that close meets the proxy
 * taking the connection for a new run, the request fails at once with a reset, before any
 * answer: the proxy sends it again on a new connection rather than answering 502. (Under load, a
 * gap of about 5 s between runs made this happen in the test suite.)
 */
import type { Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { HttpAgent } from "../../src/client/index.js";
import { createNodeProxyHandler } from "../../src/proxy/index.js";
import { createNodeHandler } from "../../src/server/index.js";
import type { RunAgentInput } from "../../src/index.js";
import { listen, type TestServer } from "../client/helpers.js";

const open: TestServer[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function* quick(input: RunAgentInput) {
  yield { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId } as const;
  yield { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId } as const;
}

describe("the proxy's kept-alive upstream connections", () => {
  it("sends a run again on a new connection when a reused one is reset before any answer", async () => {
    const agent = createNodeHandler(quick);
    const perSocket = new Map<Socket, number>();
    let resets = 0;
    // The second request on any connection meets the connection closing, as at an idle timeout.
    const upstream = await listen((req, res) => {
      const n = (perSocket.get(req.socket) ?? 0) + 1;
      perSocket.set(req.socket, n);
      if (n === 2) {
        resets++;
        req.socket.destroy();
        return;
      }
      agent(req, res);
    });
    open.push(upstream);
    const proxy = await listen(createNodeProxyHandler({ agents: { next: { url: upstream.url } }, auth: { tokens: [{ token: "t-keepalive-01", subject: "a" }] } }));
    open.push(proxy);
    const client = new HttpAgent({ url: `${proxy.origin}/agents/next`, headers: { authorization: "Bearer t-keepalive-01" } });
    for (let run = 0; run < 3; run++) {
      const types: string[] = [];
      for await (const event of client.events()) types.push(event.type);
      expect(types).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
    }
    // Each reset was a reused connection's, and each was followed by a run that went through.
    expect(resets).toBeGreaterThanOrEqual(1);
  });
});
