/**
 * Real HTTP servers for the client tests: ours (the agui-wire server handler), one written with
 * `@ag-ui/encoder`, and raw ones that answer exactly the bytes a test needs.
 */
import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { EventEncoder as TheirEncoder } from "@ag-ui/encoder";
import { afterEach } from "vitest";
import { sampleRun } from "../../demo/sample-run.js";
import { parseEvent, type Agent, type AguiEvent, type AguiEventInput, type RunAgentInput } from "../../src/index.js";
import type { RunStream } from "../../src/client/index.js";
import { createNodeHandler } from "../../src/server/index.js";
import { asServed } from "../server/helpers.js";

/** A server listening on 127.0.0.1, and what it received. */
export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** The agent's URL: `<origin>/agent`. */
  url: string;
  /** Every request's method, URL and headers. */
  requests: { method: string; url: string; headers: IncomingMessage["headers"] }[];
  /** Resolves when a client closes a connection before its response ended. */
  closedEarly: Promise<void>;
  close(): Promise<void>;
}

/** Reads a request's body as text. */
export async function readBody(req: IncomingMessage): Promise<string> {
  let text = "";
  req.setEncoding("utf8");
  for await (const chunk of req) text += chunk;
  return text;
}

/** Serves `listener` on 127.0.0.1 on a free port. */
export async function listen(listener: RequestListener): Promise<TestServer> {
  const requests: TestServer["requests"] = [];
  let resolveClosed!: () => void;
  const closedEarly = new Promise<void>((resolve) => (resolveClosed = resolve));
  const server = createServer((req, res) => {
    res.on("close", () => {
      if (!res.writableFinished) resolveClosed();
    });
    requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
    listener(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    url: `${origin}/agent`,
    requests,
    closedEarly,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A listener that reads the request body first, then hands it to `handler`. */
export function withBody(handler: (req: IncomingMessage, res: ServerResponse, body: string) => void): RequestListener {
  return (req, res) => void readBody(req).then((body) => handler(req, res, body));
}

/** Serves `agent` with our server's Node handler (`agui-wire/server`). */
export function serveAgent(agent: Agent): Promise<TestServer> {
  return listen(createNodeHandler(agent));
}

/**
 * The sample run of the demo, as an agent that also records what it yielded (timestamps
 * included), so that a test can compare what the client got with what was sent.
 */
export function recordingSampleAgent(): { agent: Agent; sent: AguiEventInput[][]; inputs: RunAgentInput[] } {
  const sent: AguiEventInput[][] = [];
  const inputs: RunAgentInput[] = [];
  const agent: Agent = function* (input: RunAgentInput) {
    const run: AguiEventInput[] = [];
    sent.push(run);
    inputs.push(input);
    for (const event of sampleRun(input)) {
      run.push(event);
      yield event;
    }
  };
  return { agent, sent, inputs };
}

/** The events as a decoder returns them: validated, defaults filled in. */
export function normalized(events: readonly AguiEventInput[]): AguiEvent[] {
  return events.map((event) => parseEvent(event));
}

/**
 * An agent's events as a decoder returns them from our server: {@link normalized}, the RUN_STARTED
 * declaring the server's protocol version when the agent declared none (see `asServed`).
 */
export function normalizedServed(events: readonly AguiEventInput[]): AguiEvent[] {
  return events.map((event) => parseEvent(asServed(event)));
}

/** Serves `events(input)` with `@ag-ui/encoder` 1.0, the way its README shows, in either transport. */
export async function serveWithTheirEncoder(events: (input: RunAgentInput) => Iterable<AguiEventInput>): Promise<TestServer> {
  return listen(withBody((req, res, body) => {
    const encoder = new TheirEncoder({ accept: req.headers.accept });
    res.writeHead(200, { "content-type": encoder.getContentType(), "cache-control": "no-cache" });
    for (const event of events(JSON.parse(body) as RunAgentInput)) {
      res.write(encoder.encodeBinary(event as Parameters<TheirEncoder["encodeBinary"]>[0]));
    }
    res.end();
  }));
}

/**
 * Answers every request with `status`, `contentType` and `chunks`, then ends (or not, or cuts the
 * connection). `gapMs` waits between chunks so that each reaches the client as its own read.
 */
export function answer(
  status: number,
  contentType: string | undefined,
  chunks: readonly (string | Uint8Array)[],
  options: { end?: boolean; destroy?: boolean; gapMs?: number } = {},
): RequestListener {
  return async (_req, res) => {
    res.writeHead(status, contentType ? { "content-type": contentType } : {});
    for (const [i, chunk] of chunks.entries()) {
      if (i > 0 && options.gapMs) await sleep(options.gapMs);
      res.write(chunk);
    }
    if (options.destroy) setTimeout(() => res.destroy(), 20);
    else if (options.end !== false) res.end();
  };
}

/** A URL on which nothing listens: a port that was free a moment ago. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/agent`;
}

/** How a subscription ended. */
export interface Outcome {
  events: AguiEvent[];
  error?: unknown;
  completed: boolean;
}

/** Subscribes to `stream` and resolves when it completes or errors. */
export function collect(stream: RunStream): Promise<Outcome> {
  return new Promise((resolve) => {
    const events: AguiEvent[] = [];
    stream.subscribe({
      next: (event) => events.push(event),
      error: (error) => resolve({ events, error, completed: false }),
      complete: () => resolve({ events, completed: true }),
    });
  });
}

/** Iterates `stream` with `for await` and resolves with what it got and how it ended. */
export async function iterate(stream: AsyncIterable<AguiEvent>): Promise<Outcome> {
  const events: AguiEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
    return { events, completed: true };
  } catch (error) {
    return { events, error, completed: false };
  }
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Closes, after each test of the calling file, every server passed to the returned `track`.
 * Call it once at the top level of a test file.
 */
export function trackServers(): (server: Promise<TestServer>) => Promise<TestServer> {
  const servers: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  return async (server) => {
    const s = await server;
    servers.push(s);
    return s;
  };
}

/** A fetch that records each response's content type in `into`. */
export function recordingFetch(into: (string | null)[]): typeof fetch {
  return async (url, init) => {
    const response = await fetch(url, init);
    into.push(response.headers.get("content-type"));
    return response;
  };
}

/** A deep copy (structuredClone), `undefined` kept. */
export const clone = <T>(v: T): T => (v === undefined ? v : structuredClone(v));

/**
 * A warning of `@ag-ui/client`'s reducer (or ours) with the error text of a failed JSON Patch left
 * out: that text is each patch library's own (ours names the operation and why, RFC 6902's way).
 */
export const patchErrorless = (w: string): string =>
  w.replace(/(Failed to apply state patch:[\s\S]*\nError: )[\s\S]*$/, "$1…").replace(/(Failed to apply activity patch for '[^']*': )[\s\S]*$/, "$1…");
