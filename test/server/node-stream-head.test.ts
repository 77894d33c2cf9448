// writeStream's head: by default it goes at once, in a packet of its own; a result that expects its
// first chunk at once (`headWithFirstChunk`, the proxy's) sends it with that chunk, and on its own
// on the event loop's next turn when no chunk came by then, so that a client still learns early
// that the run started.
import { createServer, type ServerResponse } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeStream } from "../../src/server/node-stream.js";
import type { StreamResult } from "../../src/server/responses.js";

const utf8 = new TextEncoder();
let port: number;
let close: () => Promise<void>;
/** The answer the next request gets. */
let answer: (res: ServerResponse) => void;

beforeAll(async () => {
  const server = createServer((_req, res) => answer(res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  close = () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())));
});
afterAll(() => close());

/** A stream of `chunks`, the first after `firstAfterMs` (0: at once), the rest at once. */
function result(chunks: string[], firstAfterMs: number, headWithFirstChunk: boolean): StreamResult {
  let i = 0;
  return {
    kind: "stream",
    status: 200,
    headers: { "Content-Type": "text/event-stream" },
    headWithFirstChunk,
    body: {
      async pull() {
        if (i === 0 && firstAfterMs > 0) await new Promise((resolve) => setTimeout(resolve, firstAfterMs));
        return i < chunks.length ? utf8.encode(chunks[i++]!) : undefined;
      },
      abort() {},
    },
    abort() {},
  };
}

/** A raw GET: the text of the first read of the answer, and ms from sending to it; then the whole answer. */
function get(): Promise<{ first: string; firstMs: number; all: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let first: string | undefined;
    let firstMs = NaN;
    let all = "";
    const t0 = performance.now();
    socket.setEncoding("utf8");
    socket.on("data", (text: string) => {
      if (first === undefined) {
        first = text;
        firstMs = performance.now() - t0;
      }
      all += text;
      if (all.endsWith("0\r\n\r\n")) {
        socket.end();
        resolve({ first, firstMs, all });
      }
    });
    socket.on("error", reject);
    socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  });
}

describe("writeStream's head", () => {
  it("goes with the first chunk when the result expects it at once", async () => {
    answer = (res) => writeStream(result(["data: 1\n\n", "data: 2\n\n"], 0, true), res);
    const { first, all } = await get();
    expect(first).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(first).toContain("data: 1\n\n");
    expect(all).toContain("data: 2\n\n");
  });

  it("still goes on its own, early, when that chunk is late", async () => {
    answer = (res) => writeStream(result(["data: 1\n\n"], 300, true), res);
    const { first, firstMs, all } = await get();
    expect(first).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(first).not.toContain("data: 1");
    expect(firstMs).toBeLessThan(250);
    expect(all).toContain("data: 1\n\n");
  });

  it("goes at once otherwise", async () => {
    answer = (res) => writeStream(result(["data: 1\n\n"], 300, false), res);
    const { first, firstMs } = await get();
    expect(first).not.toContain("data: 1");
    expect(firstMs).toBeLessThan(250);
  });
});
