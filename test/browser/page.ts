/**
 * The test page's script, bundled by esbuild for the browser: it drives our HttpAgent for the
 * test, which calls `window.agui.run(...)` through Playwright.
 */
import { HttpAgent, type HttpStatusError, type RunAgentParameters, type Transport } from "../../src/client/index.js";
import type { AguiEvent } from "../../src/index.js";

/** What the test asks the page to do. */
export interface PageRun {
  url: string;
  transport?: Transport;
  params?: Omit<RunAgentParameters, "signal">;
  /** Consume with `for await` instead of `subscribe`. */
  iterate?: boolean;
  /** Call `abortRun()` once this many events have arrived. */
  abortAfter?: number;
}

/** What the page reports back: plain data, so that it crosses into the test. */
export interface PageOutcome {
  events: AguiEvent[];
  completed: boolean;
  error?: { name: string; code?: string; status?: number; body?: unknown; message: string };
  contentTypes: (string | null)[];
  isSecureContext: boolean;
}

async function run(options: PageRun): Promise<PageOutcome> {
  const contentTypes: (string | null)[] = [];
  const agent = new HttpAgent({
    url: options.url,
    transport: options.transport,
    fetch: async (url, init) => {
      const response = await fetch(url, init);
      contentTypes.push(response.headers.get("content-type"));
      return response;
    },
  });
  const events: AguiEvent[] = [];
  const onEvent = (event: AguiEvent) => {
    events.push(event);
    if (events.length === options.abortAfter) agent.abortRun();
  };
  const outcome = (completed: boolean, err?: unknown): PageOutcome => {
    const e = err as HttpStatusError | undefined;
    return {
      events,
      completed,
      error: e && { name: e.name, code: e.code, status: e.status, body: e.body, message: e.message },
      contentTypes,
      isSecureContext: globalThis.isSecureContext,
    };
  };
  const stream = agent.events(options.params);
  if (options.iterate) {
    try {
      for await (const event of stream) onEvent(event);
      return outcome(true);
    } catch (err) {
      return outcome(false, err);
    }
  }
  return new Promise((resolve) =>
    stream.subscribe({ next: onEvent, error: (err) => resolve(outcome(false, err)), complete: () => resolve(outcome(true)) }),
  );
}

(globalThis as unknown as { agui: { run: typeof run } }).agui = { run };
