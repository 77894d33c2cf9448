/**
 * An upstream's event stream, re-encoded for the client a chunk at a time: each chunk the upstream
 * sends is decoded (every event validated), checked in order, and encoded in the client's
 * transport as one chunk, without a promise per event. The relay a proxy spends its time in.
 *
 * Failures end the stream with one RUN_ERROR of a stable code (see upstream.ts); the run timeout
 * with a RUN_ERROR `timeout`. Reading is pulled by the client: the upstream is read only as fast as
 * the client takes what was sent, and not at all once it has gone.
 *
 * @module
 */
import { type EventMediaType, EventVerifier, SSE_MEDIA_TYPE } from "../protocol/index.js";
import type { AguiEvent } from "../model/index.js";
import { batchFor, checkSSESize, KEEP_ALIVE_BYTES, sseBatch, sseKeepAliveMs } from "../server/batch.js";
import { pushDecoderFor } from "../stream/index.js";
import { declaringVersion, dropUnknown, type WarningHandler } from "../protocol/index.js";
import { FrameDecoder } from "../binary/index.js";
import { RelayableSSEDecoder } from "../sse/index.js";
import { CanonicalSSE } from "./canonical-sse.js";
import { note, STOPPED, type RunDeadline, type RunTally } from "./tally.js";
import type { ChunkSource } from "../server/chunk-source.js";
import { failureOf, UPSTREAM_FAILURES, UpstreamIdle, type UpstreamAnswer, type UpstreamFailure } from "./upstream.js";

/** What {@link transcode} needs. */
export interface TranscodeParams {
  answer: UpstreamAnswer;
  /** The client's transport. */
  contentType: EventMediaType;
  /**
   * SSE clients only (0 or Infinity: none). With an SSE upstream, the client gets a keep-alive
   * comment for the upstream's own signs of life (its comments), at most one per `keepAliveMs`, and
   * none when the upstream is silent; with a binary upstream, which has no way to show it is
   * alive, one per `keepAliveMs` of silence while its connection is open.
   */
  keepAliveMs: number;
  /** How long the upstream may send nothing before the run ends with RUN_ERROR `upstream_idle`. */
  idleTimeoutMs: number;
  maxEventBytes: number;
  /** The run's time limit, which aborts `stop` when it passes. */
  deadline: RunDeadline;
  /** Aborted to stop the upstream: by the client leaving, the deadline, or the end of the stream. */
  stop: AbortController;
  tally: RunTally;
  /** The real error behind a RUN_ERROR of the relay's own. */
  onFailure: (error: unknown, code: UpstreamFailure) => void;
  /** Told of what the relay translated (retired shapes) or dropped (events of unknown types). */
  onWarning: WarningHandler;
  /** Called once when the stream ends, however it ends. */
  onEnd: () => void;
  /**
   * Whether, when the client's transport is the upstream's, each event judged valid and in order
   * goes on as it came (binary: its frame; SSE: its `data` line) rather than encoded again. An event
   * the judgement changed is encoded either way.
   */
  relay: boolean;
  /**
   * Told once, when the first chunk goes to the client, of the `performance.now()` at which the
   * upstream's first chunk arrived, and the one at which that first chunk went: the proxy's own
   * time to first event. Absent: nothing is measured.
   */
  onFirstChunk?: (firstUpstreamChunk: number, firstClientChunk: number) => void;
}

/** A read of the upstream, or why the wait ended without one. */
type Read = { kind: "chunk"; result: IteratorResult<Uint8Array> } | { kind: "error"; error: unknown } | { kind: "idle" } | { kind: "quiet" } | { kind: "stopped" };


const LF = 0x0a;
const CR = 0x0d;

/**
 * The index just past the first blank line of `chunk` (the end of an SSE event), or 0 when there
 * is none. A line end at the chunk's very start is taken to close a line of the chunk before.
 */
function sseBlankLineEnd(chunk: Uint8Array): number {
  let lineStart = 0;
  for (let i = 0; i < chunk.byteLength; i++) {
    const c = chunk[i];
    if (c !== LF && c !== CR) continue;
    const next = c === CR && chunk[i + 1] === LF ? i + 2 : i + 1;
    if (i === lineStart && i > 0) return next;
    lineStart = next;
    i = next - 1;
  }
  return 0;
}

