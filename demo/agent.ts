/**
 * The demo's agent: the scripted turn of `conversation-run.ts`, paced like a model streaming tokens.
 */
import type { AgentFunction, AguiEventInput, RunAgentInput, RunContext } from "../src/index.js";
import { conversationRun } from "./conversation-run.js";

/** Resolves after `ms`, or at once when `signal` fires, so that a client leaving stops the wait. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * Awaited by the demo agent before each event of run `runId` (`index` from 0), after its pause:
 * what holds a run at an event, for a test that must act while the run is surely still going.
 */
export type BeforeEvent = (runId: string, index: number) => Promise<void> | void;

/**
 * Makes the demo agent: it yields `conversationRun(input)`'s events with `delayMs` between them, and
 * stops as soon as its signal fires (the client went away).
 *
 * @param delayMs - Milliseconds before each event; default 40, enough to watch events arrive.
 * @param beforeEvent - Awaited before each event; see {@link BeforeEvent}.
 * @throws Never.
 */
export function createDemoAgent(delayMs = 40, beforeEvent?: BeforeEvent): AgentFunction {
  return async function* demoAgent(input: RunAgentInput, { signal }: RunContext): AsyncGenerator<AguiEventInput> {
    let index = 0;
    for (const event of conversationRun(input)) {
      if (delayMs > 0) await pause(delayMs, signal);
      await beforeEvent?.(input.runId, index++);
      if (signal.aborted) return;
      yield event;
    }
  };
}
