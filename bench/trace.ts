/**
 * The events the suites run on, all built from the shared test corpus (test/fixtures/corpus.ts):
 * one realistic run, per-type batches, and a long stream of runs, plus encoding helpers.
 */
import { CORPUS, mixedTrace } from "../test/fixtures/corpus.js";
import { concatBytes } from "../src/bytes.js";
import { encodeEvent, encodeFrame, encodeSSE, EVENT_TYPES, type AguiEventInput, type EventType } from "../src/index.js";

const utf8 = new TextEncoder();

/** Events in one realistic run (RUN_STARTED .. RUN_FINISHED, 4 turns): the "mixed trace". */
export const RUN_EVENTS = 1000;

/** The mixed trace: one realistic run. */
export function runTrace(): AguiEventInput[] {
  return mixedTrace(RUN_EVENTS);
}

/**
 * A long stream: `runs` realistic runs back to back (`runs * 1000` events).
 *
 * Not `mixedTrace(50_000)`: that is one run of 200 turns in which every turn re-sends the whole
 * conversation in a MESSAGES_SNAPSHOT, so 95% of its 58 MB are snapshots that grow quadratically,
 * and it measures snapshot decoding rather than an event stream. The size suite reports it too.
 */
export function streamTrace(runs: number): AguiEventInput[] {
  const run = runTrace();
  const out: AguiEventInput[] = [];
  for (let i = 0; i < runs; i++) out.push(...run);
  return out;
}

/** Events per per-type batch: enough work per call for the timer, small enough for slow peers. */
const BATCH = 100;

/** Encoded sizes above which a corpus entry is an edge case, not a typical event. */
const TYPICAL_MAX_BYTES = 4096;

/**
 * For each of the 16 event types, a batch of {@link BATCH} events of that type: the trace's own
 * events of the type, cycled, or (for types a run does not emit, such as RAW and RUN_ERROR) the
 * corpus entries of the type that are of typical size.
 */
export function perTypeBatches(trace: AguiEventInput[]): Map<EventType, AguiEventInput[]> {
  const batches = new Map<EventType, AguiEventInput[]>();
  for (const type of EVENT_TYPES) {
    let examples = trace.filter((e) => e.type === type);
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
