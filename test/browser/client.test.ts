/**
 * The bundled client in headless Chromium, against our server over both transports.
 *
 * Needs Debian's `chromium` at /usr/bin/chromium (`apt-get install -y chromium`). Without it the
 * suite is skipped, except under CI, where a missing browser must fail the run.
 */
import type { Server } from "node:http";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Transport } from "../../src/client/index.js";
import { BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE, type RunAgentInput, type RunContext } from "../../src/index.js";
import { createNodeHandler } from "../../src/server/index.js";
import { HttpAgent } from "../../src/client/index.js";
import { encodeFrame } from "../../src/binary/encode.js";
import { encodeSSE } from "../../src/sse/encode.js";
import { normalizedServed, recordingSampleAgent } from "../client/helpers.js";
import { PROTOCOL_VERSION } from "../../src/protocol/index.js";
import { available, bundlePage, closeServer, launchChromium, listen, pageServer, warnIfUnavailable } from "./chromium.js";
import type { PageOutcome, PageRun } from "./page.js";

warnIfUnavailable("test/browser/client.test.ts");

describe.skipIf(!available)("HttpAgent in headless Chromium", () => {
  const sample = recordingSampleAgent();
  let hangingRunAborted = false;
  let server: Server;
  let origin: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    const agentRoute = createNodeHandler(sample.agent);
    const hangingRoute = createNodeHandler(async function* (input: RunAgentInput, { signal }: RunContext) {
      yield { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId };
      yield { type: "TEXT_MESSAGE_START", messageId: "m" };
      await new Promise((resolve) => signal.addEventListener("abort", resolve));
      hangingRunAborted = true;
    });
    server = pageServer(await bundlePage("page.ts"), {
      "/agent": agentRoute,
      // A run whose second event is invalid, in the transport asked for: the page's client (the
      // browser build, which judges without zod) must refuse it with the words Node's does.
      "/invalid": (req, res) => {
        const binary = (req.headers.accept ?? "").includes(BINARY_MEDIA_TYPE);
        res.writeHead(200, { "content-type": binary ? BINARY_MEDIA_TYPE : SSE_MEDIA_TYPE });
        const started = { type: "RUN_STARTED", threadId: "t", runId: "r" } as const;
        if (binary) {
          res.write(encodeFrame(started));
          // TEXT_MESSAGE_CONTENT with an empty delta, which the encoder would refuse to write.
          res.end(Buffer.from("0000000912070a02080112016d", "hex"));
        } else {
          const snapshot = {
            type: "MESSAGES_SNAPSHOT",
            messages: [
              { id: "u", role: "user", content: [{ type: "text", text: "hi" }, { type: "gif" }] },
              { id: 1, role: "tool", content: "x" },
              { id: "a", role: "assistant", toolCalls: [{ id: "c", type: "function", function: { name: "f" } }] },
            ],
          };
          res.end(encodeSSE(started) + `data: ${JSON.stringify(snapshot)}\n\n`);
        }
      },
      "/hanging": (req, res) => {
        // Chromium does not close a keep-alive connection when a fetch is cancelled while no read
        // is pending: it drains the rest of the body to reuse the socket, for up to 5 s
        // (HttpResponseBodyDrainer), and the server learns of the abort only then. Which case
        // happens depends on where the network service is when the cancel lands, so on load.
        // A response that cannot be reused is closed at once on cancel, so the server's view
        // follows the client's abort deterministically.
        res.setHeader("Connection", "close");
        hangingRoute(req, res);
      },
    });
    origin = await listen(server);
    browser = await launchChromium();
    page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(origin);
    await page.waitForFunction(() => "agui" in globalThis);
    expect(errors).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await closeServer(server);
  });

  // Typed loosely on purpose: Playwright's serialisability check of the event union's types is
  // too deep for the compiler.
  const run = async (options: PageRun): Promise<PageOutcome> =>
    (await page.evaluate(
      (json: string): Promise<unknown> => (globalThis as unknown as { agui: { run(o: unknown): Promise<unknown> } }).agui.run(JSON.parse(json)),
      JSON.stringify(options),
    )) as PageOutcome;

  const answeredAs: Record<Transport, string> = { auto: BINARY_MEDIA_TYPE, binary: BINARY_MEDIA_TYPE, sse: SSE_MEDIA_TYPE };
  for (const transport of ["auto", "binary", "sse"] as const) {
    for (const iterate of [false, true]) {
      it(`gets every event of the sample run (transport ${transport}, ${iterate ? "for await" : "subscribe"})`, async () => {
        const before = sample.sent.length;
        const outcome = await run({ url: "/agent", transport, iterate });
        expect(outcome.error).toBeUndefined();
        expect(outcome.completed).toBe(true);
        expect(outcome.contentTypes).toEqual([answeredAs[transport]]);
        expect(sample.sent).toHaveLength(before + 1);
        expect(outcome.events).toEqual(normalizedServed(sample.sent[before]!));
        expect(outcome.isSecureContext).toBe(true);
      });
    }
  }

  it("sends a complete RunAgentInput with generated UUIDs", async () => {
    await run({ url: "/agent", params: { forwardedProps: { from: "browser" } } });
    expect(sample.inputs.at(-1)).toEqual({
      threadId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      runId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      protocolVersion: PROTOCOL_VERSION,
      state: {},
      messages: [],
      tools: [],
      context: [],
      forwardedProps: { from: "browser" },
    });
  });

  for (const transport of ["binary", "sse"] as const) {
    it(`gets the server's 422 as an http_status error with its body (transport ${transport})`, async () => {
      const outcome = await run({ url: "/agent", transport, params: { messages: [{ id: 7, role: "user", content: "hi" } as never] } });
      expect(outcome.completed).toBe(false);
      expect(outcome.events).toEqual([]);
      expect(outcome.error).toMatchObject({ name: "HttpStatusError", code: "http_status", status: 422, body: { error: expect.stringContaining("messages[0].id") } });
      expect(outcome.error!.message).toContain("422");
    });

    it(`refuses an invalid event with the error Node's client gives, word for word (transport ${transport})`, async () => {
      let expected: unknown;
      try {
        for await (const _ of new HttpAgent({ url: `${origin}/invalid`, transport }).events()) void _;
      } catch (err) {
        expected = { name: (err as Error).name, code: (err as { code?: string }).code, message: (err as Error).message };
      }
      expect(expected).toMatchObject({ name: "ValidationError", code: "invalid_event" });
      const outcome = await run({ url: "/invalid", transport });
      expect(outcome.events.map((e) => e.type)).toEqual(["RUN_STARTED"]);
      expect(outcome.completed).toBe(false);
      expect({ name: outcome.error?.name, code: outcome.error?.code, message: outcome.error?.message }).toStrictEqual(expected);
    });

    it(`abortRun() mid-stream ends with an aborted error and closes the request (transport ${transport})`, async () => {
      hangingRunAborted = false;
      const outcome = await run({ url: "/hanging", transport, abortAfter: 2 });
      expect(outcome.events.map((e) => e.type)).toEqual(["RUN_STARTED", "TEXT_MESSAGE_START"]);
      expect(outcome.completed).toBe(false);
      expect(outcome.error).toMatchObject({ code: "aborted" });
      await expect.poll(() => hangingRunAborted).toBe(true);
    });
  }
});