/**
 * The client's body for an opened upstream run, and the way to stop it when the client leaves.
 *
 * @throws Never; failures end the stream as described in the module.
 */
export function transcode(params: TranscodeParams): ChunkSource<Uint8Array> {
  const { answer, tally, stop, deadline } = params;
  // An event of a type this version does not know is dropped, and unknown material stripped, with
  // a warning, as 1.1 asks of a reader; a malformed event of a known type still ends the run
  // (upstream_invalid_event). Whatever the decoder warns of, it changed: the chunk's events then
  // go encoded, not as they came.
  let changed = false;
  const warn: WarningHandler = (warning) => {
    changed = true;
    params.onWarning(warning);
  };
  const decoder = pushDecoderFor(answer.header("content-type"), params.maxEventBytes, dropUnknown(warn), warn, false, true, RelayableSSEDecoder);
  const verifier = new EventVerifier();
  // The decoder judged every event; encoding them does not judge them again.
  const sseOut = params.contentType === SSE_MEDIA_TYPE ? sseBatch(true) : undefined;
  const batch = sseOut ?? batchFor(params.contentType, true);
  /** The decoder, when both sides speak binary: then whole frames can pass as they came. */
  const frames = params.relay && decoder instanceof FrameDecoder && params.contentType !== SSE_MEDIA_TYPE ? decoder : undefined;
  /** The decoder, when both sides speak SSE: then each event's `data` line can pass as it came. */
  const lines = params.relay && decoder instanceof RelayableSSEDecoder && params.contentType === SSE_MEDIA_TYPE ? decoder : undefined;
  /** The relayable text of each event of the chunk in hand (see `RelayableSSEDecoder.pushRelayable`). */
  const texts: (string | undefined)[] = [];
  /** When both sides speak SSE: which of the upstream's bytes are already what the relay would write. */
  const canonical = lines === undefined ? undefined : new CanonicalSSE();
  const upstream = (answer.body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  const keepAliveMs = sseKeepAliveMs(params.contentType, params.keepAliveMs);
  const idleTimeoutMs = params.idleTimeoutMs;
  let pending: Promise<Read> | undefined;
  let ended = false;
  /** When the client was last sent something (`performance.now()`): keep-alives are spaced from it. */
  let sentAt = performance.now();
  /** Told of the first chunk (then dropped): see {@link TranscodeParams.onFirstChunk}. */
  let onFirstChunk = params.onFirstChunk;
  /** When the upstream's first chunk arrived, while it is measured. */
  let firstIn: number | undefined;
  /** Whether the upstream's current run has ended (then a failure adds no RUN_ERROR of ours). */
  let runEnded = false;
  // What ends a wait for the upstream besides its answer: the stop, or its silence (the watchdog
  // below). One promise for both: each wait adds a reaction to it, held until it settles.
  let interrupt!: (read: Read) => void;
  const interrupted = new Promise<Read>((resolve) => (interrupt = resolve));
  stop.signal.addEventListener("abort", () => interrupt({ kind: "stopped" }), { once: true });

  /** Ends the stream once: stops the upstream, lets go of its body, reports the end. */
  const finish = (): void => {
    if (ended) return;
    ended = true;
    clearTimeout(watchdog);
    stop.abort(STOPPED);
    upstream.return?.().catch(() => {});
    params.onEnd();
  };

  /** A chunk on its way to the client, counted. */
  const send = (chunk: Uint8Array | undefined): Uint8Array | undefined => {
    if (chunk !== undefined) {
      tally.bytes += chunk.byteLength;
      sentAt = performance.now();
      if (onFirstChunk !== undefined) {
        onFirstChunk(firstIn ?? sentAt, sentAt);
        onFirstChunk = undefined;
      }
    }
    return chunk;
  };

  /** Ends the stream: returns what is batched and a final RUN_ERROR (unless the run had ended). */
  const fail = (error: unknown): Uint8Array | undefined => {
    const code = failureOf(error);
    params.onFailure(error, code);
    if (!runEnded) {
      const runError: AguiEvent = { type: "RUN_ERROR", code, message: UPSTREAM_FAILURES[code] };
      batch.add(runError, Infinity);
      note(tally, runError, code);
    }
    // Counted before the run's record is made.
    const last = send(batch.take());
    finish();
    return last;
  };

  /** Takes one checked event into the run's tally. */
  const count = (event: AguiEvent): void => {
    note(tally, event);
    if (event.type === "RUN_FINISHED" || event.type === "RUN_ERROR") runEnded = true;
    else if (event.type === "RUN_STARTED") runEnded = false;
  };

  /**
   * When both sides speak binary: the bytes of the upstream's unfinished frame, from the chunks
   * before this one. Whole frames pass on as they came (they are the frames just judged), so a
   * relay does not encode again what it decoded.
   */
  let carry: Uint8Array[] = [];
  let carried = 0;

  /**
   * Takes one upstream chunk and returns what to send for it: its events checked in order and
   * encoded, or, when both sides speak binary, the bytes of the frames it completed, as they came.
   * Throws at the first event refused, the events before it batched (encoded: the refused frame's
   * neighbours in the upstream's bytes must not reach the client).
   */
  const take = (chunk: Uint8Array): Uint8Array | undefined => (lines !== undefined ? relayLines(lines, chunk) : takeFrames(chunk));

  /**
   * Takes one upstream chunk when both sides speak SSE: each event checked in order, then sent as
   * the upstream's own `data` line when the decoder kept it whole (see `RelayableSSEDecoder.pushRelayable`),
   * else encoded. Only those lines pass, under the proxy's own
   * framing: the upstream's other lines (`event:`, `id:`, `retry:`, comments) and its line ends
   * never reach the client, so nothing it sends can change how the client's parser splits the
   * stream. When every event of the chunk goes as its line, and the upstream wrote each as
   * `data: <line>\n\n` (see {@link CanonicalSSE}), the upstream's bytes of those events are that
   * text already, and go as they came. Throws at the first event refused, the events before it
   * batched.
   */
  const relayLines = (sse: RelayableSSEDecoder, chunk: Uint8Array): Uint8Array | undefined => {
    texts.length = 0;
    const completed = canonical!.push(chunk);
    // A canonical chunk's messages have one data line each.
    const events = sse.pushRelayable(chunk, texts, completed >= 0);
    for (let i = 0; i < events.length; i++) {
      const e = events[i]!;
      if (e.type === "RUN_STARTED" && e.protocolVersion === undefined) {
        // A RUN_STARTED that declares no version gets the proxy's (what its stream speaks).
        events[i] = declaringVersion(e);
        texts[i] = undefined;
      }
    }
    if (completed === events.length && asTheyCame(events.length)) {
      let i = 0;
      try {
        for (; i < events.length; i++) {
          verifier.push(events[i]!);
          count(events[i]!);
        }
      } catch (error) {
        canonical!.drop();
        for (let j = 0; j < i; j++) addRelayed(events[j]!, texts[j]);
        throw error;
      }
      return canonical!.take();
    }
    canonical!.drop();
    for (let i = 0; i < events.length; i++) {
      verifier.push(events[i]!);
      addRelayed(events[i]!, texts[i]);
      count(events[i]!);
    }
    return batch.take();
  };

  /**
   * Whether the chunk's `n` events, one for each canonical event its bytes completed, may go as
   * those bytes: each has its relayable text (so it is the upstream's event unchanged), within
   * `maxEventBytes`, and valid UTF-8 (a U+FFFD may stand for bytes that were not: then the bytes
   * are not the text's).
   */
  const asTheyCame = (n: number): boolean => {
    if (canonical!.longest > params.maxEventBytes) return false;
    for (let i = 0; i < n; i++) {
      const text = texts[i];
      if (text === undefined || text.includes("\uFFFD")) return false;
    }
    return true;
  };

  /** Batches one event: the upstream's `data` line when it has a relayable one, else encoded. */
  const addRelayed = (event: AguiEvent, text: string | undefined): void => {
    if (text === undefined) batch.add(event, params.maxEventBytes);
    else sseOut!.addText(`data: ${text}\n\n`, params.maxEventBytes);
  };

  /**
   * Takes one upstream chunk otherwise: its events checked in order and encoded, or, when both
   * sides speak binary, the bytes of the frames it completed, as they came.
   */
  const takeFrames = (chunk: Uint8Array): Uint8Array | undefined => {
    const before = frames?.count ?? 0;
    changed = false;
    const events = decoder.push(chunk);
    // -1 once the decoder failed: the events it handed out go encoded, and the next push throws.
    const held = frames === undefined ? -1 : frames.held;
    // A frame the decoder dropped (an unknown type) or stripped must not reach the client as it
    // came: that chunk's events go encoded instead.
    const dropped = changed || (frames !== undefined && frames.count - before !== events.length);
    // A RUN_STARTED that declares no version gets the proxy's (what its stream speaks): its
    // chunk goes encoded too.
    let undeclared = false;
    for (let k = 0; k < events.length; k++) {
      const e = events[k]!;
      if (e.type === "RUN_STARTED" && e.protocolVersion === undefined) {
        events[k] = declaringVersion(e);
        undeclared = true;
      }
    }
    const passOn = held >= 0 && !dropped && !undeclared;
    let i = 0;
    try {
      for (; i < events.length; i++) {
        verifier.push(events[i]!);
        if (!passOn) batch.add(events[i]!, params.maxEventBytes);
        count(events[i]!);
      }
    } catch (error) {
      if (passOn) for (let j = 0; j < i; j++) batch.add(events[j]!, params.maxEventBytes);
      carry = [];
      throw error;
    }
    if (!passOn) {
      if ((dropped || undeclared) && held >= 0) {
        // What the decoder holds began in this chunk's tail (a frame completed here).
        carry = held > 0 ? [chunk.subarray(chunk.byteLength - held)] : [];
        carried = held;
      }
      return batch.take();
    }
    if (frames!.count === before) {
      // No frame completed: the whole chunk is part of the unfinished one.
      carry.push(chunk);
      carried += chunk.byteLength;
      return undefined;
    }
    // A frame completed here, so what the decoder holds began in this chunk.
    const whole = chunk.byteLength - held;
    const out = new Uint8Array(carried + whole);
    let at = 0;
    for (const part of carry) {
      out.set(part, at);
      at += part.byteLength;
    }
    // A copy: the chunk belongs to the upstream's reader (and its tail to the decoder), the copy
    // to the client's.
    out.set(whole === chunk.byteLength ? chunk : chunk.subarray(0, whole), at);
    carry = held > 0 ? [chunk.subarray(whole)] : [];
    carried = held;
    return out;
  };

  const read = (): Promise<Read> => {
    readingSince = performance.now();
    return upstream.next().then(
      (result): Read => {
        readingSince = undefined;
        if (onFirstChunk !== undefined && firstIn === undefined) firstIn = performance.now();
        return { kind: "chunk", result };
      },
      (error: unknown): Read => ((readingSince = undefined), { kind: "error", error }),
    );
  };

  // An SSE upstream shows it is alive with comments, which an SSE client gets (below); a binary
  // one has no way to, so while its connection is open (and within idleTimeoutMs) the proxy keeps
  // an SSE client's idle timer from firing on a quiet run.
  const inventKeepAlives = keepAliveMs > 0 && decoder instanceof FrameDecoder;
  /** When the read under way was asked for, while it has not settled: the upstream's silence. */
  let readingSince: number | undefined;
  /**
   * The upstream's silence, watched by one timer for the whole run rather than one per read (a
   * timer per chunk would cost the relay a microsecond or two per chunk): it interrupts the wait
   * with `idle` once a read has waited `idleTimeoutMs`.
   */
  let watchdog: ReturnType<typeof setTimeout> | undefined;
  const watch = (ms: number): void => {
    watchdog = setTimeout(() => {
      watchdog = undefined;
      if (ended) return;
      const silent = readingSince === undefined ? 0 : performance.now() - readingSince;
      if (silent >= idleTimeoutMs) interrupt({ kind: "idle" });
      else watch(idleTimeoutMs - silent);
    }, ms);
    (watchdog as { unref?: () => void }).unref?.();
  };
  if (Number.isFinite(idleTimeoutMs)) watch(idleTimeoutMs);

  /**
   * Waits for the pending read, the stop, `idleTimeoutMs` of the upstream's silence (`idle`), or,
   * with a binary upstream and an SSE client, `keepAliveMs` of it (`quiet`).
   */
  const wait = (next: Promise<Read>): Promise<Read> => {
    if (!inventKeepAlives) return Promise.race([next, interrupted]);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const quiet = new Promise<Read>((resolve) => (timer = setTimeout(() => resolve({ kind: "quiet" }), keepAliveMs)));
    return Promise.race([next, interrupted, quiet]).finally(() => clearTimeout(timer));
  };

  /** Ends a run the stop ended: with a RUN_ERROR `timeout` when the deadline passed. */
  const endStopped = (): Uint8Array | undefined => {
    const event = deadline.event(tally);
    if (event) batch.add(event, Infinity);
    const last = send(batch.take());
    finish();
    return last;
  };

  /**
   * Until the client has had its first event: the rest of an upstream chunk whose first event went
   * on alone (see {@link firstEventEnd}), judged on the next pull before the upstream is read again.
   */
  let rest: Uint8Array | undefined;
  /** Whether an event has gone to the client. */
  let delivered = false;

  // A client that leaves aborts `stop` (through finish), which ends any wait under way.
  const pull = async (): Promise<Uint8Array | undefined> => {
    while (!ended) {
      if (stop.signal.aborted) return endStopped();
      let value = rest;
      rest = undefined;
      if (value === undefined) {
        pending ??= read();
        const outcome = await wait(pending);
        if (ended) return undefined;
        // The upstream went silent: a dead upstream must not hold the client (and its slot).
        if (outcome.kind === "idle") return fail(new UpstreamIdle(idleTimeoutMs));
        if (outcome.kind === "quiet") return send(KEEP_ALIVE_BYTES.slice());
        pending = undefined;
        // The run timed out (a client that left ends the stream through abort).
        if (outcome.kind === "stopped") return endStopped();
        try {
          if (outcome.kind === "error") throw outcome.error;
          if (outcome.result.done) {
            decoder.end();
            verifier.end();
            const last = send(batch.take());
            finish();
            return last;
          }
        } catch (error) {
          // An upstream the stop cut off fails its read: the stop says why the run ended.
          if (stop.signal.aborted) return endStopped();
          return fail(error);
        }
        value = outcome.result.value;
      }
      if (!delivered) {
        // The client's first event waits for nothing but its own judgement: the chunk that holds
        // it (often the upstream's whole first burst) is cut after it.
        const end = firstEventEnd(value);
        if (end > 0 && end < value.byteLength) {
          rest = value.subarray(end);
          value = value.subarray(0, end);
        }
      }
      let chunk: Uint8Array | undefined;
      try {
        chunk = take(value);
      } catch (error) {
        if (stop.signal.aborted) return endStopped();
        return fail(error);
      }
      if (chunk !== undefined) {
        delivered = true;
        return send(chunk);
      }
      // A chunk that held no whole event (a comment, a part of a frame) is the upstream's sign of
      // life: an SSE client hears of it, at most every keepAliveMs, so that its own idle timer
      // follows the upstream's liveness, not the proxy's.
      if (keepAliveMs > 0 && performance.now() - sentAt >= keepAliveMs) return send(KEEP_ALIVE_BYTES.slice());
    }
    return undefined;
  };

  /**
   * Where the first event that `chunk` completes ends, as far as can be told without decoding it:
   * after its frame when the binary decoder holds nothing, after the first blank line of SSE; 0
   * when unknown. Any cut is sound (the decoders take input in pieces of any size); a good one
   * only spares the client's first event the judgement of those after it.
   */
  const firstEventEnd = (chunk: Uint8Array): number => {
    if (decoder instanceof FrameDecoder) {
      if (decoder.held !== 0 || chunk.byteLength < 4) return 0;
      return 4 + (((chunk[0]! << 24) | (chunk[1]! << 16) | (chunk[2]! << 8) | chunk[3]!) >>> 0);
    }
    return sseBlankLineEnd(chunk);
  };

  return { pull, abort: finish };
}
