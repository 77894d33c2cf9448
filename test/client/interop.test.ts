/**
 * Our HttpAgent against a server written with `@ag-ui/encoder` 1.0, in both transports.
 */
import { afterEach, describe, expect, it } from "vitest";
import { HttpAgent, type Transport } from "../../src/client/index.js";
import { BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE, type AguiEventInput } from "../../src/index.js";
import { sampleRun } from "../../demo/sample-run.js";
import { collect, iterate, normalized, serveWithTheirEncoder, type TestServer, recordingFetch } from "./helpers.js";

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe("HttpAgent against an @ag-ui/encoder server", () => {
  const expected: Record<Transport, string> = { auto: BINARY_MEDIA_TYPE, binary: BINARY_MEDIA_TYPE, sse: SSE_MEDIA_TYPE };

  for (const transport of ["auto", "binary", "sse"] as const) {
    it(`gets every event of the sample run (transport ${transport}, answered as ${expected[transport]})`, async () => {
      const sent: AguiEventInput[][] = [];
      const server = await serveWithTheirEncoder((input) => {
        const events = [...sampleRun(input)];
        sent.push(events);
        return events;
      });
      servers.push(server);
      const contentTypes: (string | null)[] = [];
      const client = new HttpAgent({
        url: server.url,
        transport,
        fetch: recordingFetch(contentTypes),
      });
      const viaSubscribe = await collect(client.events({ runId: "run-1" }));
      expect(viaSubscribe.error).toBeUndefined();
      expect(viaSubscribe.completed).toBe(true);
      expect(viaSubscribe.events).toEqual(normalized(sent[0]!));
      const viaLoop = await iterate(client.events());
      expect(viaLoop).toEqual({ events: normalized(sent[1]!), completed: true });
      expect(contentTypes).toEqual([expected[transport], expected[transport]]);
    });
  }

  it("keeps a RUN_ERROR as the proper end of a failed run, in both transports", async () => {
    const server = await serveWithTheirEncoder((input) => [
      { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId },
      { type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant" },
      { type: "RUN_ERROR", message: "rate limited", code: "429" },
    ]);
    servers.push(server);
    for (const transport of ["binary", "sse"] as const) {
      const outcome = await collect(new HttpAgent({ url: server.url, transport }).events());
      expect(outcome.completed).toBe(true);
      expect(outcome.events.map((e) => e.type)).toEqual(["RUN_STARTED", "TEXT_MESSAGE_START", "RUN_ERROR"]);
    }
  });

  it("reports their server's run that ends without RUN_FINISHED as truncated, in both transports", async () => {
    const server = await serveWithTheirEncoder((input) => [{ type: "RUN_STARTED", threadId: input.threadId, runId: input.runId }]);
    servers.push(server);
    for (const transport of ["binary", "sse"] as const) {
      const outcome = await collect(new HttpAgent({ url: server.url, transport }).events());
      expect(outcome).toMatchObject({ completed: false, error: { code: "truncated_stream" } });
    }
  });
});
