/**
 * HttpAgent's own transport in Node (src/client/platform-send.ts): runs go over node:http unless
 * the agent was given a fetch or must let fetch follow redirects; what the server compresses
 * comes out whole in every coding; the caller's Accept-Encoding stands; a body-less answer, an
 * abort before and after the answer, and a connection cut mid-body end as they do through fetch.
 */
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import * as zlib from "node:zlib";
import { describe, expect, it, vi } from "vitest";
import { AguiWireError, HttpAgent } from "../../src/client/index.js";
import { encodeSSE, SSE_MEDIA_TYPE, type AguiEventInput, type RunAgentInput } from "../../src/index.js";
import { createNodeHandler, type ContentCoding } from "../../src/server/index.js";
import { platformSend } from "../../src/client/platform-send.js";
import { collect, listen, normalizedServed, recordingSampleAgent, trackServers, withBody } from "./helpers.js";

const track = trackServers();

/** undici's fetch sends this header on every request; node:http sends none of its own. */
const FETCH_MARK = "sec-fetch-mode";

const started: AguiEventInput = { type: "RUN_STARTED", threadId: "t", runId: "r" };
const finished: AguiEventInput = { type: "RUN_FINISHED", threadId: "t", runId: "r" };
const input: RunAgentInput = { threadId: "t", runId: "r", state: {}, messages: [], tools: [], context: [], forwardedProps: {} };

describe("which transport a run uses in Node", () => {
  it("node:http by default; fetch when one is given, or when redirects are fetch's to follow", async () => {
    const server = await track(listen(createNodeHandler(() => [started, finished])));
    const run = async (agent: HttpAgent) => (await collect(agent.events())).events.length;
    expect(await run(new HttpAgent({ url: server.url }))).toBe(2);
    expect(await run(new HttpAgent({ url: server.url, fetch: globalThis.fetch }))).toBe(2);
    expect(await run(new HttpAgent({ url: server.url, redirect: "follow" }))).toBe(2);
    expect(server.requests.map((r) => r.headers[FETCH_MARK] !== undefined)).toEqual([false, true, true]);
  });
});

describe("where the transport is used", () => {
  it("only in Node itself: a runtime that imitates Node (Workers, Bun, Deno) has none, so runs use fetch", async () => {
    const imitations: [string, () => void][] = [
      ["Workers", () => vi.stubGlobal("navigator", { userAgent: "Cloudflare-Workers" })],
      ["Bun", () => vi.stubGlobal("process", { ...process, versions: { ...process.versions, bun: "1.2.0" } })],
      ["Deno", () => vi.stubGlobal("process", { ...process, versions: { ...process.versions, deno: "2.1.0" } })],
    ];
    for (const [name, imitate] of imitations) {
      imitate();
      try {
        vi.resetModules();
        const fresh = await import("../../src/client/platform-send.js");
        expect(fresh.platformSend, name).toBeUndefined();
      } finally {
        vi.unstubAllGlobals();
      }
    }
    vi.resetModules();
    expect((await import("../../src/client/platform-send.js")).platformSend).toBeTypeOf("function");
  });
});

describe("compressed answers come out whole", () => {
  const codings: ContentCoding[] = typeof (zlib as { createZstdCompress?: unknown }).createZstdCompress === "function" ? ["gzip", "br", "zstd"] : ["gzip", "br"];
  for (const coding of codings) {
    for (const transport of ["binary", "sse"] as const) {
      it(`${coding}, ${transport}: asked for by default, every event of the sample run intact`, async () => {
        const { agent, sent } = recordingSampleAgent();
        const server = await track(listen(createNodeHandler(agent, { compression: { encodings: [coding] } })));
        const { events, error } = await collect(new HttpAgent({ url: server.url, transport }).events());
        expect(error).toBeUndefined();
        expect(events).toEqual(normalizedServed(sent[0]!));
        expect(server.requests[0]!.headers["accept-encoding"]).toContain(coding);
        // The answer was compressed, and the transport asks for the same by default.
        const response = await platformSend!(server.url, { method: "POST", headers: new Headers({ "content-type": "application/json" }), body: JSON.stringify(input) });
        expect(response.headers.get("content-encoding")).toBe(coding);
        await response.body!.cancel();
      });
    }
  }

  it("deflate (zlib-wrapped), which our server does not make, read as fetch reads it", async () => {
    const text = encodeSSE(started) + encodeSSE(finished);
    const server = await track(
      listen(withBody((_req, res) => {
        res.writeHead(200, { "content-type": SSE_MEDIA_TYPE, "content-encoding": "deflate" });
        res.end(zlib.deflateSync(text));
      })),
    );
    const { events, error } = await collect(new HttpAgent({ url: server.url }).events());
    expect(error).toBeUndefined();
    expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
  });

  it("the caller's own Accept-Encoding is sent as it is: identity asked, identity answered", async () => {
    const { agent, sent } = recordingSampleAgent();
    const server = await track(listen(createNodeHandler(agent)));
    const { events } = await collect(new HttpAgent({ url: server.url, headers: { "accept-encoding": "identity" } }).events());
    expect(server.requests[0]!.headers["accept-encoding"]).toBe("identity");
    expect(events).toEqual(normalizedServed(sent[0]!));
  });
});

