/**
 * Serving both handlers over real HTTP on 127.0.0.1, and small helpers the server tests share.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  decodeEventStream,
  EventType,
  type AguiEvent,
  type AguiEventInput,
  type RunAgentInput,
} from "../../src/index.js";
import type { Agent, RunContext } from "../../src/agent/contract.js";
import { createAgentHandler, createNodeHandler, RESUME_TOKEN_HEADER, type AgentHandlerOptions } from "../../src/server/index.js";
import { drained } from "../../src/server/node.js";
import { PROTOCOL_VERSION } from "../../src/protocol/index.js";
import { sleep, until } from "../fixtures/until.js";

export { sleep };

/** A server listening on an ephemeral port of 127.0.0.1. */
export interface Served {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Serves a Node handler on 127.0.0.1 and an ephemeral port. */
export async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Served> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/agent`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * The request body as a WHATWG stream that, unlike `Readable.toWeb`, does not destroy the socket
 * when cancelled: the handler cancels an over-long body and still has a 413 to send on it.
 */
function bodyStream(req: IncomingMessage, state: { complete: boolean }): ReadableStream<Uint8Array> {
  let cancelled = false;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        // Once the handler cancels the stream (a 405, 413 or 415), the rest of the request, its
        // end included, may still arrive: a cancelled stream takes nothing more.
        req.on("data", (chunk: Buffer) => {
          if (cancelled) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        });
        req.on("end", () => {
          state.complete = true;
          if (!cancelled) controller.close();
        });
        req.on("error", (error) => {
          if (!cancelled) controller.error(error);
        });
        req.pause();
      },
      pull() {
        req.resume();
      },
      cancel() {
        cancelled = true;
        req.pause();
      },
    },
    { highWaterMark: 1 },
  );
}

/**
 * A minimal fetch-style runtime on node:http, as Hono's node-server or Deno would be: builds a
 * `Request` (its signal aborts when the client goes away), calls the handler, writes the
 * `Response` with back-pressure, and cancels its body when the client goes away.
 */
export function fetchBridge(handler: (request: Request) => Promise<Response>): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const gone = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) gone.abort();
    });
    const headers = new Headers();
    for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
    const state = { complete: false };
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const request = new Request(`http://${req.headers.host ?? "127.0.0.1"}${req.url ?? "/"}`, {
      method: req.method,
      headers,
      body: hasBody ? bodyStream(req, state) : null,
      signal: gone.signal,
      // @ts-expect-error Node's fetch needs `duplex` for a stream body; the DOM types lack it.
      duplex: "half",
    });
    void (async () => {
      const response = await handler(request);
      const outHeaders: Record<string, string> = {};
      response.headers.forEach((value, key) => (outHeaders[key] = value));
      // A runtime does not keep a connection whose request body it left unread.
      if (hasBody && !state.complete && response.status >= 400) outHeaders.connection = "close";
      res.writeHead(response.status, outHeaders);
      res.flushHeaders();
      if (!response.body) return void res.end();
      const reader = response.body.getReader();
      gone.signal.addEventListener("abort", () => void reader.cancel().catch(() => {}), { once: true });
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          // drained() removes both listeners when either fires: a 'close' listener left per
          // wait would pile up on a long response.
          if (!res.write(value)) await drained(res);
        }
        res.end();
      } catch {
        res.destroy();
      }
    })();
  };
}

/** The two handlers, served the same way, so that every test runs against both. */
export const HANDLERS = [
  {
    name: "createAgentHandler",
    serve: (agent: Agent, options?: AgentHandlerOptions<Request>) => listen(fetchBridge(createAgentHandler(agent, options))),
  },
  {
    name: "createNodeHandler",
    serve: (agent: Agent, options?: AgentHandlerOptions<IncomingMessage>) => listen(createNodeHandler(agent, options)),
  },
] as const;

export const BINARY = "application/vnd.ag-ui.event+proto";
export const SSE = "text/event-stream";

/** A valid run request body. */
export function runInput(overrides: Partial<RunAgentInput> = {}): RunAgentInput {
  return {
    threadId: "thread-1",
    runId: "run-1",
    state: {},
    messages: [{ id: "u1", role: "user", content: "hello" }],
    tools: [],
    context: [],
    forwardedProps: {},
    ...overrides,
  };
}

/**
 * An agent's event as our server sends it (AG-UI 1.1, `basic/versioning`: each party declares its
 * own protocol version): a RUN_STARTED that declares none gets the server's, `PROTOCOL_VERSION`,
 * after its type, threadId and runId; an agent's own declaration, and every other event, go as
 * the agent gave them.
 */
export function asServed<E extends AguiEventInput | AguiEvent>(event: E): E {
  if (event.type !== EventType.RUN_STARTED || event.protocolVersion !== undefined) return event;
  const { type, threadId, runId, ...rest } = event;
  return { type, threadId, runId, protocolVersion: PROTOCOL_VERSION, ...rest } as E;
}

