/**
 * Response compression: Accept-Encoding negotiation, both handlers over real HTTP on loopback,
 * both transports, each batch flushed so that an event is decodable before the next is made, and
 * the clients (ours and @ag-ui/client's) reading compressed runs through fetch.
 */
import { HttpAgent as TheirHttpAgent, type RunAgentInput as TheirRunAgentInput } from "@ag-ui/client";
import { request as httpRequest, type IncomingMessage } from "node:http";
import * as zlib from "node:zlib";
import { createBrotliDecompress, createGunzip, type BrotliDecompress, type Gunzip } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { HttpAgent } from "../../src/client/index.js";
import { BINARY_MEDIA_TYPE, EventType, SSE_MEDIA_TYPE, type AguiEvent, type AguiEventInput, type RunAgentInput } from "../../src/index.js";
import { pushDecoderFor } from "../../src/stream/decode.js";
import { negotiateContentCoding, resolveCompression, type ContentCoding } from "../../src/server/content-coding.js";
import { createAgentHandler, memoryStore, RESUME_TOKEN_HEADER, RUN_ID_HEADER, type AgentHandlerOptions } from "../../src/server/index.js";
import { mixedTrace } from "../fixtures/corpus.js";
import { BINARY, HANDLERS, resumeTokenOf, runInput, SSE, type Served } from "./helpers.js";

describe("negotiateContentCoding", () => {
  const ALL: ContentCoding[] = ["gzip", "br", "zstd"];
  const cases: [string | null | undefined, readonly ContentCoding[], ContentCoding | undefined][] = [
    [undefined, ALL, undefined],
    [null, ALL, undefined],
    ["", ALL, undefined],
    ["  ", ALL, undefined],
    ["gzip", ALL, "gzip"],
    ["GZIP", ALL, "gzip"],
    ["x-gzip", ALL, "gzip"],
    ["br", ALL, "br"],
    ["gzip, deflate", ALL, "gzip"],
    ["gzip, deflate, br, zstd", ALL, "gzip"],
    ["gzip, deflate, br, zstd", ["br", "gzip"], "br"],
    ["gzip;q=0.5, br", ALL, "br"],
    ["gzip;q=0.5, br;q=0.8", ALL, "br"],
    ["br;q=1.0, gzip;q=1", ["gzip", "br"], "gzip"],
    ["deflate", ALL, undefined],
    ["identity", ALL, undefined],
    ["*", ALL, "gzip"],
    ["*", ["br"], "br"],
    ["*;q=0", ALL, undefined],
    ["gzip;q=0", ALL, undefined],
    ["gzip;q=0, *", ALL, "br"],
    ["gzip;q=0.3, identity;q=0.5", ALL, undefined],
    ["gzip, identity;q=0", ALL, "gzip"],
    ["gzip;q=2", ALL, undefined],
    ["gzip;q=abc, br", ALL, "br"],
    ["gzip;level=1", ALL, "gzip"],
    ["br", ["gzip"], undefined],
  ];
  for (const [header, offered, expected] of cases) {
    it(`${JSON.stringify(header)} with ${offered.join(",")} -> ${expected ?? "identity"}`, () => {
      expect(negotiateContentCoding(header, offered)).toBe(expected);
    });
  }
});

describe("resolveCompression", () => {
  it("is on with gzip first by default, off with false", () => {
    expect(resolveCompression(undefined)).toEqual({ encodings: ["gzip", "br", "zstd"], level: { gzip: 6, br: 5, zstd: 3 } });
    expect(resolveCompression(true)).toEqual(resolveCompression(undefined));
    expect(resolveCompression(false)).toBeUndefined();
    expect(resolveCompression({ encodings: ["br"], level: { br: 4 } })).toEqual({ encodings: ["br"], level: { gzip: 6, br: 4, zstd: 3 } });
  });

  it("says what is wrong with a bad option", () => {
    expect(() => resolveCompression("gzip" as never)).toThrow(new TypeError('compression must be a boolean or an object { encodings?, level? }, found "gzip"'));
    expect(() => resolveCompression({ level: 3 } as never)).toThrow(new TypeError("compression.level must be an object { gzip?, br?, zstd? }, found number 3"));
    expect(() => resolveCompression({ lvl: 1 } as never)).toThrow(new TypeError('compression has an unknown key "lvl": expected encodings or level'));
    expect(() => resolveCompression({ encodings: ["deflate"] } as never)).toThrow(new TypeError('compression.encodings[0] must be one of gzip, br, zstd, found "deflate"'));
    expect(() => resolveCompression({ encodings: [] })).toThrow(RangeError);
    expect(() => resolveCompression({ encodings: ["gzip", "gzip"] })).toThrow(new RangeError('compression.encodings lists "gzip" twice'));
    expect(() => resolveCompression({ level: { gzip: 10 } })).toThrow(new RangeError("compression.level.gzip must be an integer from 1 to 9, found number 10"));
    expect(() => resolveCompression({ level: { br: 2.5 } })).toThrow(new RangeError("compression.level.br must be an integer from 0 to 11, found number 2.5"));
    expect(() => resolveCompression({ level: { deflate: 1 } } as never)).toThrow(new TypeError('compression.level has an unknown key "deflate": expected gzip, br, zstd'));
  });

  it("is checked when a handler is made", () => {
    expect(() => createAgentHandler(() => [], { compression: { level: { gzip: 0 } } })).toThrow(RangeError);
  });
});

