// readNodeBody, the Node handlers' body reader: a body that arrived with its headers is taken from
// the request's buffer at once; one still on its way, or sent chunked, is read as it comes. Every
// way gives the same bytes, and the connection stays usable for the next request.
import { createServer, request as httpRequest, Agent as HttpAgent, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readNodeBody } from "../../src/server/node.js";
import type { BodyRead } from "../../src/server/body.js";

const LIMIT = 1024;
let port: number;
let close: () => Promise<void>;
/** What the server read of each request, in order, and whether it was in the buffer already. */
const reads: { read: BodyRead; buffered: boolean }[] = [];

beforeAll(async () => {
  const server = createServer(async (req: IncomingMessage, res) => {
    // As the handlers do: the body is read after an await or two, by which time it has usually arrived.
    await Promise.resolve();
    const buffered = req.readableLength > 0;
    const read = await readNodeBody(req, LIMIT);
    reads.push({ read, buffered });
    res.end(read.kind === "bytes" ? Buffer.from(read.bytes) : read.kind);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  close = () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())));
});
afterAll(() => close());

/** POSTs `parts` (written one by one, a pause between, chunked when `chunked`) on `agent`; resolves with the answer. */
function post(agent: HttpAgent, parts: string[], chunked = false): Promise<string> {
  return new Promise((resolve, reject) => {
    const length = parts.reduce((n, p) => n + Buffer.byteLength(p), 0);
    const req = httpRequest({ host: "127.0.0.1", port, method: "POST", path: "/", agent, headers: chunked ? {} : { "content-length": String(length) } }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (c: string) => (text += c)).on("end", () => resolve(text)).on("error", reject);
    });
    req.on("error", reject);
    const write = (i: number): void => {
      if (i >= parts.length - 1) return void req.end(parts[i]);
      req.write(parts[i]);
      setTimeout(() => write(i + 1), 20);
    };
    write(0);
  });
}

describe("readNodeBody", () => {
  it("reads a body that came with its headers, one on its way and a chunked one alike, on one kept-alive connection", async () => {
    const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await post(agent, ['{"a":1}'])).toBe('{"a":1}');
      expect(await post(agent, ['{"b":', "2}"])).toBe('{"b":2}');
      expect(await post(agent, ['{"c":', "3}"], true)).toBe('{"c":3}');
      expect(await post(agent, ["é".repeat(10)])).toBe("é".repeat(10));
      expect(await post(agent, [])).toBe("");
      expect(await post(agent, ["x".repeat(LIMIT + 1)])).toBe("too_large");
    } finally {
      agent.destroy();
    }
    expect(reads[0]!.buffered).toBe(true);
    expect(reads[1]!.buffered).toBe(true);
  });
});