/** A short, valid run. */
export function shortRun(input: Pick<RunAgentInput, "threadId" | "runId">): AguiEventInput[] {
  const { threadId, runId } = input;
  return [
    { type: EventType.RUN_STARTED, threadId, runId },
    { type: EventType.TEXT_MESSAGE_START, messageId: "m1", role: "assistant" },
    { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: "Hello" },
    { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m1", delta: ", world" },
    { type: EventType.TEXT_MESSAGE_END, messageId: "m1" },
    { type: EventType.STATE_DELTA, delta: [{ op: "add", path: "/n", value: null }] },
    { type: EventType.RUN_FINISHED, threadId, runId },
  ];
}

/** POSTs a run request with fetch. */
export function post(url: string, body: unknown, accept?: string, init: RequestInit = {}): Promise<Response> {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (accept !== undefined) headers.Accept = accept;
  return fetch(url, {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...init,
    headers: { ...headers, ...(init.headers as Record<string, string> | undefined) },
  });
}

/**
 * The resume token a resumable run's POST was answered with (its `AG-UI-Resume-Token` header), from
 * a fetch `Response` or a node:http answer's headers.
 *
 * @throws {Error} When the answer carries none (a refusal, or a handler without a store).
 */
export function resumeTokenOf(answer: { status: number; headers: Headers | IncomingMessage["headers"] }): string {
  const { headers } = answer;
  const token = headers instanceof Headers ? headers.get(RESUME_TOKEN_HEADER) : headers[RESUME_TOKEN_HEADER.toLowerCase()];
  if (typeof token !== "string" || token === "") throw new Error(`expected the answer (${answer.status}) to carry ${RESUME_TOKEN_HEADER}, found none`);
  return token;
}

/** POSTs a resumable run with fetch ({@link post}): its answer, and the resume token the answer carries. */
export async function postRun(url: string, body: unknown, accept?: string, init: RequestInit = {}): Promise<{ response: Response; token: string }> {
  const response = await post(url, body, accept, init);
  return { response, token: resumeTokenOf(response) };
}

/** Every event of a response, decoded in the transport its Content-Type names. */
export async function readEvents(response: Response): Promise<AguiEvent[]> {
  const events: AguiEvent[] = [];
  for await (const event of decodeEventStream(response.body!, response.headers.get("content-type"))) events.push(event);
  return events;
}

/** Result of a raw node:http request: what came back, and whether our upload was still open. */
export interface RawResult {
  status: number;
  headers: IncomingMessage["headers"];
  body: string;
}

/**
 * Sends a request with node:http, writing `chunks` one by one and never ending the upload unless
 * `end` is set, so that a test can see the server answer before the body is complete.
 */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string | number>; chunks?: Uint8Array[]; end?: boolean },
): Promise<RawResult> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = httpRequest(url, { method: options.method ?? "POST", headers: options.headers, agent: false }, (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on("data", (chunk: Buffer) => parts.push(chunk));
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts).toString("utf8") });
        req.destroy();
      });
      res.on("error", reject);
    });
    // The server may close while we are still sending; once it has answered, only that matters.
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    for (const chunk of options.chunks ?? []) req.write(chunk);
    if (options.end) req.end();
    else req.flushHeaders();
  });
}

/** Resolves once `condition()` holds, checking every few milliseconds; rejects after `timeoutMs`. */
export function waitFor(condition: () => boolean, timeoutMs = 3000, what = "condition"): Promise<void> {
  return until(condition, what, timeoutMs, 5);
}

/** What {@link tickingAgent} records of its run. */
export interface TickingState {
  aborted: boolean;
  finallyRan: boolean;
  errors: unknown[];
}

/**
 * An agent that starts a run and then yields a CUSTOM tick every 2 ms until it is stopped,
 * recording in `state` whether its signal fired and its `finally` ran; pass
 * `(error) => state.errors.push(error)` as `onError` to record what the handler reports.
 */
export function tickingAgent(state: TickingState) {
  return async function* (input: RunAgentInput, { signal }: RunContext): AsyncGenerator<AguiEventInput> {
    signal.addEventListener("abort", () => (state.aborted = true));
    try {
      yield { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId };
      for (let i = 0; ; i++) {
        await sleep(2);
        yield { type: EventType.CUSTOM, name: "tick", value: i };
      }
    } finally {
      state.finallyRan = true;
    }
  };
}

/**
 * Reads the whole body, parses it as JSON whatever its type, leaves it in `req.body` and calls
 * `handler`: what `express.json()` does (with `type: "*\/*"`, for any content type).
 */
export function parsingBody(handler: (req: IncomingMessage, res: ServerResponse) => void): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (c: Buffer) => parts.push(c));
    req.on("end", () => {
      (req as { body?: unknown }).body = JSON.parse(Buffer.concat(parts).toString("utf8"));
      handler(req, res);
    });
  };
}