/** A response read with node:http, which leaves the body as it came (no decompression). */
interface Raw {
  status: number;
  headers: IncomingMessage["headers"];
  res: IncomingMessage;
}

function postRaw(url: string, headers: Record<string, string>, input: RunAgentInput = runInput()): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, agent: false }, (res) =>
      resolve({ status: res.statusCode ?? 0, headers: res.headers, res }),
    );
    req.on("error", reject);
    req.end(JSON.stringify(input));
  });
}

function decompressor(coding: string | undefined): Gunzip | BrotliDecompress | undefined {
  if (coding === "gzip") return createGunzip();
  if (coding === "br") return createBrotliDecompress();
  if (coding === undefined) return undefined;
  throw new Error(`unexpected Content-Encoding ${coding}`);
}

/** The whole body, decompressed as its Content-Encoding says. */
async function bodyOf(raw: Raw): Promise<Buffer> {
  const inflate = decompressor(raw.headers["content-encoding"]);
  const source = inflate ? raw.res.pipe(inflate) : raw.res;
  const parts: Buffer[] = [];
  for await (const chunk of source) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

/** Events decoded from a raw response as its bytes arrive, through a streaming decompressor. */
function liveEvents(raw: Raw, contentType: string): { events: AguiEvent[]; next(count: number): Promise<void>; done: Promise<void> } {
  const events: AguiEvent[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const decoder = pushDecoderFor(contentType);
  const received = (chunk: Uint8Array): void => {
    events.push(...decoder.push(chunk));
    for (const w of waiters.splice(0)) {
      if (events.length >= w.count) w.resolve();
      else waiters.push(w);
    }
  };
  const inflate = decompressor(raw.headers["content-encoding"]);
  const source = inflate ? raw.res.pipe(inflate) : raw.res;
  const done = (async () => {
    for await (const chunk of source) received(chunk as Uint8Array);
    decoder.end();
  })();
  return {
    events,
    done,
    next: (count) => (events.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve }))),
  };
}

const TRACE = mixedTrace(300);
const hasZstd = typeof (zlib as { createZstdCompress?: unknown }).createZstdCompress === "function";
const traceAgent = () => TRACE;

