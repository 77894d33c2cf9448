// The relaying proxy, over real HTTP on loopback: when the client's transport is the upstream's,
// each event judged valid and in order goes on as the upstream sent it (a binary frame; an SSE
// event's single `data` line under the proxy's own framing), and is encoded again only when the
// judgement changed it. Differential: the same upstream stream through the relaying proxy and
// through one that encodes every event again (`relay: false`) must give the client the same events,
// and the same bytes where the upstream's text is canonical. Nothing the upstream writes besides a
// validated `data` line (`event:`, `id:`, `retry:`, comments, CR line ends) reaches the client, a
// malformed or out-of-order event is still refused, keep-alive comments still go through, and a
// resumable run through the proxy's store replays what was sent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeFrame } from "../../src/binary/encode.js";
import { concatBytes } from "../../src/util/bytes.js";
import { BINARY_MEDIA_TYPE, decodeEventStream, encodeSSE, SSE_MEDIA_TYPE, type AguiEvent, type AguiEventInput } from "../../src/index.js";
import { SSEParser } from "../../src/sse/parser.js";
import { SSEDecoder } from "../../src/sse/decoder.js";
import { createNodeProxyHandler } from "../../src/proxy/index.js";
import { RESUME_TOKEN_HEADER } from "../../src/server/index.js";
import { transcode } from "../../src/proxy/transcode.js";
import { openUpstream } from "../../src/proxy/upstream.js";
import { nodeSend } from "../../src/proxy/node-send.js";
import { runDeadline, UNFINISHED, type RunTally } from "../../src/proxy/tally.js";
import { listen, normalized, sleep, withBody, type TestServer } from "../client/helpers.js";
import { prng } from "../fixtures/corpus.js";
import { run10Trace } from "../fixtures/trace-1.0.js";

const TOKEN = "t-relay";
const AUTH = { authorization: `Bearer ${TOKEN}` };
const TRACE = run10Trace(300);
const utf8 = new TextEncoder();
const CANONICAL_SSE = TRACE.map((event) => encodeSSE(event)).join("");
const FRAMES = concatBytes(TRACE.map((event) => encodeFrame(event)));
/** The trace as our server's resumable runs write it: each event after its `id:` line, with keep-alive comments between. */
const NUMBERED_SSE = TRACE.map((event, i) => `${i % 50 === 49 ? ": keep-alive\n\n" : ""}id: ${i}\n${encodeSSE(event)}`).join("");
/** Canonical SSE with a byte that is no UTF-8 (0xFF) inside a delta: a decoder reads it as U+FFFD. */
function invalidUtf8(): Uint8Array {
  const at = CANONICAL_SSE.indexOf('"delta":"') + '"delta":"'.length;
  return concatBytes([utf8.encode(CANONICAL_SSE.slice(0, at)), new Uint8Array([0xff]), utf8.encode(CANONICAL_SSE.slice(at))]);
}
const INVALID_UTF8 = invalidUtf8();

/** An upstream answering `body()` in `contentType`, cut into pieces, each written after a pause. */
function piecewise(contentType: string, body: () => { bytes: Uint8Array; cuts: number[] }): Promise<TestServer> {
  return listen(
    withBody(async (_req, res) => {
      const { bytes, cuts } = body();
      res.writeHead(200, { "content-type": contentType });
      let at = 0;
      for (const cut of [...cuts, bytes.length]) {
        res.write(bytes.subarray(at, cut));
        at = cut;
        await sleep(1);
      }
      res.end();
    }),
  );
}

let seed = 7;
/** Cuts at random offsets: inside events, inside UTF-8 sequences, between a CR and its LF. */
function randomCuts(length: number, n = 16): number[] {
  const random = prng(seed++);
  const cuts = new Set<number>();
  for (let i = 0; i < n; i++) cuts.add(1 + Math.floor(random() * (length - 1)));
  return [...cuts].sort((a, b) => a - b);
}

