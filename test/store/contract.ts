/**
 * The run store contract as vitest tests (not a test file itself): what every `RunStore` must do,
 * whatever keeps its runs. A store's test file calls {@link describeRunStoreContract} with a
 * factory; each test gets a fresh store and cleans it up.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { encodeFrame } from "../../src/binary/encode.js";
import { parseEvent } from "../../src/model/parse.js";
import type { RunAccess, RunEvent, RunReader, RunStore, StoredEvents } from "../../src/store/run-store.js";

/** Who the contract's runs belong to: no owner, one token's digest. */
export const ACCESS: RunAccess = { owner: undefined, tokenHash: "contract-token-digest-0123456789abcdefghijk" };

/** One event of what a reader yields, for tests to look at one by one. */
export interface StoredEvent {
  seq: number;
  /** Its frame, when the store kept frames. */
  frame: Uint8Array | undefined;
  /** Its SSE text without the `id:` line, when the store kept some. */
  sse: string | undefined;
}

/**
 * The events of one step of a reader, one by one; checks that its frames and SSE text hold
 * exactly `count` events numbered from `first`.
 */
export function expand(events: StoredEvents): StoredEvent[] {
  const out: StoredEvent[] = [];
  const text = events.sse === undefined || typeof events.sse === "string" ? events.sse : new TextDecoder().decode(events.sse);
  const texts = text === undefined ? undefined : text.split(/(?<=\n\n)/);
  const frames: (Uint8Array | undefined)[] = [];
  if (events.frames !== undefined) {
    const bytes = events.frames;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let at = 0; at < bytes.length; ) {
      const end = at + 4 + view.getUint32(at);
      frames.push(bytes.subarray(at, end));
      at = end;
    }
    expect(frames).toHaveLength(events.count);
  }
  if (texts !== undefined) expect(texts).toHaveLength(events.count);
  expect(events.frames !== undefined || texts !== undefined).toBe(true);
  for (let i = 0; i < events.count; i++) {
    const seq = events.first + i;
    let sse: string | undefined;
    if (texts !== undefined) {
      const text = texts[i]!;
      expect(text.startsWith(`id: ${seq}\n`)).toBe(true);
      sse = text.slice(`id: ${seq}\n`.length);
    }
    out.push({ seq, frame: frames[i], sse });
  }
  return out;
}

/** A TEXT_MESSAGE_CONTENT event with `delta`, as the handlers hand it to a store. */
export function textEvent(delta: string): RunEvent {
  const event = parseEvent({ type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta });
  // Copied: encodeFrame's result may be a view on a pool that later frames reuse.
  return { event, frame: encodeFrame(event).slice() };
}

/** A RUN_ERROR event with `code`. */
export function errorEvent(code: string): RunEvent {
  const event = parseEvent({ type: "RUN_ERROR", message: `failed: ${code}`, code });
  return { event, frame: encodeFrame(event).slice() };
}

/** Every event a reader yields until it ends, flattened. */
export async function collect(reader: AsyncIterable<StoredEvents>): Promise<StoredEvent[]> {
  const all: StoredEvent[] = [];
  for await (const batch of reader) {
    expect(batch.count).toBeGreaterThan(0);
    all.push(...expand(batch));
  }
  return all;
}

