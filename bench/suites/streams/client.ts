/**
 * A client process of the streams suite: holds its share of the open runs, each a node:http
 * request read with our push decoder, and measures each delta's delay from the agent's yield to
 * its being decoded here.
 *
 * Argument: `{"url", "transport", "index", "processes", "runs", "deltas", "intervalMs"}`: this is
 * client `index` of `processes`, holding `runs` runs. It prints `{"ready": true, "openFiles"}`,
 * then waits for one line on stdin:
 * `{"startAt", "rampMs", "totalRuns", "windowFrom", "windowTo", "deadline"}` (wall-clock ms).
 * Run number `index + k * processes` of all (`k` = 0, 1, ...) opens at
 * `startAt + number * rampMs / totalRuns`, so the processes' runs interleave along the ramp.
 * Delays of deltas made within [windowFrom, windowTo) go to histograms of their own, as does this
 * process's event-loop delay over that window. At `deadline` any run still open fails.
 * When every run has ended, it prints its report (see {@link ClientReport}) and lives on until its
 * stdin closes.
 */
import { setMaxListeners } from "node:events";
import { Agent } from "node:http";
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";
import { argument, stringField } from "../proxy/serve.js";
import { DelayHistogram, type HistogramData } from "./histogram.js";
import { openFileLimit } from "./limits.js";
import { openRun, wallNow, type Transport } from "./run.js";

/** What a client prints when its runs have ended. */
export interface ClientReport {
  runs: number;
  completed: number;
  failed: number;
  /** Error messages (a code where Node gives one) and how many runs ended with each. */
  errors: Record<string, number>;
  /** Wall-clock ms of the first and of the last RUN_STARTED decoded. */
  firstStartedAt: number | null;
  lastStartedAt: number | null;
  /** Delays (yield to decoding) of every delta, and of those made within the window. */
  all: HistogramData;
  window: HistogramData;
  /** For the deltas made within the window: ms from when the agent's schedule said to make them to their decoding. */
  lag: HistogramData;
  /** This process's event-loop delay over the window, ms, and its CPU use, percent of one core. */
  loop: { p99Ms: number; maxMs: number; cpuPct: number } | null;
}

/** The go line the bench sends. */
interface Go {
  startAt: number;
  rampMs: number;
  totalRuns: number;
  windowFrom: number;
  windowTo: number;
  deadline: number;
}

const args = argument();
const num = (field: string): number => {
  const value = args[field];
  if (typeof value !== "number" || !(value >= 0)) throw new Error(`expected a number "${field}" in the argument, found ${JSON.stringify(value)}`);
  return value;
};
const url = stringField(args, "url");
const transport = stringField(args, "transport") as Transport;
if (transport !== "binary" && transport !== "sse") throw new Error(`expected "transport" binary or sse, found ${JSON.stringify(transport)}`);
const index = num("index");
const processes = num("processes");
const runs = num("runs");
const deltas = num("deltas");
const intervalMs = num("intervalMs");

function readGo(): Promise<Go> {
  return new Promise((resolve) => {
    let text = "";
    let got = false;
    process.stdin.setEncoding("utf8");
    process.stdin.on("data", (chunk: string) => {
      // Only the first line means anything; stdin stays read so that its end is seen.
      if (got) return;
      text += chunk;
      const end = text.indexOf("\n");
      if (end < 0) return;
      got = true;
      resolve(JSON.parse(text.slice(0, end)) as Go);
    });
    // The lifeline: the bench closed our stdin (it is done, or gone).
    process.stdin.on("end", () => process.exit(0));
    process.stdin.on("error", () => process.exit(0));
  });
}

process.stdout.write(`${JSON.stringify({ ready: true, openFiles: openFileLimit() ?? null })}\n`);
const go = await readGo();

const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
const stop = new AbortController();
// Every run listens to it.
setMaxListeners(0, stop.signal);
const all = new DelayHistogram();
const inWindow = new DelayHistogram();
const lag = new DelayHistogram();
const errors: Record<string, number> = {};
let completed = 0;
let failed = 0;
let firstStartedAt = Infinity;
let lastStartedAt = -Infinity;

let loop: IntervalHistogram | undefined;
let loopResult: ClientReport["loop"] = null;
let since = { cpu: process.cpuUsage(), at: 0 };
setTimeout(() => {
  loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  since = { cpu: process.cpuUsage(), at: performance.now() };
}, go.windowFrom - wallNow());
setTimeout(() => {
  if (!loop) return;
  loop.disable();
  const cpu = process.cpuUsage(since.cpu);
  loopResult = { p99Ms: loop.percentile(99) / 1e6, maxMs: loop.max / 1e6, cpuPct: ((cpu.user + cpu.system) / 1000 / (performance.now() - since.at)) * 100 };
}, go.windowTo - wallNow());
const deadline = setTimeout(() => stop.abort(new Error(`expected every run to end by the deadline, ${((go.deadline - go.startAt) / 1000).toFixed(0)} s after the start`)), go.deadline - wallNow());

const onStarted = (now: number): void => {
  if (now < firstStartedAt) firstStartedAt = now;
  if (now > lastStartedAt) lastStartedAt = now;
};
const onDelta = (sentAt: number, dueAt: number, now: number): void => {
  const delay = now - sentAt;
  all.record(delay);
  if (sentAt >= go.windowFrom && sentAt < go.windowTo) {
    inWindow.record(delay);
    lag.record(now - dueAt);
  }
};

const settled: Promise<void>[] = [];
for (let k = 0; k < runs; k++) {
  const number = index + k * processes;
  const at = go.startAt + (number * go.rampMs) / go.totalRuns;
  settled.push(
    new Promise<void>((resolve) => setTimeout(resolve, at - wallNow()))
      .then(() => openRun({ url, transport, agent, runId: `run-${number}`, signal: stop.signal, deltas, intervalMs, onStarted, onDelta }))
      .then(
        () => {
          completed++;
        },
        (error: unknown) => {
          failed++;
          const e = error as { code?: unknown; message?: unknown };
          const key = typeof e?.code === "string" ? `${e.code}: ${String(e.message).slice(0, 120)}` : String(e?.message ?? error).slice(0, 200);
          errors[key] = (errors[key] ?? 0) + 1;
        },
      ),
  );
}
await Promise.all(settled);
clearTimeout(deadline);
agent.destroy();

const report: ClientReport = {
  runs,
  completed,
  failed,
  errors,
  firstStartedAt: Number.isFinite(firstStartedAt) ? firstStartedAt : null,
  lastStartedAt: Number.isFinite(lastStartedAt) ? lastStartedAt : null,
  all: all.toJSON(),
  window: inWindow.toJSON(),
  lag: lag.toJSON(),
  loop: loopResult,
};
process.stdout.write(`${JSON.stringify(report)}\n`);