const sse = (text: string): (() => { bytes: Uint8Array; cuts: number[] }) => {
  const bytes = utf8.encode(text);
  return () => ({ bytes, cuts: randomCuts(bytes.length) });
};

/**
 * The trace as an upstream that writes SSE every way the format allows might: `event:`, `id:` and
 * `retry:` lines, comments, CRLF and lone CR line ends, no space or two after `data:`, JSON spread
 * over several data lines, an unknown property (stripped), an event of an unknown type (dropped).
 * A lone CR is where an injection would hide: a parser that split only on LF would read the
 * `event:`/`id:` that follow as part of the data line.
 */
function messySSE(events: readonly AguiEventInput[]): string {
  let text = "";
  events.forEach((event, i) => {
    const json = JSON.stringify(event);
    switch (i % 9) {
      case 0:
        text += `event: message\nid: ${1000 + i}\nretry: 1\ndata: ${json}\n\n`;
        break;
      case 1:
        text += `data: ${json}\r\n\r\n`;
        break;
      case 2:
        text += `data: ${json}\revent: evil\rid: 666\rretry: 5\r\r`;
        break;
      case 3:
        text += `: a comment\ndata:${json}\n\n`;
        break;
      case 4:
        text += `data:  ${json}\n\n`;
        break;
      case 5:
        text += `${JSON.stringify(event, null, 1)
          .split("\n")
          .map((line) => `data: ${line}\n`)
          .join("")}\n`;
        break;
      case 6:
        text += `data: ${JSON.stringify({ ...event, fromTheFuture: { x: 1 } })}\n\n`;
        break;
      case 7:
        text += `data: ${JSON.stringify({ type: "FROM_THE_FUTURE", value: "\r\nid: 1\r\n" })}\n\ndata: ${json}\n\n`;
        break;
      default:
        text += `data: ${json}\n\n`;
    }
  });
  return text;
}

const BAD: Record<string, string> = {
  // Out of order: content for a message that never started.
  order: `data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"never-started","delta":"x"}\n\n`,
  // A known field with a value its schema rejects.
  invalid: `data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":5,"never":"sent"}\n\n`,
  // Not JSON at all.
  malformed: `data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","never-sent\n\n`,
};
const BEFORE_BAD = `data: {"type":"RUN_STARTED","threadId":"t","runId":"r"}\n\ndata: {"type":"TEXT_MESSAGE_START","messageId":"m","role":"assistant"}\n\n`;
const AFTER_BAD = `data: {"type":"TEXT_MESSAGE_END","messageId":"m"}\n\ndata: {"type":"RUN_FINISHED","threadId":"t","runId":"r"}\n\n`;

const servers: TestServer[] = [];
let relay: TestServer;
let encode: TestServer;
let relayStored: TestServer;
let encodeStored: TestServer;
let canonicalSSE: TestServer;

beforeAll(async () => {
  const up = async (contentType: string, body: () => { bytes: Uint8Array; cuts: number[] }): Promise<string> => {
    const server = await piecewise(contentType, body);
    servers.push(server);
    return server.url;
  };
  canonicalSSE = await piecewise(SSE_MEDIA_TYPE, sse(CANONICAL_SSE));
  servers.push(canonicalSSE);
  const agents: Record<string, { url: string }> = {
    canonical: { url: canonicalSSE.url },
    messy: { url: await up(SSE_MEDIA_TYPE, sse(messySSE(TRACE))) },
    numbered: { url: await up(SSE_MEDIA_TYPE, sse(NUMBERED_SSE)) },
    invalidUtf8: { url: await up(SSE_MEDIA_TYPE, () => ({ bytes: INVALID_UTF8, cuts: randomCuts(INVALID_UTF8.length) })) },
    frames: { url: await up(BINARY_MEDIA_TYPE, () => ({ bytes: FRAMES, cuts: randomCuts(FRAMES.length) })) },
  };
  for (const [name, bad] of Object.entries(BAD)) agents[name] = { url: await up(SSE_MEDIA_TYPE, sse(BEFORE_BAD + bad + AFTER_BAD)) };
  const config = { agents, auth: { tokens: [{ token: TOKEN, subject: "t" }] } };
  const quiet = { onError: () => {}, onWarning: () => {} };
  relay = await listen(createNodeProxyHandler(config, quiet));
  encode = await listen(createNodeProxyHandler(config, { ...quiet, relay: false }));
  relayStored = await listen(createNodeProxyHandler({ ...config, store: { type: "memory" } }, quiet));
  encodeStored = await listen(createNodeProxyHandler({ ...config, store: { type: "memory" } }, { ...quiet, relay: false }));
});