const servers: Served[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

for (const { name, serve } of HANDLERS) {
  const start = async (agent: Parameters<typeof serve>[0], options?: AgentHandlerOptions<never>): Promise<Served> => {
    const served = await serve(agent, options as never);
    servers.push(served);
    return served;
  };

  describe(`${name}: compressed event streams`, () => {
    for (const accept of [BINARY, SSE]) {
      const transport = accept === BINARY ? "binary" : "SSE";

      it(`sends ${transport} as gzip and br, the same bytes as identity once decompressed`, async () => {
        const served = await start(traceAgent);
        const identity = await postRaw(served.url, { accept });
        expect(identity.headers["content-encoding"]).toBeUndefined();
        expect(identity.headers.vary).toBe("Accept, Accept-Encoding");
        const plain = await bodyOf(identity);
        for (const coding of ["gzip", "br"]) {
          const raw = await postRaw(served.url, { accept, "accept-encoding": coding });
          expect(raw.status).toBe(200);
          expect(raw.headers["content-encoding"]).toBe(coding);
          expect(raw.headers.vary).toBe("Accept, Accept-Encoding");
          expect(raw.headers["content-type"]).toBe(accept);
          expect((await bodyOf(raw)).equals(plain)).toBe(true);
        }
      });

      it(`flushes each batch: every ${transport} event is decodable before the agent makes the next`, async () => {
        let acked = 0;
        let ack: (() => void) | undefined;
        const total = 40;
        // Each event waits for the client to have decoded the one before: a batch held back in
        // the compressor would stall the run, and the bound turns the stall into a failure.
        const served = await start(async function* (input: RunAgentInput) {
          yield { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId };
          yield { type: EventType.TEXT_MESSAGE_START, messageId: "m", role: "assistant" };
          for (let i = 0; i < total; i++) {
            if (acked < i + 2) {
              await new Promise<void>((resolve, reject) => {
                const timer = setTimeout(() => reject(new Error(`event ${i + 1} was never decoded by the client: its batch was not flushed`)), 5_000);
                ack = () => {
                  clearTimeout(timer);
                  resolve();
                };
              });
            }
            yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m", delta: ` token ${i}` };
          }
          yield { type: EventType.TEXT_MESSAGE_END, messageId: "m" };
          yield { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId };
        });
        const raw = await postRaw(served.url, { accept, "accept-encoding": "gzip" });
        expect(raw.headers["content-encoding"]).toBe("gzip");
        const live = liveEvents(raw, accept);
        for (let n = 2; n < total + 2; n++) {
          await live.next(n);
          acked = n;
          ack?.();
        }
        await live.done;
        expect(live.events.map((e) => e.type)).toEqual([
          "RUN_STARTED",
          "TEXT_MESSAGE_START",
          ...Array<string>(total).fill("TEXT_MESSAGE_CONTENT"),
          "TEXT_MESSAGE_END",
          "RUN_FINISHED",
        ]);
      });

      it(`sends ${transport} as identity when the client accepts no coding we offer, or compression is off`, async () => {
        const on = await start(traceAgent);
        for (const header of [undefined, "identity", "deflate", "gzip;q=0", "*;q=0"]) {
          const raw = await postRaw(on.url, header === undefined ? { accept } : { accept, "accept-encoding": header });
          expect(raw.headers["content-encoding"]).toBeUndefined();
          expect(raw.headers.vary).toBe("Accept, Accept-Encoding");
          expect((await bodyOf(raw)).length).toBeGreaterThan(0);
        }
        const off = await start(traceAgent, { compression: false });
        const raw = await postRaw(off.url, { accept, "accept-encoding": "gzip, br" });
        expect(raw.headers["content-encoding"]).toBeUndefined();
        expect(raw.headers.vary).toBe("Accept");
        await bodyOf(raw);
      });

      it(`uses the server's order among codings the client weighs alike, and its levels (${transport})`, async () => {
        const served = await start(traceAgent, { compression: { encodings: ["br", "gzip"], level: { br: 1, gzip: 1 } } });
        const both = await postRaw(served.url, { accept, "accept-encoding": "gzip, br" });
        expect(both.headers["content-encoding"]).toBe("br");
        const plain = await bodyOf(both);
        const preferred = await postRaw(served.url, { accept, "accept-encoding": "gzip, br;q=0.5" });
        expect(preferred.headers["content-encoding"]).toBe("gzip");
        expect((await bodyOf(preferred)).equals(plain)).toBe(true);
      });

      it(`offers zstd only where the runtime has it (${transport}; this Node ${hasZstd ? "has" : "has not"})`, async () => {
        const served = await start(traceAgent);
        const plain = await bodyOf(await postRaw(served.url, { accept }));
        const raw = await postRaw(served.url, { accept, "accept-encoding": "zstd" });
        if (!hasZstd) {
          expect(raw.headers["content-encoding"]).toBeUndefined();
          expect((await bodyOf(raw)).equals(plain)).toBe(true);
          return;
        }
        expect(raw.headers["content-encoding"]).toBe("zstd");
        const parts: Buffer[] = [];
        for await (const chunk of raw.res) parts.push(chunk as Buffer);
        const zstdDecompressSync = (zlib as unknown as { zstdDecompressSync(b: Buffer): Buffer }).zstdDecompressSync;
        expect(zstdDecompressSync(Buffer.concat(parts)).equals(plain)).toBe(true);
      });

      it(`keeps error answers uncompressed (${transport})`, async () => {
        const served = await start(traceAgent);
        const raw = await postRaw(served.url, { accept, "accept-encoding": "gzip" }, { ...runInput(), messages: "nope" } as never);
        expect(raw.status).toBe(422);
        expect(raw.headers["content-encoding"]).toBeUndefined();
        expect(JSON.parse((await bodyOf(raw)).toString("utf8"))).toEqual({ error: expect.stringContaining("messages") });
      });

      it(`stops the agent when a client of a compressed ${transport} stream goes away`, async () => {
        let aborted = false;
        let finallyRan = false;
        const served = await start(async function* (input: RunAgentInput, { signal }) {
          signal.addEventListener("abort", () => (aborted = true));
          try {
            yield { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId };
            for (let i = 0; ; i++) {
              await new Promise((resolve) => setTimeout(resolve, 2));
              yield { type: EventType.CUSTOM, name: "tick", value: i };
            }
          } finally {
            finallyRan = true;
          }
        });
        const raw = await postRaw(served.url, { accept, "accept-encoding": "gzip" });
        const live = liveEvents(raw, accept);
        live.done.catch(() => {});
        await live.next(5);
        raw.res.destroy();
        await expect.poll(() => aborted && finallyRan).toBe(true);
      });

      it(`compresses a resumable run's reattach (${transport})`, async () => {
        const store = memoryStore();
        const served = await start(traceAgent, { store });
        const input = runInput({ runId: `compressed-${transport}` });
        const first = await postRaw(served.url, { accept, "accept-encoding": "gzip" }, input);
        expect(first.headers["content-encoding"]).toBe("gzip");
        expect(first.headers[RUN_ID_HEADER.toLowerCase()]).toBe(input.runId);
        const token = resumeTokenOf(first);
        const whole = await bodyOf(first);
        const again = await new Promise<Raw>((resolve, reject) => {
          const req = httpRequest(`${served.url}?runId=${input.runId}`, { headers: { accept, "accept-encoding": "br", [RESUME_TOKEN_HEADER]: token }, agent: false }, (res) =>
            resolve({ status: res.statusCode ?? 0, headers: res.headers, res }),
          );
          req.on("error", reject);
          req.end();
        });
        expect(again.status).toBe(200);
        expect(again.headers["content-encoding"]).toBe("br");
        expect((await bodyOf(again)).equals(whole)).toBe(true);
        await store.close?.();
      });
    }
  });
}

describe("clients reading compressed runs through fetch", () => {
  const input = (runId: string) => ({ threadId: "t", runId, state: {}, messages: [], tools: [], context: [], forwardedProps: {} });

  for (const coding of ["gzip", "br"] as const) {
    for (const transport of ["binary", "sse"] as const) {
      it(`our HttpAgent gets every event of a ${coding} ${transport} run`, async () => {
        const { serve } = HANDLERS[1];
        const served = await serve(traceAgent, { compression: { encodings: [coding] } });
        servers.push(served);
        const seen: (string | null)[] = [];
        const agent = new HttpAgent({
          url: served.url,
          transport,
          // Node's fetch asks for gzip and deflate only; br is asked for explicitly.
          headers: { "accept-encoding": coding },
          fetch: async (url, init) => {
            const response = await fetch(url, init);
            seen.push(response.headers.get("content-encoding"));
            return response;
          },
        });
        const events: AguiEvent[] = [];
        for await (const event of agent.events({ runId: "r" })) events.push(event);
        expect(seen).toEqual([coding]);
        expect(events.map((e) => e.type)).toEqual(TRACE.map((e) => e.type));
      });
    }
  }

  for (const accept of [BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE]) {
    it(`@ag-ui/client's HttpAgent gets every event of a gzip run (${accept})`, async () => {
      const { serve } = HANDLERS[1];
      const served = await serve(traceAgent);
      servers.push(served);
      class Agent extends TheirHttpAgent {
        protected override requestInit(i: TheirRunAgentInput): RequestInit {
          const init = super.requestInit(i);
          return { ...init, headers: { ...(init.headers as Record<string, string>), Accept: accept } };
        }
      }
      const events = await new Promise<AguiEventInput[]>((resolve, reject) => {
        const got: AguiEventInput[] = [];
        new Agent({ url: served.url }).run(input("r") as TheirRunAgentInput).subscribe({
          next: (e) => void got.push(e as AguiEventInput),
          error: reject,
          complete: () => resolve(got),
        });
      });
      expect(events.map((e) => e.type)).toEqual(TRACE.map((e) => e.type));
    });
  }
});
