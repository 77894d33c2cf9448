/**
 * One run of the streams suite's agent, read over node:http with our push decoder (every event
 * decoded and validated), reporting when it started and each delta's delay as it is decoded.
 * node:http rather than fetch: thousands of open responses per process cost less without the
 * WHATWG stream each fetch response carries, and the decoder is the same.
 */
import { request, type Agent as HttpAgent } from "node:http";
import { BINARY_MEDIA_TYPE, EventType, SSE_MEDIA_TYPE } from "../../../src/index.js";
import { pushDecoderFor } from "../../../src/stream/index.js";

export type Transport = "binary" | "sse";

/** What the agent reads from a run's `forwardedProps`. */
export interface RunShape {
  /** TEXT_MESSAGE_CONTENT events, each carrying its send time. */
  deltas: number;
  /** ms between two deltas. */
  intervalMs: number;
}

export interface RunOptions extends RunShape {
  /** The run endpoint, `http://127.0.0.1:<port>/run`. */
  url: string;
  transport: Transport;
  /** node:http agent the request goes through (keep-alive, unbounded sockets). */
  agent: HttpAgent;
  runId: string;
  /** Ends the run with an error (the request is destroyed). */
  signal: AbortSignal;
  /** RUN_STARTED was decoded, at `now` (wall-clock ms, see {@link wallNow}). */
  onStarted(now: number): void;
  /** A delta made at `sentAt`, due at `dueAt` by the agent's schedule, was decoded at `now` (all wall-clock ms). */
  onDelta(sentAt: number, dueAt: number, now: number): void;
}

/**
 * Wall-clock ms with sub-ms resolution, comparable between processes of one machine (each
 * process's `timeOrigin` is taken from the same system clock). Never throws.
 */
export const wallNow = (): number => performance.timeOrigin + performance.now();

/**
 * Runs the agent once and reads the whole run.
 *
 * @throws {Error} (rejects) When the server does not answer 200 with the transport's media type,
 *   the connection fails or closes early, an event does not decode or validate, or the run does
 *   not hold exactly `deltas` deltas between RUN_STARTED and RUN_FINISHED; the message says which.
 */
export function openRun(options: RunOptions): Promise<void> {
  const accept = options.transport === "binary" ? BINARY_MEDIA_TYPE : SSE_MEDIA_TYPE;
  const body = JSON.stringify({ threadId: "thread-streams", runId: options.runId, messages: [], forwardedProps: { deltas: options.deltas, intervalMs: options.intervalMs } });
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    const fail = (error: Error): void => {
      if (settled) return;
      settled = true;
      req.destroy();
      reject(error);
    };
    const req = request(
      options.url,
      {
        method: "POST",
        agent: options.agent,
        signal: options.signal,
        headers: { "content-type": "application/json", accept, "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        const type = res.headers["content-type"] ?? "";
        if (res.statusCode !== 200 || !type.startsWith(accept)) {
          res.resume();
          fail(new Error(`expected 200 with ${accept}, found ${res.statusCode} with ${JSON.stringify(type)}`));
          return;
        }
        const decoder = pushDecoderFor(type);
        let deltas = 0;
        let started = false;
        let finished = false;
        const take = (events: ReturnType<typeof decoder.push>): void => {
          for (const event of events) {
            const now = wallNow();
            if (event.type === EventType.TEXT_MESSAGE_CONTENT) {
              deltas++;
              const space = event.delta.indexOf(" ");
              options.onDelta(Number(event.delta.slice(0, space)), Number(event.delta.slice(space + 1)), now);
            } else if (event.type === EventType.RUN_STARTED) {
              started = true;
              options.onStarted(now);
            } else if (event.type === EventType.RUN_FINISHED) finished = true;
            else if (event.type === EventType.RUN_ERROR) throw new Error(`expected the run to finish, found RUN_ERROR ${JSON.stringify(event.message)}`);
          }
        };
        res.on("data", (chunk: Buffer) => {
          try {
            take(decoder.push(chunk));
          } catch (error) {
            fail(error as Error);
          }
        });
        res.on("end", () => {
          try {
            decoder.end();
          } catch (error) {
            fail(error as Error);
            return;
          }
          if (!started || !finished || deltas !== options.deltas) {
            fail(new Error(`expected RUN_STARTED, ${options.deltas} deltas and RUN_FINISHED, found ${started ? "" : "no "}RUN_STARTED, ${deltas} deltas and ${finished ? "" : "no "}RUN_FINISHED`));
            return;
          }
          settled = true;
          resolve();
        });
        res.on("error", (error) => fail(error));
        res.on("aborted", () => fail(new Error("expected the response to end, but the connection closed first")));
      },
    );
    req.on("error", (error) => fail(error));
    req.end(body);
  });
}