describe("endings", () => {
  it("a 204 has no body, as through fetch", async () => {
    const server = await track(listen(withBody((_req, res) => res.writeHead(204).end())));
    const response = await platformSend!(server.url, { method: "POST", headers: new Headers(), body: "{}" });
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it("an abort before the answer rejects with the signal's reason, and the server sees the connection close", async () => {
    const server = await track(listen(() => {}));
    const controller = new AbortController();
    const reason = new Error("changed my mind");
    const sending = platformSend!(server.url, { method: "POST", headers: new Headers(), body: "{}", signal: controller.signal });
    await waitFor(() => server.requests.length === 1);
    controller.abort(reason);
    await expect(sending).rejects.toBe(reason);
    await server.closedEarly;
  });

  it("an abort after the answer fails the body's next read with the signal's reason, and frees the connection", async () => {
    const server = await track(
      listen(withBody((_req, res) => {
        res.writeHead(200, { "content-type": SSE_MEDIA_TYPE });
        res.write(encodeSSE(started));
      })),
    );
    const controller = new AbortController();
    const response = await platformSend!(server.url, { method: "POST", headers: new Headers(), body: "{}", signal: controller.signal });
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    // A plain Uint8Array, as fetch gives: a Buffer's slice would be a view where the client's is a copy.
    expect(Object.getPrototypeOf(first.value)).toBe(Uint8Array.prototype);
    const reason = new Error("left the page");
    controller.abort(reason);
    await expect(reader.read()).rejects.toBe(reason);
    await server.closedEarly;
  });

  it("an agent's run aborted mid-stream ends with `aborted`, and the server's agent sees the client go", async () => {
    let agentClosed!: () => void;
    const closed = new Promise<void>((resolve) => (agentClosed = resolve));
    const server = await track(
      listen(createNodeHandler(async function* (input: RunAgentInput, { signal }) {
        try {
          yield { ...started, threadId: input.threadId, runId: input.runId };
          await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        } finally {
          agentClosed();
        }
      })),
    );
    const controller = new AbortController();
    const agent = new HttpAgent({ url: server.url });
    const seen: string[] = [];
    let failure: unknown;
    try {
      for await (const event of agent.events({ signal: controller.signal })) {
        seen.push(event.type);
        controller.abort();
      }
    } catch (error) {
      failure = error;
    }
    expect(seen).toEqual(["RUN_STARTED"]);
    expect(failure).toBeInstanceOf(AguiWireError);
    expect((failure as AguiWireError).code).toBe("aborted");
    await closed;
  });

  it("a connection cut mid-body: the run ends with an error, not a hang or a crash", async () => {
    const sockets = new Set<Socket>();
    const raw = createHttpServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": SSE_MEDIA_TYPE });
        res.write(encodeSSE(started), () => setTimeout(() => req.socket.destroy(), 10));
      });
    });
    raw.on("connection", (socket: Socket) => sockets.add(socket));
    await new Promise<void>((resolve) => raw.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = raw.address() as AddressInfo;
      const { events, error } = await collect(new HttpAgent({ url: `http://127.0.0.1:${port}/agent`, resume: false }).events());
      expect(events.map((e) => e.type)).toEqual(["RUN_STARTED"]);
      expect(error).toBeInstanceOf(AguiWireError);
      expect(["network_error", "truncated_stream"]).toContain((error as AguiWireError).code);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => raw.close(resolve));
    }
  });
  it("a compressed body cut mid-stream: every event whose bytes arrived before the cut is delivered, then the error", async () => {
    const sockets = new Set<Socket>();
    const events = Array.from({ length: 200 }, (_, i): AguiEventInput => ({ type: "CUSTOM", name: "tick", value: i }));
    for (const coding of ["gzip", "br"] as const) {
      const raw = createHttpServer((req, res) => {
        req.resume();
        req.on("end", () => {
          // Two flushed blocks in one write, the connection cut in the same turn: the bytes and the
          // cut reach the client together, while its decompressor still holds the last block.
          const compressor = coding === "gzip" ? zlib.createGzip() : zlib.createBrotliCompress();
          const parts: Buffer[] = [];
          compressor.on("data", (chunk: Buffer) => parts.push(chunk));
          const flushKind = coding === "gzip" ? zlib.constants.Z_SYNC_FLUSH : zlib.constants.BROTLI_OPERATION_FLUSH;
          compressor.write(encodeSSE(started) + events.slice(0, 100).map((e) => encodeSSE(e)).join(""));
          compressor.flush(flushKind, () => {
            compressor.write(events.slice(100).map((e) => encodeSSE(e)).join(""));
            compressor.flush(flushKind, () => {
              res.writeHead(200, { "content-type": SSE_MEDIA_TYPE, "content-encoding": coding });
              res.write(Buffer.concat(parts), () => req.socket.destroy());
            });
          });
        });
      });
      raw.on("connection", (socket: Socket) => sockets.add(socket));
      await new Promise<void>((resolve) => raw.listen(0, "127.0.0.1", resolve));
      try {
        const { port } = raw.address() as AddressInfo;
        for (let round = 0; round < 5; round++) {
          const got = await collect(new HttpAgent({ url: `http://127.0.0.1:${port}/agent`, resume: false }).events());
          expect(got.events).toHaveLength(201);
          expect(["network_error", "truncated_stream"]).toContain((got.error as AguiWireError).code);
        }
      } finally {
        for (const socket of sockets) socket.destroy();
        await new Promise((resolve) => raw.close(resolve));
      }
    }
  });
});

