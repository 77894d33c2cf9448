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
 * Makes the demo agent: it yields `conversationRun(input)`'s events with `delayMs` between them, and
 * stops as soon as its signal fires (the client went away).
 *
 * @param delayMs - Milliseconds before each event; default 40, enough to watch events arrive.
 * @throws Never.
 */
export function createDemoAgent(delayMs = 40): AgentFunction {
  return async function* demoAgent(input: RunAgentInput, { signal }: RunContext): AsyncGenerator<AguiEventInput> {
    for (const event of conversationRun(input)) {
      if (delayMs > 0) await pause(delayMs, signal);
      if (signal.aborted) return;
      yield event;
    }
  };
}
