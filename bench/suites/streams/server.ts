/**
 * The streams suite's server, a process of its own (run with --expose-gc): node:http with
 * `createNodeHandler` on 127.0.0.1 and an agent that streams slowly, plus commands on stdin that
 * read this process's memory and event-loop delay while the runs are open. Commands come on stdin
 * rather than over HTTP so that they never queue behind thousands of connections being accepted.
 *
 * Routes:
 * - `POST /run`: the agent. Its `forwardedProps` say `{ deltas, intervalMs }`; it yields
 *   RUN_STARTED, TEXT_MESSAGE_START, then one TEXT_MESSAGE_CONTENT every `intervalMs` whose delta
 *   is the wall-clock ms it was made at and the ms it was due at by the schedule (e.g.
 *   "1718000000123.456 1718000000122.000"), then TEXT_MESSAGE_END and RUN_FINISHED. The deltas
 *   keep to a schedule from the run's start, so a late one does not delay the next; how late one
 *   is made tells how late the server's timers fire.
 * - `POST /floor`: the same events, each encoded (validated) with encodeFrame or encodeSSE and
 *   written straight to the response by a timer: what node:http alone costs per open stream, a
 *   floor to compare the handler with (used by investigations, not by the suite's rows).
 *
 * Commands, one a line on stdin as a JSON string (`"mem"`), each answered with one JSON line on stdout:
 * - `mem`: `process.memoryUsage()` as is; `mem-gc`: the same after two full GCs, and how long they
 *   took (`gcMs`). Both with `open`, the runs whose agent is running, `spaces`: each V8 heap
 *   space's physical and used bytes, and `fds`: the file descriptors this process holds (null
 *   where /proc/self/fd cannot be read).
 * - `loop-start`: starts sampling event-loop delay (10 ms resolution) afresh; `loop-stop`: stops,
 *   and answers its mean, p50, p99 and max in ms, and the CPU this process used since the start,
 *   in percent of one core.
 *
 * Prints `{"url": "http://127.0.0.1:<port>", "pid": ..., "openFiles": <limit>}` when listening.
 */
import { readdirSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";
import { getHeapSpaceStatistics } from "node:v8";
import { BINARY_MEDIA_TYPE, encodeFrame, encodeSSE, EventType, negotiate, SSE_MEDIA_TYPE, type AguiEventInput } from "../../../src/index.js";
import { createNodeHandler } from "../../../src/server/index.js";
import { announce, routes, type Handler } from "../proxy/serve.js";
import { openFileLimit } from "./limits.js";
import { wallNow } from "./run.js";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("expected gc() (node --expose-gc), found none");

let open = 0;

/** A positive number field of the run's forwardedProps. */
function field(props: unknown, name: string): number {
  const value = (props as Record<string, unknown> | null | undefined)?.[name];
  if (typeof value !== "number" || !(value > 0)) throw new Error(`expected forwardedProps.${name}, a positive number, found ${JSON.stringify(value)}`);
  return value;
}

// A plain timer per wait, no AbortSignal listener: the agent should cost what a lean slow agent
// costs, so that what the numbers show is the handler's share.
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const run = createNodeHandler(
  async function* slowAgent(input, { signal }): AsyncGenerator<AguiEventInput> {
    const deltas = field(input.forwardedProps, "deltas");
    const intervalMs = field(input.forwardedProps, "intervalMs");
    const { threadId, runId } = input;
    open++;
    try {
      yield { type: EventType.RUN_STARTED, threadId, runId };
      yield { type: EventType.TEXT_MESSAGE_START, messageId: "m", role: "assistant" };
      const start = wallNow();
      for (let k = 1; k <= deltas; k++) {
        const due = start + k * intervalMs;
        const wait = due - wallNow();
        if (wait > 0) await sleep(wait);
        if (signal.aborted) return;
        yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m", delta: `${wallNow().toFixed(3)} ${due.toFixed(3)}` };
      }
      yield { type: EventType.TEXT_MESSAGE_END, messageId: "m" };
      yield { type: EventType.RUN_FINISHED, threadId, runId };
    } finally {
      open--;
    }
  },
  // Clients here send no Accept-Encoding anyway; off, so that no run could ever pay for zlib.
  { compression: false },
);

/** The floor: the agent's schedule and events, written by hand without the handler's stream. */
const floor: Handler = (req, res) => {
  let text = "";
  req.setEncoding("utf8");
  req.on("data", (chunk: string) => (text += chunk));
  req.on("end", () => {
    const input = JSON.parse(text) as { threadId: string; runId: string; forwardedProps: unknown };
    const deltas = field(input.forwardedProps, "deltas");
    const intervalMs = field(input.forwardedProps, "intervalMs");
    const binary = negotiate(req.headers.accept) === BINARY_MEDIA_TYPE;
    const encode = (event: AguiEventInput): Uint8Array | string => (binary ? encodeFrame(event) : encodeSSE(event));
    res.writeHead(200, { "content-type": binary ? BINARY_MEDIA_TYPE : SSE_MEDIA_TYPE, "cache-control": "no-cache" });
    const { threadId, runId } = input;
    open++;
    res.write(encode({ type: EventType.RUN_STARTED, threadId, runId }));
    res.write(encode({ type: EventType.TEXT_MESSAGE_START, messageId: "m", role: "assistant" }));
    const start = wallNow();
    let k = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = (): void => {
      k++;
      const due = start + k * intervalMs;
      res.write(encode({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: "m", delta: `${wallNow().toFixed(3)} ${due.toFixed(3)}` }));
      if (k < deltas) timer = setTimeout(tick, Math.max(0, due + intervalMs - wallNow()));
      else {
        res.write(encode({ type: EventType.TEXT_MESSAGE_END, messageId: "m" }));
        res.end(encode({ type: EventType.RUN_FINISHED, threadId, runId }));
        open--;
        timer = undefined;
      }
    };
    timer = setTimeout(tick, intervalMs);
    res.on("close", () => {
      if (timer !== undefined) {
        clearTimeout(timer);
        open--;
      }
    });
  });
};

let loop: IntervalHistogram | undefined;
/** CPU time and clock when sampling began, to tell how busy this process was over the window. */
let since = { cpu: process.cpuUsage(), at: performance.now() };
const ms = (ns: number): number => ns / 1e6;

/** The V8 heap's spaces: bytes committed (physical) and used, by name, to tell the young generation from the rest. */
function spaces(): Record<string, { physical: number; used: number }> {
  return Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, { physical: s.physical_space_size, used: s.space_used_size }]));
}

