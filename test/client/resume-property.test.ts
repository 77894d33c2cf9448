/**
 * Resuming, as a property: a run of the 1.0 session (two runs in one stream, 400 events of 29
 * types), cut one to four times at random byte offsets by a TCP proxy — inside frames, SSE
 * events, chunk-size lines, between events, between the two runs — and read on by `HttpAgent`
 * from the real server with a memory store, is the uncut run: no event twice, none missing, the
 * same order, on both transports.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpAgent } from "../../src/client/index.js";
import { createNodeHandler, memoryStore } from "../../src/server/index.js";
import type { AguiEvent } from "../../src/index.js";
import { cuttingProxy } from "../fixtures/cutting-proxy.js";
import { run10Trace } from "../fixtures/trace-1.0.js";
import { listen, type TestServer } from "./helpers.js";

const TRANSPORTS = ["binary", "sse"] as const;
type Wire = (typeof TRANSPORTS)[number];

const TRACE = run10Trace(400);

let server: TestServer;
/** Per transport: the uncut run's events and its body's size in bytes. */
const uncut = {} as Record<Wire, { events: AguiEvent[]; bodyBytes: number }>;
let runs = 0;

/** Every event of one run through `url`; throws what ended it early. */
async function runThrough(url: string, transport: Wire): Promise<AguiEvent[]> {
  // No wait between reconnections: the test measures correctness, not pacing.
  const agent = new HttpAgent({ url, transport, threadId: "thread-p", resume: { backoffMs: 0 } });
  const events: AguiEvent[] = [];
  for await (const e of agent.events({ runId: `p-${++runs}` })) events.push(e);
  return events;
}

beforeAll(async () => {
  server = await listen(createNodeHandler(() => TRACE, { store: memoryStore() }));
  for (const transport of TRANSPORTS) {
    const proxy = await cuttingProxy(server.origin);
    try {
      const events = await runThrough(`${proxy.origin}/agent`, transport);
      uncut[transport] = { events, bodyBytes: proxy.log[0]!.counted };
    } finally {
      await proxy.close();
    }
  }
});

afterAll(() => server.close());

describe("a run cut at random byte offsets", () => {
  it("is read on to exactly the uncut run, on both transports", async () => {
    expect(uncut.binary.events).toHaveLength(TRACE.length);
    expect(uncut.sse.events).toEqual(uncut.binary.events);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...TRANSPORTS),
        // Fractions of the body: the first cut lands in the POST's body, the later ones in the
        // reattaches' (shorter) bodies, or past their end (no cut there).
        // (Unbiased: fast-check's usual bias toward small values would cut at 0 almost always.)
        // A cut right after the headers (0) now and then.
        fc.array(fc.oneof({ weight: 9, arbitrary: fc.noBias(fc.integer({ min: 1, max: 999_999 })).map((n) => n / 1_000_000) }, { weight: 1, arbitrary: fc.constant(0) }), {
          minLength: 1,
          maxLength: 4,
        }),
        async (transport, fractions) => {
          const { events: expected, bodyBytes } = uncut[transport];
          const cuts = fractions.map((f, i) => Math.floor(f * (i === 0 ? bodyBytes : bodyBytes / 3)));
          const proxy = await cuttingProxy(server.origin, { cuts });
          const before = server.requests.length;
          try {
            const events = await runThrough(`${proxy.origin}/agent`, transport);
            expect(events).toEqual(expected);
            // One request per connection (a cut one is not reused): the POST, then reattaching GETs.
            const requests = server.requests.slice(before);
            expect(requests.map((r) => r.method)).toEqual(["POST", ...Array<string>(proxy.connections - 1).fill("GET")]);
            // Each reattach asks after at least as many events as the one before (none lost, none asked twice for nothing).
            const after = requests.slice(1).map((r) => Number(r.headers["last-event-id"] ?? -1));
            for (let i = 1; i < after.length; i++) expect(after[i]).toBeGreaterThanOrEqual(after[i - 1]!);
          } finally {
            await proxy.close();
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