afterAll(async () => {
  await Promise.all([...servers, relay, encode, relayStored, encodeStored].map((s) => s?.close()));
});

let runs = 0;
/** One run's answer, read whole: its bytes, content type and resume token. */
async function post(proxy: TestServer, agent: string, accept: string): Promise<{ bytes: Uint8Array; contentType: string | null; runId: string; token: string | null }> {
  const runId = `r-${++runs}`;
  const response = await fetch(`${proxy.origin}/agents/${agent}`, {
    method: "POST",
    headers: { ...AUTH, accept, "content-type": "application/json", "accept-encoding": "identity" },
    body: JSON.stringify({ threadId: "t", runId, state: {}, messages: [], tools: [], context: [], forwardedProps: {} }),
  });
  expect(response.status).toBe(200);
  return { bytes: new Uint8Array(await response.arrayBuffer()), contentType: response.headers.get("content-type"), runId, token: response.headers.get(RESUME_TOKEN_HEADER) };
}

/** The events a client decodes from `bytes`, and the error that ended them, if any. */
async function decoded(bytes: Uint8Array, contentType: string | null): Promise<{ events: AguiEvent[]; error?: unknown }> {
  const events: AguiEvent[] = [];
  try {
    const body = (async function* () {
      yield bytes;
    })();
    for await (const event of decodeEventStream(body, contentType, { onWarning: () => {} })) events.push(event);
    return { events };
  } catch (error) {
    return { events, error };
  }
}

/** What an EventSource would see of SSE `text`: its messages, and its last `retry`. */
function parsed(text: string): { messages: { data: string; event: string; id: string }[]; retry: number | undefined } {
  const parser = new SSEParser();
  const messages = parser.push(text);
  parser.end();
  return { messages, retry: parser.retry };
}

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

/**
 * The chunks the proxy's transcoder hands a client of `clientType` for `upstream`'s run, relaying
 * (`relayed`) or re-encoding, with events held to `maxEventBytes`.
 */
async function transcodedChunks(upstream: TestServer, clientType: string, relayed: boolean, maxEventBytes = 1 << 20): Promise<Uint8Array[]> {
  const stop = new AbortController();
  const opening = await openUpstream({ url: upstream.url, body: utf8.encode("{}"), headers: {}, stop, firstByteTimeoutMs: 10_000, send: nodeSend() });
  if (!opening.ok) throw new Error(opening.message);
  const body = transcode({
    answer: opening.answer,
    contentType: clientType === SSE_MEDIA_TYPE ? SSE_MEDIA_TYPE : BINARY_MEDIA_TYPE,
    keepAliveMs: 0,
    idleTimeoutMs: Infinity,
    maxEventBytes,
    deadline: runDeadline(Infinity, stop),
    stop,
    tally: { outcome: UNFINISHED, events: 0, bytes: 0 },
    onFailure: () => {},
    onWarning: () => {},
    onEnd: () => {},
    relay: relayed,
  });
  const chunks: Uint8Array[] = [];
  for (let chunk = await body.pull(); chunk !== undefined; chunk = await body.pull()) chunks.push(chunk);
  return chunks;
}

