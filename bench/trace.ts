/**
 * The events the suites run on: the "mixed trace" (one realistic run, test/fixtures/corpus.ts),
 * the "1.0 trace" (a realistic AG-UI 1.0 session, test/fixtures/trace-1.0.ts), the "token trace"
 * (a run as an LLM streams it, bench/token-trace.ts), the "snapshot trace" (a run whose bytes are
 * mostly JSON values, bench/snapshot-trace.ts), per-type batches, and long streams of any, plus
 * encoding helpers.
 */
import { CORPUS, mixedTrace } from "../test/fixtures/corpus.js";
import { run10Trace } from "../test/fixtures/trace-1.0.js";
import { snapshotTrace } from "./snapshot-trace.js";
import { tokenTrace } from "./token-trace.js";
import { concatBytes } from "../src/util/bytes.js";
import { encodeEvent, encodeFrame, encodeSSE, EVENT_TYPES, type AguiEventInput, type EventType } from "../src/index.js";

const utf8 = new TextEncoder();

/** Events in one realistic run (RUN_STARTED .. RUN_FINISHED, 4 turns): the "mixed trace"; also those of the 1.0 trace. */
export const RUN_EVENTS = 1000;

/** The mixed trace: one realistic run. */
export function runTrace(): AguiEventInput[] {
  return mixedTrace(RUN_EVENTS);
}

/**
 * The 1.0 trace: a realistic AG-UI 1.0 session of {@link RUN_EVENTS} events in two runs, one that
 * reasons, calls tools and gets their results, reports activity, delegates to subagents (one
 * streaming with chunk events, one failing) and ends on an interrupt, then the run that resumes
 * it. It holds 29 of the 31 event types (all but RAW and RUN_ERROR), `metadata` on some events.
 */
export function runTrace10(): AguiEventInput[] {
  return run10Trace(RUN_EVENTS);
}

/**
 * The token trace: one run of {@link RUN_EVENTS} events as an LLM streams it, 97% one-token
 * TEXT_MESSAGE_CONTENT events (see bench/token-trace.ts).
 */
export function runTraceToken(): AguiEventInput[] {
  return tokenTrace(RUN_EVENTS);
}

/**
 * The snapshot trace: one run of about {@link RUN_EVENTS} events whose bytes are mostly JSON values
 * (state snapshots and deltas, activity, custom values; see bench/snapshot-trace.ts).
 */
export function runTraceSnapshot(): AguiEventInput[] {
  return snapshotTrace(RUN_EVENTS);
}

/**
 * `count` copies of the largest event of `type` in `trace` (by the length of its JSON), for the
 * per-type rows of the events that cost most; undefined when the trace has none.
 */
export function largestBatch(trace: readonly AguiEventInput[], type: EventType, count = BATCH): AguiEventInput[] | undefined {
  let best: AguiEventInput | undefined;
  let bestSize = -1;
  for (const e of trace) {
    if (e.type !== type) continue;
    const size = JSON.stringify(e).length;
    if (size > bestSize) [best, bestSize] = [e, size];
  }
  return best && Array.from({ length: count }, () => best);
}

/**
 * A long stream: `times` copies of `unit` back to back (`times * 1000` events); `unit` is one
 * realistic run (the mixed trace) unless given, e.g. the 1.0 trace (two runs per copy).
 *
 * Not `mixedTrace(50_000)`: that is one run of 200 turns in which every turn re-sends the whole
 * conversation in a MESSAGES_SNAPSHOT, so 95% of its 58 MB are snapshots that grow quadratically,
 * and it measures snapshot decoding rather than an event stream. The size suite reports it too.
 */
export function streamTrace(times: number, unit: AguiEventInput[] = runTrace()): AguiEventInput[] {
  const out: AguiEventInput[] = [];
  for (let i = 0; i < times; i++) out.push(...unit);
  return out;
}

/** Events per per-type batch: enough work per call for the timer, small enough for slow peers. */
const BATCH = 100;

/** Encoded sizes above which a corpus entry is an edge case, not a typical event. */
const TYPICAL_MAX_BYTES = 4096;

/**
 * For each of the 31 event types, a batch of {@link BATCH} events of that type: the trace's own
 * events of the type, cycled; for types it lacks, the `fallback` trace's (by default the 1.0
 * trace, which holds the 1.0 types the mixed trace has not: reasoning, tool results, activity,
 * subagents, chunks); for types no run emits (RAW, RUN_ERROR), the corpus entries of the type
 * that are of typical size.
 *
 * Throws when no source has an event of some type.
 */
export function perTypeBatches(trace: AguiEventInput[], fallback: AguiEventInput[] = runTrace10()): Map<EventType, AguiEventInput[]> {
  const batches = new Map<EventType, AguiEventInput[]>();
  for (const type of EVENT_TYPES) {
    let examples = trace.filter((e) => e.type === type);
    if (examples.length === 0) examples = fallback.filter((e) => e.type === type);
    if (examples.length === 0) examples = CORPUS.map((c) => c.event).filter((e) => e.type === type && encodeEvent(e).length <= TYPICAL_MAX_BYTES);
    if (examples.length === 0) throw new Error(`no example of ${type}`);
    batches.set(
      type,
      Array.from({ length: BATCH }, (_, i) => examples[i % examples.length]!),
    );
  }
  return batches;
}

/** Total length of byte arrays. */
export function totalBytes(parts: readonly Uint8Array[]): number {
  let n = 0;
  for (const p of parts) n += p.length;
  return n;
}

/** One buffer holding `parts` in order. */
export function concat(parts: readonly Uint8Array[]): Uint8Array {
  return concatBytes(parts, totalBytes(parts));
}

/** The binary stream of `events`: frames back to back. */
export function binaryStream(events: readonly AguiEventInput[]): Uint8Array {
  // encodeFrame returns views on a shared pool: copy each before the next encode.
  return concat(events.map((e) => encodeFrame(e).slice()));
}

/** The SSE stream of `events`, as UTF-8 bytes. */
export function sseStream(events: readonly AguiEventInput[]): Uint8Array {
  return utf8.encode(events.map((e) => encodeSSE(e)).join(""));
}

/** `bytes` cut into chunks of `size` bytes, each a copy with its own buffer, as a socket gives them. */
export function chunk(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.slice(i, i + size));
  return out;
}

/** The chunks as an async iterable, one await per chunk like a response body. */
export async function* asyncChunks(chunks: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const c of chunks) yield c;
}

/**
 * One long run: RUN_STARTED, then the turns of the mixed trace (the 998 events between its
 * RUN_STARTED and RUN_FINISHED) `blocks` times over, then RUN_FINISHED. Not `mixedTrace(10_000)`,
 * whose message snapshots re-send the growing conversation every turn (see above). `run` replaces
 * the mixed trace, e.g. with the token trace.
 */
export function longRun(blocks: number, run: AguiEventInput[] = runTrace()): AguiEventInput[] {
  const body = run.slice(1, -1);
  const out: AguiEventInput[] = [run[0]!];
  for (let i = 0; i < blocks; i++) out.push(...body);
  out.push(run.at(-1)!);
  return out;
}
