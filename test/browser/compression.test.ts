/**
 * Compressed event streams in headless Chromium: the browser's own fetch decompresses what the
 * handler compressed (gzip, br), on both transports, and our HttpAgent in the page gets every
 * event. The server records what the browser asked for and what it answered.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNodeHandler, type ContentCoding } from "../../src/server/index.js";
import { mixedTrace } from "../fixtures/corpus.js";
import { available, openAgentPage, type AgentPage } from "./chromium.js";

if (!available) console.warn("test/browser/compression.test.ts skipped: /usr/bin/chromium is missing (install it with: apt-get install -y chromium)");

const TRACE = mixedTrace(300);

/** What one request asked for and got. */
interface Exchange {
  acceptEncoding: string | undefined;
  contentEncoding: string | undefined;
}

describe.skipIf(!available)("compressed event streams in headless Chromium", () => {
  let page: AgentPage;
  const exchanges: Exchange[] = [];

  /** The handler, compressing with `encodings` (or not at all), recording each exchange. */
  const route = (encodings: ContentCoding[] | false) => {
    const handler = createNodeHandler(() => TRACE, { compression: encodings === false ? false : { encodings } });
    return (req: IncomingMessage, res: ServerResponse): void => {
      const exchange: Exchange = { acceptEncoding: req.headers["accept-encoding"], contentEncoding: undefined };
      exchanges.push(exchange);
      const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
      res.writeHead = ((...args: unknown[]) => {
        const headers = args.find((a) => typeof a === "object" && a !== null) as Record<string, string> | undefined;
        exchange.contentEncoding = headers?.["Content-Encoding"];
        return writeHead(...args);
      }) as typeof res.writeHead;
      handler(req, res);
    };
  };

  beforeAll(async () => {
    page = await openAgentPage({ "/gzip": route(["gzip"]), "/br": route(["br"]), "/default": route(["gzip", "br", "zstd"]), "/off": route(false) });
  });

  afterAll(async () => {
    await page?.close();
  });

  for (const transport of ["binary", "sse"] as const) {
    for (const path of ["/gzip", "/br", "/default", "/off"]) {
      it(`gets every event of a run from ${path} over ${transport}`, async () => {
        const before = exchanges.length;
        const outcome = await page.run({ url: path, transport });
        expect(outcome.error).toBeUndefined();
        expect(outcome.completed).toBe(true);
        expect(outcome.types).toEqual(TRACE.map((e) => e.type));
        expect(exchanges).toHaveLength(before + 1);
        const { acceptEncoding, contentEncoding } = exchanges[before]!;
        // Chromium asks for gzip and br itself (and zstd in recent versions).
        expect(acceptEncoding).toMatch(/\bgzip\b/);
        expect(acceptEncoding).toMatch(/\bbr\b/);
        const expected = { "/gzip": "gzip", "/br": "br", "/default": "gzip", "/off": undefined }[path];
        expect(contentEncoding).toBe(expected);
      });
    }
  }
});