/** File descriptors this process holds (Linux: /proc/self/fd), or null where that cannot be read. */
function openFds(): number | null {
  try {
    return readdirSync("/proc/self/fd").length;
  } catch {
    return null;
  }
}

/** The control commands, by name: each returns the answer line's object. */
const commands: Record<string, () => Record<string, unknown>> = {
  mem: () => ({ open, ...process.memoryUsage(), spaces: spaces(), fds: openFds() }),
  "mem-gc": () => {
    const t0 = performance.now();
    gc();
    gc();
    return { open, gcMs: performance.now() - t0, ...process.memoryUsage(), spaces: spaces(), fds: openFds() };
  },
  "loop-start": () => {
    loop?.disable();
    loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    since = { cpu: process.cpuUsage(), at: performance.now() };
    return { open };
  },
  "loop-stop": () => {
    if (!loop) return { error: "expected loop-start before loop-stop" };
    loop.disable();
    const h = loop;
    loop = undefined;
    const cpu = process.cpuUsage(since.cpu);
    const cpuPct = ((cpu.user + cpu.system) / 1000 / (performance.now() - since.at)) * 100;
    return { open, meanMs: ms(h.mean), p50Ms: ms(h.percentile(50)), p99Ms: ms(h.percentile(99)), maxMs: ms(h.max), samples: h.count, cpuPct };
  },
};

/** Answers each command line on stdin with one JSON line on stdout. */
function listenForCommands(): void {
  let text = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk: string) => {
    text += chunk;
    for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n")) {
      const line = text.slice(0, end);
      text = text.slice(end + 1);
      // A command is a JSON string, as the bench's Child.send writes it.
      let name: unknown;
      try {
        name = JSON.parse(line);
      } catch {
        name = line;
      }
      const command = typeof name === "string" && Object.hasOwn(commands, name) ? commands[name] : undefined;
      const answer = command ? command() : { error: `expected one of ${Object.keys(commands).join(", ")}, found ${JSON.stringify(name)}` };
      process.stdout.write(`${JSON.stringify(answer)}\n`);
    }
  });
}

const table: Record<string, Handler> = { "/run": run, "/floor": floor };

/** Pending connections the kernel queues for accept(): 10,000 opened over a few seconds overflow Node's default 511. */
const BACKLOG = 4096;
const server = createServer(routes(table));
await new Promise<void>((resolve, reject) => {
  server.once("error", reject);
  server.listen({ port: 0, host: "127.0.0.1", backlog: BACKLOG }, resolve);
});
const { port } = server.address() as AddressInfo;
announce({ url: `http://127.0.0.1:${port}`, pid: process.pid, openFiles: openFileLimit() ?? null });
listenForCommands();
