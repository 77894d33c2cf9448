/**
 * What the adapter's tests share: a real agui-wire server on 127.0.0.1 (the Node handler, with a
 * run store, compression on as by default) that records each request's headers and each answer's
 * status and headers, the agent it serves, and the two `@ag-ui/client` releases under test.
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerResponse } from "node:http";
import * as client10 from "@ag-ui/client";
import * as client0059 from "@ag-ui/client-0.0.59";
import { afterEach } from "vitest";
import { sampleRun } from "../../demo/sample-run.js";
import type { Agent, AguiEventInput, RunAgentInput } from "../../src/index.js";
import { createNodeHandler, memoryStore, type NodeHandlerOptions } from "../../src/server/index.js";
import { listen, type TestServer } from "../client/helpers.js";

/** The two `@ag-ui/client` releases a program may be written for: 1.0 (the peer's newest) and 0.0.59 (CopilotKit's). */
export const RELEASES = [
  { name: "1.0.0", lib: client10 },
  { name: "0.0.59", lib: client0059 },
] as const;
export type Release = (typeof RELEASES)[number];

/** What the server answered one request with. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
}

/** A served agent, what it was asked (method, url, headers) and what it answered. */
export interface AgentServer extends TestServer {
  answers: Answer[];
}

/** Header names lowercased, values as strings, from what `writeHead` was given. */
function headersOf(given: OutgoingHttpHeaders | readonly unknown[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (Array.isArray(given)) {
    for (let i = 0; i + 1 < given.length; i += 2) out[String(given[i]).toLowerCase()] = String(given[i + 1]);
  } else if (given) {
    for (const [name, value] of Object.entries(given)) if (value !== undefined) out[name.toLowerCase()] = String(value);
  }
  return out;
}

/** Servers closed after each test. */
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((o) => o.close()));
});

/** Closes `thing` after the test, and returns it. */
export function closing<T extends { close(): Promise<void> }>(thing: T): T {
  open.push(thing);
  return thing;
}

/**
 * Serves `agent` with agui-wire's Node handler on 127.0.0.1, with a fresh memory run store
 * (runs are resumable) unless `options` says otherwise; compression is on, as by default.
 */
export async function serveRecorded(agent: Agent, options: NodeHandlerOptions = { store: memoryStore() }): Promise<AgentServer> {
  const handler = createNodeHandler(agent, options);
  const answers: Answer[] = [];
  const server = await listen((req, res: ServerResponse) => {
    const writeHead = res.writeHead.bind(res) as (status: number, ...rest: unknown[]) => ServerResponse;
    // Recorded as sent: the handler gives its headers to writeHead, where getHeader does not see them.
    res.writeHead = ((status: number, ...rest: unknown[]) => {
      const given = rest.find((r) => typeof r === "object") as OutgoingHttpHeaders | undefined;
      answers.push({ status, headers: { ...headersOf(res.getHeaders()), ...headersOf(given) } });
      return writeHead(status, ...rest);
    }) as ServerResponse["writeHead"];
    handler(req, res);
  });
  return closing(Object.assign(server, { answers }));
}

/** The sample run of the demo: text, a tool call, state and messages, as a real agent streams them. */
export const sampleAgent: Agent = (input: RunAgentInput) => sampleRun(input);

/**
 * An agent that yields the first `pause` events of the sample run, then waits until `release()`
 * (then yields the rest) or until its run is cancelled (then `cancelled` resolves).
 */
export function gatedAgent(pause: number) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let cancelled!: () => void;
  const cancelledPromise = new Promise<void>((resolve) => (cancelled = resolve));
  const agent: Agent = async function* (input: RunAgentInput, { signal }) {
    const events: AguiEventInput[] = [...sampleRun(input)];
    for (let i = 0; i < pause; i++) yield events[i]!;
    const aborted = new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    await Promise.race([released, aborted]);
    if (signal.aborted) {
      cancelled();
      return;
    }
    for (let i = pause; i < events.length; i++) yield events[i]!;
  };
  return { agent, release, cancelled: cancelledPromise };
}

/** The `Accept` agui-wire's client sends by default: binary first, SSE accepted. */
export const BINARY_FIRST = "application/vnd.ag-ui.event+proto, text/event-stream;q=0.9";

/** The POSTs a server received, with their headers. */
export const posts = (server: AgentServer): IncomingHttpHeaders[] => server.requests.filter((r) => r.method === "POST").map((r) => r.headers);
