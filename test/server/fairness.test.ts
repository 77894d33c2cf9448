/**
 * A fast agent does not freeze the server: when every event is ready at once and the client keeps
 * up, the handler still lets the event loop serve other requests between chunks.
 *
 * The client reading the run lives in its own process (test/server/fixtures/fast-reader.mjs), so
 * that it keeps up whatever this process's event loop is doing; it sends the second request as
 * soon as the run's first bytes are in, and reports how many of the run's events it had when the
 * answer came. A server that held its event loop for the whole run would answer only after the
 * last event (as this server did before it yielded between chunks).
 */
import { afterEach, describe, expect, it } from "vitest";
import { EventType, type AguiEventInput } from "../../src/index.js";
import { readInAnotherProcess } from "./fixtures/read-in-another-process.js";
import { BINARY, HANDLERS, SSE, type Served } from "./helpers.js";

const EVENTS = 100_000;
/**
 * About 60 MB a run, more than loopback's socket buffers can hold (at most 4 MiB sent, 32 MiB
 * received, here): the run cannot end before the reader has read most of it, so the second
 * request, sent at its first bytes, always reaches the server well before the run's end.
 */
const VALUE = "x".repeat(600);

/** Every event ready at once: no await between them. */
function* syncAgent(): Generator<AguiEventInput> {
  yield { type: EventType.RUN_STARTED, threadId: "t", runId: "r" };
  for (let i = 0; i < EVENTS; i++) yield { type: EventType.CUSTOM, name: "n", value: VALUE };
  yield { type: EventType.RUN_FINISHED, threadId: "t", runId: "r" };
}

async function* asyncAgent(): AsyncGenerator<AguiEventInput> {
  yield* syncAgent();
}

describe.each(HANDLERS)("$name", ({ serve }) => {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  it.each([
    { accept: SSE, kind: "a sync generator", agent: syncAgent },
    { accept: BINARY, kind: "an async generator without awaits", agent: asyncAgent },
  ])("answers another request while $kind streams $accept to a client that keeps up", async ({ accept, agent }) => {
    const errors: unknown[] = [];
    served = await serve(agent, { onError: (error) => errors.push(error) });
    const report = await readInAnotherProcess(served.url, accept);
    // The whole run arrived...
    expect(report.events).toBe(EVENTS + 2);
    // ...and the other request was answered while it was still streaming.
    expect(report.secondStatus).toBe(405);
    expect(report.secondAt).toBeGreaterThan(0);
    expect(report.secondAt).toBeLessThan(EVENTS + 2);
    expect(errors).toEqual([]);
  });
});
