/**
 * The agent's RUN_FINISHED (or its own RUN_ERROR) ends the run: over real HTTP, nothing follows it
 * on the wire, whatever the agent does next; what it does wrong goes to onError only.
 */
import { afterEach, describe, expect, it } from "vitest";
import { AguiWireError, EventType, type AguiEventInput, type RunAgentInput } from "../../src/index.js";
import type { RunContext } from "../../src/agent/contract.js";
import { BINARY, HANDLERS, SSE, post, readEvents, runInput, sleep, waitFor, type Served } from "./helpers.js";

interface Probe {
  aborted: boolean;
  finallyRan: boolean;
  /** The agent went on past the event that should have stopped it. */
  wentOn: boolean;
}

const FINISHED = (input: RunAgentInput): AguiEventInput => ({ type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId });

/** What the agent does after ending its run, and what the server must report. */
const CASES = [
  {
    name: "throws after RUN_FINISHED",
    end: "RUN_FINISHED",
    after: (): AguiEventInput => {
      throw new Error("the history could not be saved");
    },
    reported: (error: unknown) => error instanceof Error && error.message === "the history could not be saved",
  },
  {
    name: "yields another event after RUN_FINISHED",
    end: "RUN_FINISHED",
    after: (): AguiEventInput => ({ type: EventType.TEXT_MESSAGE_START, messageId: "late", role: "assistant" }),
    reported: (error: unknown) => error instanceof AguiWireError && error.code === "protocol_violation" && error.message.includes('"TEXT_MESSAGE_START" after its run ended with RUN_FINISHED'),
  },
  {
    name: "yields a RUN_FINISHED again after its RUN_FINISHED",
    end: "RUN_FINISHED",
    after: (): AguiEventInput => ({ type: EventType.RUN_FINISHED, threadId: "thread-1", runId: "run-1" }),
    reported: (error: unknown) => error instanceof AguiWireError && error.code === "protocol_violation",
  },
  {
    name: "yields a RUN_ERROR after its own RUN_ERROR",
    end: "RUN_ERROR",
    after: (): AguiEventInput => ({ type: EventType.RUN_ERROR, message: "again" }),
    reported: (error: unknown) => error instanceof AguiWireError && error.code === "protocol_violation",
  },
  {
    name: "yields an invalid event after RUN_FINISHED",
    end: "RUN_FINISHED",
    after: (): AguiEventInput => ({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m", delta: "" }),
    reported: (error: unknown) => error instanceof AguiWireError && error.code === "protocol_violation",
  },
  {
    name: "throws after its own RUN_ERROR",
    end: "RUN_ERROR",
    after: (): AguiEventInput => {
      throw new Error("cleanup failed");
    },
    reported: (error: unknown) => error instanceof Error && error.message === "cleanup failed",
  },
  {
    name: "yields another event after its own RUN_ERROR",
    end: "RUN_ERROR",
    after: (): AguiEventInput => ({ type: EventType.CUSTOM, name: "late", value: 1 }),
    reported: (error: unknown) => error instanceof AguiWireError && error.code === "protocol_violation" && error.message.includes("after its run ended with RUN_ERROR"),
  },
] as const;

describe.each(HANDLERS)("$name", ({ serve }) => {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  describe.each([SSE, BINARY])("over %s", (accept) => {
    it.each(CASES)("an agent that $name: nothing follows its run's end, onError gets the error", async ({ end, after, reported }) => {
      const probe: Probe = { aborted: false, finallyRan: false, wentOn: false };
      const errors: unknown[] = [];
      served = await serve(
        async function* (input: RunAgentInput, { signal }: RunContext): AsyncGenerator<AguiEventInput> {
          signal.addEventListener("abort", () => (probe.aborted = true));
          try {
            yield { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId };
            yield end === "RUN_FINISHED" ? FINISHED(input) : { type: EventType.RUN_ERROR, code: "quota", message: "out of quota" };
            // Work after the run's end, as an agent saving its history would do.
            await sleep(5);
            yield after();
            probe.wentOn = true;
            yield { type: EventType.CUSTOM, name: "later", value: 2 };
          } finally {
            probe.finallyRan = true;
          }
        },
        { onError: (error) => errors.push(error) },
      );
      const response = await post(served.url, runInput(), accept);
      expect(response.headers.get("content-type")).toBe(accept);
      // readEvents fails on a stream cut inside an event: the body ends cleanly.
      const events = await readEvents(response);
      expect(events.map((e) => e.type)).toEqual([EventType.RUN_STARTED, end]);
      if (end === "RUN_ERROR") expect(events[1]).toEqual({ type: EventType.RUN_ERROR, code: "quota", message: "out of quota" });
      await waitFor(() => probe.finallyRan, 3000, "the agent's finally");
      expect(probe.wentOn).toBe(false);
      expect(errors).toHaveLength(1);
      expect(reported(errors[0])).toBe(true);
      // An agent that yields past its run's end is stopped: its signal fires. One that throws is
      // over already; its signal fires too, so that work it started stops.
      expect(probe.aborted).toBe(true);
    });

    it("what AG-UI allows after a run's end is sent: a second run, and a RUN_ERROR after RUN_FINISHED", async () => {
      const errors: unknown[] = [];
      served = await serve(
        async function* (input: RunAgentInput): AsyncGenerator<AguiEventInput> {
          yield { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId };
          yield FINISHED(input);
          yield { type: EventType.RUN_ERROR, message: "the history could not be saved" };
          yield { type: EventType.RUN_STARTED, threadId: input.threadId, runId: "run-2" };
          yield { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: "run-2" };
        },
        { onError: (error) => errors.push(error) },
      );
      const events = await readEvents(await post(served.url, runInput(), accept));
      expect(events.map((e) => e.type)).toEqual([EventType.RUN_STARTED, EventType.RUN_FINISHED, EventType.RUN_ERROR, EventType.RUN_STARTED, EventType.RUN_FINISHED]);
      expect(errors).toEqual([]);
    });

    it("an agent that works after RUN_FINISHED and returns: the stream ends when it does, no error, no abort", async () => {
      const probe = { aborted: false, saved: false };
      const errors: unknown[] = [];
      served = await serve(
        async function* (input: RunAgentInput, { signal }: RunContext): AsyncGenerator<AguiEventInput> {
          signal.addEventListener("abort", () => (probe.aborted = true));
          yield { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId };
          yield FINISHED(input);
          await sleep(20);
          probe.saved = true;
        },
        { onError: (error) => errors.push(error) },
      );
      const events = await readEvents(await post(served.url, runInput(), accept));
      expect(events.map((e) => e.type)).toEqual([EventType.RUN_STARTED, EventType.RUN_FINISHED]);
      // The body ended only after the agent's work after RUN_FINISHED was done.
      expect(probe.saved).toBe(true);
      expect(probe.aborted).toBe(false);
      expect(errors).toEqual([]);
    });
  });
});
