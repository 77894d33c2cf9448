/**
 * HttpAgent's idle timeout in headless Chromium: a server that stalls (before its headers,
 * inside a binary frame, inside an SSE event) ends the run with a `timeout` error after the
 * configured idle time. The cases assert the error's code, not how long it took.
 */
import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE, encodeFrame, encodeSSE, type AguiEventInput } from "../../src/index.js";
import { available, openAgentPage, type AgentPage } from "./chromium.js";

if (!available) console.warn("test/browser/timeout.test.ts skipped: /usr/bin/chromium is missing (install it with: apt-get install -y chromium)");

const started: AguiEventInput = { type: "RUN_STARTED", threadId: "t", runId: "r" };

/** Sends the headers and `chunks`, then nothing: the response never ends. */
const stall =
  (contentType: string, chunks: (string | Uint8Array)[]) =>
  (_req: unknown, res: ServerResponse): void => {
    res.writeHead(200, { "content-type": contentType, "cache-control": "no-store" });
    for (const chunk of chunks) res.write(chunk);
  };

describe.skipIf(!available)("HttpAgent's idle timeout in headless Chromium", () => {
  let page: AgentPage;

  beforeAll(async () => {
    page = await openAgentPage({
      "/stall-binary": stall(BINARY_MEDIA_TYPE, [encodeFrame(started).slice(), Uint8Array.of(0, 0, 0, 50, 1, 2)]),
      "/stall-sse": stall(SSE_MEDIA_TYPE, [encodeSSE(started), 'data: {"type":"TEXT_MES']),
      "/no-headers": () => {},
    });
  });

  afterAll(async () => {
    await page?.close();
  });

  it("binary: a frame announced, then nothing", async () => {
    const outcome = await page.run({ url: "/stall-binary", transport: "binary", idleTimeoutMs: 300 });
    expect(outcome).toMatchObject({ types: ["RUN_STARTED"], completed: false, error: { code: "timeout" } });
  });

  it("SSE: part of an event, then nothing", async () => {
    const outcome = await page.run({ url: "/stall-sse", transport: "sse", idleTimeoutMs: 300 });
    expect(outcome).toMatchObject({ types: ["RUN_STARTED"], completed: false, error: { code: "timeout" } });
  });

  it("no response headers at all", async () => {
    const outcome = await page.run({ url: "/no-headers", idleTimeoutMs: 300 });
    expect(outcome).toMatchObject({ types: [], completed: false, error: { code: "timeout" } });
    expect(outcome.error!.message).toContain("/no-headers: nothing received for 300 ms (idleTimeoutMs)");
  });
});
