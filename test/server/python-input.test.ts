/**
 * Request bodies as the Python SDK writes them, over real HTTP: `forwardedProps: null` (its
 * default) is taken as `{}`, so that an agent that echoes its input in RUN_STARTED (as 1.0 allows)
 * sends an event the server accepts.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { RunAgentInput } from "../../src/index.js";
import { BINARY, HANDLERS, post, readEvents, runInput, SSE, type Served } from "./helpers.js";

const open: Served[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

/** Echoes its input in RUN_STARTED, then finishes. */
async function* echoing(input: RunAgentInput) {
  yield { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId, input } as const;
  yield { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId } as const;
}

describe.each(HANDLERS)("$name, a body with forwardedProps: null", ({ serve }) => {
  it.each([BINARY, SSE])("gives the agent {} and runs an agent that echoes its input (%s)", async (accept) => {
    const seen: unknown[] = [];
    const server = await serve(async function* (input: RunAgentInput) {
      seen.push(input.forwardedProps);
      yield* echoing(input);
    });
    open.push(server);
    const events = await readEvents(await post(server.url, { ...runInput(), forwardedProps: null }, accept));
    expect(seen).toEqual([{}]);
    expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
    expect(events[0]).toMatchObject({ input: { forwardedProps: {} } });
  });
});
