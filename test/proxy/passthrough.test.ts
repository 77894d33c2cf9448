// When client and upstream both speak binary, the proxy passes the upstream's frames on as they
// came once each is judged valid and in order, holding back the bytes of a frame cut by a chunk's
// end until it completes. Whatever the cuts, the client must get every event intact, the very
// bytes the upstream sent; and a frame with an event out of order must not pass: the events before
// it do, then the proxy's RUN_ERROR.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpAgent, type Transport } from "../../src/client/index.js";
import { encodeFrame } from "../../src/binary/encode.js";
import { concatBytes } from "../../src/util/bytes.js";
import { BINARY_MEDIA_TYPE, type AguiEvent, type AguiEventInput } from "../../src/index.js";
import { createNodeProxyHandler } from "../../src/proxy/index.js";
import { listen, normalized, sleep, withBody, type TestServer } from "../client/helpers.js";
import { prng } from "../fixtures/corpus.js";
import { run10Trace } from "../fixtures/trace-1.0.js";

const TOKEN = "t-passthrough";
const TRACE = run10Trace(300);
const FRAMES = concatBytes(TRACE.map((event) => encodeFrame(event)));

/** An upstream writing `bytes` in pieces cut at `cuts`, pausing between them so each is its own read. */
function piecewise(bytes: () => { bytes: Uint8Array; cuts: number[] }): Promise<TestServer> {
  return listen(
    withBody(async (_req, res) => {
      const { bytes: body, cuts } = bytes();
      res.writeHead(200, { "content-type": BINARY_MEDIA_TYPE });
      let at = 0;
      for (const cut of [...cuts, body.length]) {
        res.write(body.subarray(at, cut));
        at = cut;
        await sleep(2);
      }
      res.end();
    }),
  );
}

let seed = 1;
/** Cuts at random offsets, some of them on frame boundaries, some inside frames. */
function randomCuts(length: number): number[] {
  const random = prng(seed++);
  const cuts = new Set<number>();
  for (let i = 0; i < 12; i++) cuts.add(1 + Math.floor(random() * (length - 1)));
  return [...cuts].sort((a, b) => a - b);
}

/** Frame boundaries: where each event's frame starts. */
const boundaries = (events: readonly AguiEventInput[]): number[] => {
  const out: number[] = [];
  let at = 0;
  for (const event of events) {
    out.push(at);
    at += encodeFrame(event).length;
  }
  return out.slice(1);
};

let cut: TestServer;
let aligned: TestServer;
let outOfOrder: TestServer;
let outOfOrderCut: TestServer;
let proxy: TestServer;

beforeAll(async () => {
  cut = await piecewise(() => ({ bytes: FRAMES, cuts: randomCuts(FRAMES.length) }));
  aligned = await piecewise(() => ({ bytes: FRAMES, cuts: boundaries(TRACE).filter((_, i) => i % 7 === 0) }));
  const bad: AguiEventInput[] = [
    { type: "RUN_STARTED", threadId: "t", runId: "r" },
    { type: "TEXT_MESSAGE_START", messageId: "m" },
    { type: "TEXT_MESSAGE_CONTENT", messageId: "never-started", delta: "x" },
    { type: "TEXT_MESSAGE_END", messageId: "m" },
    { type: "RUN_FINISHED", threadId: "t", runId: "r" },
  ];
  // The first two events in a chunk of their own, the rest (the bad one first) in another.
  const badBytes = concatBytes(bad.map((e) => encodeFrame(e)));
  outOfOrder = await piecewise(() => ({ bytes: badBytes, cuts: [boundaries(bad)[1]!] }));
  // Cut inside frames: inside the second, inside the bad third, inside the fourth.
  const [b1, b2, b3] = boundaries(bad) as [number, number, number, number];
  outOfOrderCut = await piecewise(() => ({ bytes: badBytes, cuts: [b1 + 3, b2 + 2, b3 + 5] }));
  proxy = await listen(
    createNodeProxyHandler(
      {
        agents: { cut: { url: cut.url }, aligned: { url: aligned.url }, bad: { url: outOfOrder.url }, badCut: { url: outOfOrderCut.url } },
        auth: { tokens: [{ token: TOKEN, subject: "t" }] } },
      { onError: () => {} },
    ),
  );
});

afterAll(async () => {
  await Promise.all([cut, aligned, outOfOrder, outOfOrderCut, proxy].map((s) => s?.close()));
});

async function events(agent: string, transport: Transport): Promise<{ events: AguiEvent[]; error?: unknown }> {
  const out: AguiEvent[] = [];
  try {
    for await (const event of new HttpAgent({ url: `${proxy.origin}/agents/${agent}`, transport, headers: { authorization: `Bearer ${TOKEN}` } }).events()) out.push(event);
    return { events: out };
  } catch (error) {
    return { events: out, error };
  }
}

describe("binary chunks passed on as they came", () => {
  for (const transport of ["binary", "sse"] as const) {
    it(`gives a ${transport} client every event when the upstream's chunks are cut anywhere`, async () => {
      for (let round = 0; round < 5; round++) expect(await events("cut", transport)).toStrictEqual({ events: normalized(TRACE) });
    });

    it(`gives a ${transport} client every event when the upstream's chunks hold whole frames`, async () => {
      expect(await events("aligned", transport)).toStrictEqual({ events: normalized(TRACE) });
    });

    for (const agent of ["bad", "badCut"]) {
      it(`does not pass a frame with an event out of order (${transport}, ${agent === "bad" ? "chunks of whole frames" : "chunks cut inside frames"})`, async () => {
        const { events: got } = await events(agent, transport);
        expect(got.map((e) => e.type)).toEqual(["RUN_STARTED", "TEXT_MESSAGE_START", "RUN_ERROR"]);
        expect(got.at(-1)).toMatchObject({ code: "upstream_invalid_event" });
      });
    }
  }

  it("passes the upstream's bytes on unchanged when its chunks are cut anywhere", async () => {
    for (let round = 0; round < 5; round++) {
      const response = await fetch(`${proxy.origin}/agents/cut`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, accept: BINARY_MEDIA_TYPE, "content-type": "application/json", "accept-encoding": "identity" },
        body: JSON.stringify({ threadId: "t", runId: `r${round}`, state: {}, messages: [], tools: [], context: [], forwardedProps: {} }),
      });
      expect(response.headers.get("content-type")).toBe(BINARY_MEDIA_TYPE);
      expect(new Uint8Array(await response.arrayBuffer())).toStrictEqual(FRAMES);
    }
  });
});