/** Resolves when `signal` has fired. */
export function fired(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

let counter = 0;
/** A run id no other test uses, even against a store shared between test files. */
export function newRunId(): string {
  return `run-${process.pid}-${Date.now().toString(36)}-${++counter}`;
}

const hex = (bytes: Uint8Array | undefined): string => (bytes === undefined ? "none" : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex"));

/** Checks that `stored` are `events` in order, numbered from `first`. */
function expectEvents(stored: readonly StoredEvent[], events: readonly RunEvent[], first: number): void {
  expect(stored.map((e) => e.seq)).toEqual(events.map((_, i) => first + i));
  expect(stored.map((e) => hex(e.frame))).toEqual(events.map((e) => hex(e.frame)));
}

async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  await expect(promise).rejects.toMatchObject({ name: "RunStoreError", code });
}

/**
 * Declares the contract's tests for the store `make` returns.
 *
 * @param name - Names the describe block.
 * @param make - A fresh store, and how to let go of it (and whatever it needed) after the test.
 */
export function describeRunStoreContract(name: string, make: () => Promise<{ store: RunStore; cleanup(): Promise<void> }>): void {
  describe(`RunStore contract: ${name}`, () => {
    let store: RunStore;
    let cleanup: () => Promise<void>;
    beforeEach(async () => {
      ({ store, cleanup } = await make());
    });
    afterEach(async () => {
      await cleanup();
    });

    const events = (n: number, tag = "e"): RunEvent[] => Array.from({ length: n }, (_, i) => textEvent(`${tag}${i}`));

    it("gives back every event appended, in order, from -1 and from the middle", async () => {
      const id = newRunId();
      const writer = await store.create(id, ACCESS);
      expect(writer.runId).toBe(id);
      expect(writer.cancelled.aborted).toBe(false);
      const written = events(5);
      await writer.append(written.slice(0, 2));
      await writer.append(written.slice(2));
      await writer.end();
      const all = await store.read(id, -1, ACCESS);
      expect(all.exhausted).toBe(false);
      expectEvents(await collect(all), written, 0);
      expectEvents(await collect(await store.read(id, 2, ACCESS)), written.slice(3), 3);
    });

    it("yields live events to a reader waiting at the tail, and ends it when the run ends", async () => {
      const id = newRunId();
      const writer = await store.create(id, ACCESS);
      await writer.append(events(1));
      const reader = await store.read(id, 0, ACCESS);
      expect(reader.exhausted).toBe(false);
      const it = reader[Symbol.asyncIterator]();
      const pending = it.next();
      const more = events(2, "live");
      await writer.append(more);
      const got: StoredEvent[] = [];
      let step = await pending;
      while (!step.done) {
        got.push(...expand(step.value));
        if (got.length === more.length) break;
        step = await it.next();
      }
      expectEvents(got, more, 1);
      const last = it.next();
      await writer.end();
      expect((await last).done).toBe(true);
    });

    it("ends a reader of a run with no events when the run ends", async () => {
      const id = newRunId();
      const writer = await store.create(id, ACCESS);
      const reader = await store.read(id, -1, ACCESS);
      expect(reader.exhausted).toBe(false);
      const all = collect(reader);
      await writer.end();
      expect(await all).toEqual([]);
    });

    it("adds the last event given to end, and end is idempotent", async () => {
      const id = newRunId();
      const writer = await store.create(id, ACCESS);
      const written = events(2);
      await writer.append(written);
      const last = errorEvent("boom");
      await writer.end(last);
      await writer.end();
      expectEvents(await collect(await store.read(id, -1, ACCESS)), [...written, last], 0);
    });

    it("is exhausted when the run has ended and nothing follows the point asked for", async () => {
      const id = newRunId();
      const writer = await store.create(id, ACCESS);
      await writer.append(events(3));
      await writer.end();
      const reader = await store.read(id, 2, ACCESS);
      expect(reader.exhausted).toBe(true);
      expect(await collect(reader)).toEqual([]);
      expect((await store.read(id, 1, ACCESS)).exhausted).toBe(false);

      const empty = newRunId();
      await (await store.create(empty, ACCESS)).end();
      const none = await store.read(empty, -1, ACCESS);
      expect(none.exhausted).toBe(true);
      expect(await collect(none)).toEqual([]);
    });

    it("refuses a point past the end of an ended run (seq_past_end)", async () => {
      const id = newRunId();
      const writer = await store.create(id, ACCESS);
      await writer.append(events(2));
      await writer.end();
      await expectCode(store.read(id, 2, ACCESS), "seq_past_end");
      await expectCode(store.read(id, 10, ACCESS), "seq_past_end");
      const empty = newRunId();
      await (await store.create(empty, ACCESS)).end();
      await expectCode(store.read(empty, 0, ACCESS), "seq_past_end");
    });

    it("knows no run it never had (unknown_run)", async () => {
      await expectCode(store.read(newRunId(), -1, ACCESS), "unknown_run");
      await expectCode(store.cancel(newRunId(), ACCESS), "unknown_run");
    });

    it("refuses a second run of the same id (run_exists)", async () => {
      const id = newRunId();
      await store.create(id, ACCESS);
      await expectCode(store.create(id, ACCESS), "run_exists");
      const ended = newRunId();
      await (await store.create(ended, ACCESS)).end();
      await expectCode(store.create(ended, ACCESS), "run_exists");
    });

    it("fires the writer's cancelled signal on cancel", async () => {
      const id = newRunId();
      const writer = await store.create(id, ACCESS);
      const other = await store.create(newRunId(), ACCESS);
      await store.cancel(id, ACCESS);
      await fired(writer.cancelled);
      expect(writer.cancelled.aborted).toBe(true);
      expect(other.cancelled.aborted).toBe(false);
      // The handler then ends the run with its RUN_ERROR.
      const last = errorEvent("cancelled");
      await writer.end(last);
      expectEvents(await collect(await store.read(id, -1, ACCESS)), [last], 0);
    });

    it("leaves an ended run as it is on cancel", async () => {
      const id = newRunId();
      const writer = await store.create(id, ACCESS);
      const written = events(2);
      await writer.append(written);
      await writer.end();
      await store.cancel(id, ACCESS);
      expect(writer.cancelled.aborted).toBe(false);
      expectEvents(await collect(await store.read(id, -1, ACCESS)), written, 0);
    });

    it("serves two readers of one run at once", async () => {
      const id = newRunId();
      const writer = await store.create(id, ACCESS);
      const first = events(2, "a");
      await writer.append(first);
      const a = collect(await store.read(id, -1, ACCESS));
      const b = collect(await store.read(id, 0, ACCESS));
      const second = events(3, "b");
      await writer.append(second);
      await writer.end();
      expectEvents(await a, [...first, ...second], 0);
      expectEvents(await b, [...first.slice(1), ...second], 1);
    });

    it("stops a reader on return()", async () => {
      const id = newRunId();
      const writer = await store.create(id, ACCESS);
      await writer.append(events(2));
      const reader = await store.read(id, -1, ACCESS);
      let batches = 0;
      for await (const batch of reader) {
        expect(batch.first).toBe(0);
        batches++;
        break;
      }
      expect(batches).toBe(1);
      // The run goes on without it.
      await writer.append(events(1, "later"));
      await writer.end();
      expect((await collect(await store.read(id, -1, ACCESS))).length).toBe(3);
    });

    it("stops a reader waiting at the tail when its signal fires", async () => {
      const id = newRunId();
      const writer = await store.create(id, ACCESS);
      await writer.append(events(1));
      const controller = new AbortController();
      const reader: RunReader = await store.read(id, 0, ACCESS, controller.signal);
      const it = reader[Symbol.asyncIterator]();
      const pending = it.next();
      controller.abort();
      expect((await pending).done).toBe(true);
      await writer.end();
    });

    it("ends a reader at once whose signal fired before it was iterated", async () => {
      const id = newRunId();
      const writer = await store.create(id, ACCESS);
      await writer.append(events(1));
      const controller = new AbortController();
      const reader = await store.read(id, -1, ACCESS, controller.signal);
      controller.abort();
      expect(await collect(reader)).toEqual([]);
      await writer.end();
    });
  });
}