describe("relaying what the upstream sent", () => {
  it("sends the very bytes a re-encoding proxy sends for canonical SSE, cut anywhere", async () => {
    for (let round = 0; round < 3; round++) {
      const relayed = await post(relay, "canonical", SSE_MEDIA_TYPE);
      const encoded = await post(encode, "canonical", SSE_MEDIA_TYPE);
      expect(relayed.contentType).toBe(SSE_MEDIA_TYPE);
      expect(text(relayed.bytes)).toBe(text(encoded.bytes));
      expect(await decoded(relayed.bytes, relayed.contentType)).toStrictEqual({ events: normalized(TRACE) });
    }
  });

  it("sends the very bytes a re-encoding proxy sends for canonical SSE with id: lines and keep-alive comments, cut anywhere", async () => {
    for (let round = 0; round < 3; round++) {
      const relayed = await post(relay, "numbered", SSE_MEDIA_TYPE);
      const encoded = await post(encode, "numbered", SSE_MEDIA_TYPE);
      expect(text(relayed.bytes)).toBe(text(encoded.bytes));
      expect(text(relayed.bytes)).toBe(CANONICAL_SSE);
    }
  });

  it("sends the very bytes a re-encoding proxy sends for SSE holding a byte that is no UTF-8 (U+FFFD, encoded)", async () => {
    for (let round = 0; round < 3; round++) {
      const relayed = await post(relay, "invalidUtf8", SSE_MEDIA_TYPE);
      const encoded = await post(encode, "invalidUtf8", SSE_MEDIA_TYPE);
      expect(relayed.bytes).toStrictEqual(encoded.bytes);
      expect(relayed.bytes.includes(0xff)).toBe(false);
      expect(text(relayed.bytes)).toContain("\uFFFD");
    }
  });

  it("sends the very bytes a re-encoding proxy sends for binary frames, cut anywhere", async () => {
    const relayed = await post(relay, "frames", BINARY_MEDIA_TYPE);
    const encoded = await post(encode, "frames", BINARY_MEDIA_TYPE);
    expect(relayed.bytes).toStrictEqual(encoded.bytes);
    expect(await decoded(relayed.bytes, relayed.contentType)).toStrictEqual({ events: normalized(TRACE) });
  });

  it("gives the client the events a re-encoding proxy gives for SSE written every way the format allows", async () => {
    for (let round = 0; round < 3; round++) {
      const relayed = await post(relay, "messy", SSE_MEDIA_TYPE);
      const encoded = await post(encode, "messy", SSE_MEDIA_TYPE);
      const events = await decoded(relayed.bytes, relayed.contentType);
      expect(events).toStrictEqual(await decoded(encoded.bytes, encoded.contentType));
      expect(events).toStrictEqual({ events: normalized(TRACE) });
    }
  });

  it("lets none of the upstream's own lines through: no event:, id:, retry:, comment or CR reaches the client", async () => {
    const relayed = text((await post(relay, "messy", SSE_MEDIA_TYPE)).bytes);
    expect(relayed).not.toContain("\r");
    // Every line is a data line or the blank line that ends an event.
    for (const line of relayed.split("\n")) expect(line === "" || line.startsWith("data: ")).toBe(true);
    const seen = parsed(relayed);
    expect(seen.retry).toBeUndefined();
    expect(seen.messages.every((m) => m.event === "" && m.id === "")).toBe(true);
    expect(seen.messages).toHaveLength(TRACE.length);
    // What the judgement changed (stripped, dropped) was encoded, not relayed.
    expect(relayed).not.toContain("fromTheFuture");
    expect(relayed).not.toContain("FROM_THE_FUTURE");
  });

  it("relays each event's data line as it came when the judgement kept the event whole", async () => {
    const relayed = text((await post(relay, "messy", SSE_MEDIA_TYPE)).bytes);
    // Case 4 of messySSE: two spaces after `data:`, the second kept in the value; JSON.stringify
    // would never write it, so the line is the upstream's own.
    const i = TRACE.findIndex((e, k) => k % 9 === 4 && e.type === "TEXT_MESSAGE_CONTENT");
    expect(relayed).toContain(`data:  ${JSON.stringify(TRACE[i])}\n\n`);
  });
});

