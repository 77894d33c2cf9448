/**
 * createAgentHandler served by Hono on @hono/node-server, as its users run it: a client leaving
 * mid-run is normal, so the runtime must have nothing to log, and the agent is still stopped.
 */
import { serve as honoServe, type ServerType } from "@hono/node-server";
import { Hono } from "hono";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { EventType, FrameDecoder, SSEDecoder, type RunAgentInput } from "../../src/index.js";
import { createAgentHandler } from "../../src/server/index.js";
import { BINARY, SSE, post, readEvents, runInput, tickingAgent, waitFor, type TickingState } from "./helpers.js";

/** Serves `app` on 127.0.0.1 and an ephemeral port. */
async function listen(app: Hono): Promise<{ url: string; close(): Promise<void> }> {
  let server!: ServerType;
  const port = await new Promise<number>((resolve) => {
    server = honoServe({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info: AddressInfo) => resolve(info.port));
  });
  return {
    url: `http://127.0.0.1:${port}/agent`,
    close: () =>
      new Promise<void>((resolve) => {
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

describe("createAgentHandler on Hono and @hono/node-server", () => {
  const spies: MockInstance[] = [];
  let served: { url: string; close(): Promise<void> } | undefined;
  beforeEach(() => {
    for (const method of ["error", "warn", "info", "log"] as const) spies.push(vi.spyOn(console, method));
  });
  afterEach(async () => {
    await served?.close();
    served = undefined;
    for (const spy of spies.splice(0)) spy.mockRestore();
  });
  const logged = (): unknown[][] => spies.flatMap((spy) => spy.mock.calls);

  it.each([SSE, BINARY])("a client that disconnects mid-run logs nothing, and the agent's signal fires and its finally runs (%s)", async (accept) => {
    const state: TickingState = { aborted: false, finallyRan: false, errors: [] };
    const handler = createAgentHandler(tickingAgent(state), { onError: (error) => state.errors.push(error) });
    // A second route, to see the server go on serving after the disconnect.
    const other = createAgentHandler((input: RunAgentInput) => [
      { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId },
      { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId },
    ]);
    const app = new Hono();
    app.post("/agent", (c) => handler(c.req.raw));
    app.post("/other", (c) => other(c.req.raw));
    served = await listen(app);

    const client = new AbortController();
    const response = await post(served.url, runInput(), accept, { signal: client.signal });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = accept === BINARY ? new FrameDecoder() : new SSEDecoder();
    let seen = 0;
    while (seen < 3) {
      const { done, value } = await reader.read();
      if (done) throw new Error("the run ended early");
      seen += decoder.push(value).length;
    }
    client.abort();
    await waitFor(() => state.aborted && state.finallyRan, 3000, "the agent to be stopped");
    // The runtime logs an errored body as soon as its read fails, right after the abort; a later
    // request served in full comes after that, whatever the order of the two.
    const events = await readEvents(await post(served.url.replace("/agent", "/other"), runInput(), accept));
    expect(events.map((e) => e.type)).toEqual([EventType.RUN_STARTED, EventType.RUN_FINISHED]);
    expect(logged()).toEqual([]);
    expect(state.errors).toEqual([]);
  });
});