describe("reading the body", () => {
  it("a read takes every chunk that arrived since the last one, joined, bytes exact", async () => {
    const parts = ["data: one\n\n", "data: two\n\n", "data: three\n\n"];
    let wrote!: () => void;
    const allWritten = new Promise<void>((resolve) => (wrote = resolve));
    const server = await track(
      listen(withBody(async (_req, res) => {
        res.writeHead(200, { "content-type": SSE_MEDIA_TYPE });
        // Each its own HTTP chunk, sent on its own.
        for (const part of parts) {
          await new Promise<void>((resolve) => res.write(part, () => resolve()));
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        wrote();
      })),
    );
    const response = await platformSend!(server.url, { method: "POST", headers: new Headers({ "accept-encoding": "identity" }), body: "{}" });
    await allWritten;
    await new Promise((resolve) => setTimeout(resolve, 20));
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe(parts.join(""));
    await reader.cancel();
  });

  it("a reader that reads nothing holds the server back (the response is paused) rather than taking all it sends, and then gets every byte", async () => {
    // Larger than what the kernel may hold for the socket on both ends (tcp_rmem's max is 32 MB on
    // these machines, tcp_wmem's 4 MB), so that what a paused reader leaves shows in the server.
    const size = 64 * 1024 * 1024;
    const payload = new Uint8Array(size);
    for (let i = 0; i < size; i++) payload[i] = i % 251;
    let held!: (writableLength: number) => void;
    const heldBack = new Promise<number>((resolve) => (held = resolve));
    const server = await track(
      listen(withBody((_req, res) => {
        res.writeHead(200, { "content-type": "application/octet-stream" });
        res.write(payload);
        res.end();
        setTimeout(() => held(res.writableLength), 200);
      })),
    );
    const response = await platformSend!(server.url, { method: "POST", headers: new Headers({ "accept-encoding": "identity" }), body: "{}" });
    // Nothing read for 200 ms: much of the body is still in the server's buffer.
    expect(await heldBack).toBeGreaterThan(size / 4);
    const reader = response.body!.getReader();
    const got = new Uint8Array(size);
    let at = 0;
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      got.set(r.value, at);
      at += r.value.byteLength;
    }
    expect(at).toBe(size);
    // (toEqual walks 64 million elements one by one.)
    expect(Buffer.from(got.buffer).equals(Buffer.from(payload.buffer))).toBe(true);
  });
});

/** Resolves once `done()` holds, checking every few milliseconds. */
async function waitFor(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
}