describe("refusing in relay mode", () => {
  for (const name of Object.keys(BAD)) {
    it(`ends the run with RUN_ERROR upstream_invalid_event at a ${name} event, which is never sent`, async () => {
      for (const transport of [SSE_MEDIA_TYPE, BINARY_MEDIA_TYPE]) {
        const answer = await post(relay, name, transport);
        const { events, error } = await decoded(answer.bytes, answer.contentType);
        expect(error).toBeUndefined();
        expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "TEXT_MESSAGE_START", "RUN_ERROR"]);
        expect(events.at(-1)).toMatchObject({ code: "upstream_invalid_event" });
        if (transport === SSE_MEDIA_TYPE) {
          expect(text(answer.bytes)).not.toContain("never");
          expect(text(answer.bytes)).not.toContain("TEXT_MESSAGE_END");
        }
      }
    });
  }
});

describe("the size bound in relay mode", () => {
  it("refuses an event whose data line passes maxEventBytes in UTF-8 though not in UTF-16 units, as a re-encoding relay does", async () => {
    const big = { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "é".repeat(60) };
    const upstreamText = `${BEFORE_BAD}data: ${JSON.stringify(big)}\n\n${AFTER_BAD}`;
    const upstream = await piecewise(SSE_MEDIA_TYPE, sse(upstreamText));
    servers.push(upstream);
    const outputs: string[] = [];
    // Within the decoder's bound (UTF-16 units), past the relay's (UTF-8 bytes).
    for (const relayed of [true, false]) outputs.push((await transcodedChunks(upstream, SSE_MEDIA_TYPE, relayed, 150)).map(text).join(""));
    expect(outputs[0]).toBe(outputs[1]);
    const { events } = await decoded(utf8.encode(outputs[0]!), SSE_MEDIA_TYPE);
    expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "TEXT_MESSAGE_START", "RUN_ERROR"]);
    expect(outputs[0]).not.toContain("ééé");
  });
});

describe("keep-alive comments", () => {
  // With LF line ends the upstream's bytes are canonical (relayed as they came); with CRLF they are not.
  for (const lineEnd of ["\n", "\r\n"]) {
    it(`tells an SSE client of an SSE upstream's comments with a keep-alive of its own, never the upstream's text (${JSON.stringify(lineEnd)})`, async () => {
      const events: AguiEventInput[] = [
        { type: "RUN_STARTED", threadId: "t", runId: "r", protocolVersion: "1.1" },
        { type: "TEXT_MESSAGE_CHUNK", messageId: "m", delta: "hi" },
        { type: "RUN_FINISHED", threadId: "t", runId: "r" },
      ];
      const upstream = await listen(
        withBody(async (_req, res) => {
          res.writeHead(200, { "content-type": SSE_MEDIA_TYPE });
          res.write(encodeSSE(events[0]!));
          for (let i = 0; i < 3; i++) {
            await sleep(5);
            res.write(`: upstream is thinking${lineEnd}${lineEnd}`);
          }
          for (const event of events.slice(1)) res.write(encodeSSE(event));
          res.end();
        }),
      );
      servers.push(upstream);
      const stop = new AbortController();
      const opening = await openUpstream({ url: upstream.url, body: utf8.encode("{}"), headers: {}, stop, firstByteTimeoutMs: 10_000, send: nodeSend() });
      if (!opening.ok) throw new Error(opening.message);
      const tally: RunTally = { outcome: UNFINISHED, events: 0, bytes: 0 };
      const body = transcode({
        answer: opening.answer,
        contentType: SSE_MEDIA_TYPE,
        // Shorter than the upstream's pauses: each of its comments earns the client one keep-alive.
        keepAliveMs: 1,
        idleTimeoutMs: Infinity,
        maxEventBytes: 1 << 20,
        deadline: runDeadline(Infinity, stop),
        stop,
        tally,
        onFailure: () => {},
        onWarning: () => {},
        onEnd: () => {},
        relay: true,
      });
      let out = "";
      for (let chunk = await body.pull(); chunk !== undefined; chunk = await body.pull()) out += text(chunk);
      expect(out).toContain(": keep-alive\n\n");
      expect(out).not.toContain("thinking");
      expect(await decoded(utf8.encode(out), SSE_MEDIA_TYPE)).toStrictEqual({ events: normalized(events) });
    });
  }
});

describe("resumable runs through the proxy's store", () => {
  for (const [wire, accept] of [
    ["sse", SSE_MEDIA_TYPE],
    ["binary", BINARY_MEDIA_TYPE],
  ] as const) {
    it(`numbers the events with the proxy's ids and replays what it sent (${wire})`, async () => {
      const agent = wire === "sse" ? "messy" : "frames";
      const first = await post(relayStored, agent, accept);
      expect(first.token).not.toBeNull();
      const events = await decoded(first.bytes, first.contentType);
      expect(events).toStrictEqual({ events: normalized(TRACE) });
      // The same upstream through a store that encodes every event again: the same events.
      const other = await post(encodeStored, agent, accept);
      expect(await decoded(other.bytes, other.contentType)).toStrictEqual(events);
      if (wire === "sse") {
        // The proxy's numbering, not the upstream's (which sent ids 1000 + i and 666).
        expect(parsed(text(first.bytes)).messages.map((m) => m.id)).toEqual(TRACE.map((_, i) => String(i)));
      }
      // A reattach after event k gets the rest, as the first answer sent it.
      const after = 100;
      const again = await fetch(`${relayStored.origin}/agents/${agent}?runId=${first.runId}`, {
        headers: { ...AUTH, accept, "last-event-id": String(after), [RESUME_TOKEN_HEADER]: first.token!, "accept-encoding": "identity" },
      });
      expect(again.status).toBe(200);
      const replayed = new Uint8Array(await again.arrayBuffer());
      expect(await decoded(replayed, again.headers.get("content-type"))).toStrictEqual({ events: normalized(TRACE).slice(after + 1) });
      if (wire === "sse") {
        const sent = text(first.bytes);
        const tail = sent.slice(sent.indexOf(`id: ${after + 1}\n`));
        expect(text(replayed)).toBe(tail);
      } else {
        expect(replayed).toStrictEqual(first.bytes.subarray(first.bytes.length - replayed.length));
      }
    });
  }
});

describe("the client's first event", () => {
  /** The chunks the relay hands the client for an upstream that writes its whole run at once. */
  async function chunksOf(contentType: string, bytes: Uint8Array, clientType: string, relayed: boolean): Promise<Uint8Array[]> {
    const upstream = await piecewise(contentType, () => ({ bytes, cuts: [] }));
    servers.push(upstream);
    return transcodedChunks(upstream, clientType, relayed);
  }

  const cases: [string, string, Uint8Array][] = [
    ["binary", BINARY_MEDIA_TYPE, FRAMES],
    ["canonical SSE", SSE_MEDIA_TYPE, utf8.encode(CANONICAL_SSE)],
    ["SSE written every way", SSE_MEDIA_TYPE, utf8.encode(`: hello\n\nretry: 5\n\n${messySSE(TRACE)}`)],
  ];
  for (const [name, upstreamType, bytes] of cases) {
    for (const clientType of [BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE]) {
      it(`goes alone, ahead of the rest of the upstream's first chunk (${name} upstream, ${clientType === SSE_MEDIA_TYPE ? "SSE" : "binary"} client)`, async () => {
        const relayed = await chunksOf(upstreamType, bytes, clientType, true);
        const encoded = await chunksOf(upstreamType, bytes, clientType, false);
        for (const chunks of [relayed, encoded]) {
          expect(chunks.length).toBeGreaterThan(1);
          expect((await decoded(chunks[0]!, clientType)).events).toHaveLength(1);
        }
        const all = await decoded(concatBytes(relayed), clientType);
        expect(all.error).toBeUndefined();
        expect(all).toStrictEqual(await decoded(concatBytes(encoded), clientType));
        if (name !== "SSE written every way") expect(all.events).toStrictEqual(normalized(TRACE));
      });
    }
  }
});
