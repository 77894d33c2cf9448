/**
 * RunSource: what an agent's `run` returned, read as one async iterator whatever its form, with
 * the abort and close behaviour the server and the client rely on.
 */
import { Observable, Subject } from "rxjs";
import { describe, expect, it } from "vitest";
import type { AgentRunResult } from "../../src/agent/contract.js";
import { PULL, RunSource, SKIP } from "../../src/agent/run-source.js";
import { DeliveringRunSource, PULL_INTO, type PullReceiver } from "../../src/agent/delivering-run-source.js";

const aborted = (signal: AbortSignal) => new Error(`aborted: ${String(signal.reason)}`);

function source(result: () => AgentRunResult | Promise<AgentRunResult>, signal?: AbortSignal, map?: (v: unknown) => unknown): RunSource<unknown> {
  return new RunSource(result, signal, aborted, map);
}

async function drain(it: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const v of it) out.push(v);
  return out;
}

describe("RunSource", () => {
  it("reads every form a run may return, the same values in the same order", async () => {
    const values = [1, 2, 3];
    const forms: [string, () => AgentRunResult | Promise<AgentRunResult>][] = [
      ["array", () => values as never],
      ["generator", () => (function* () { yield* values; })() as never],
      ["async generator", () => (async function* () { yield* values; })() as never],
      ["observable, emitting at once", () => new Observable((s) => { values.forEach((v) => s.next(v)); s.complete(); }) as never],
      ["observable, emitting later", () => new Observable((s) => { const t = setTimeout(() => { values.forEach((v) => s.next(v)); s.complete(); }); return () => clearTimeout(t); }) as never],
      ["function", () => (() => values) as never],
      ["promise of a function", async () => (() => values) as never],
    ];
    for (const [name, form] of forms) expect({ name, values: await drain(source(form)) }).toEqual({ name, values });
  });

  it("gives values a source holds already at once through PULL, and a promise otherwise", async () => {
    const sync = source(() => [1, 2] as never);
    const first = sync[PULL]();
    expect(first).toBeInstanceOf(Promise); // the agent is called asynchronously
    expect(await first).toEqual({ value: 1, done: false });
    expect(sync[PULL]()).toEqual({ value: 2, done: false });
    expect(sync[PULL]()).toEqual({ value: undefined, done: true });
    const later = source(() => (async function* () { yield 1; })() as never);
    await later.next();
    expect(later[PULL]()).toBeInstanceOf(Promise);
  });

  it("refuses a run that returned neither an iterable nor an observable", async () => {
    await expect(source(() => 42 as never).next()).rejects.toThrow(/must return an \(async\) iterable or an observable of events.*found number/);
    await expect(source(() => null as never).next()).rejects.toThrow(/found null/);
  });

  it("passes on what the source throws or errors with, and closes it after", async () => {
    await expect(drain(source(() => new Observable((s) => s.error(new Error("boom"))) as never))).rejects.toThrow("boom");
    let closed = false;
    const failing = source(() => (function* () {
      try {
        yield 1;
        yield 2;
      } finally {
        closed = true;
      }
    })() as never, undefined, (v) => {
      if (v === 2) throw new Error("invalid event");
      return v;
    });
    await expect(drain(failing)).rejects.toThrow("invalid event");
    expect(closed).toBe(true);
  });

  it("ends a wait with the abort error as soon as the signal fires, and unsubscribes", async () => {
    const controller = new AbortController();
    let unsubscribed = false;
    const never = new Observable(() => () => void (unsubscribed = true));
    const reading = source(() => never as never, controller.signal);
    const next = reading.next();
    await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort("stop");
    await expect(next).rejects.toThrow("aborted: stop");
    expect(unsubscribed).toBe(true);
    await expect(reading.next()).resolves.toEqual({ value: undefined, done: true });
  });

  it("closes the source when the reader leaves early: return() on an iterator, unsubscribe on an observable", async () => {
    let finished = false;
    const gen = source(() => (function* () {
      try {
        yield 1;
        yield 2;
      } finally {
        finished = true;
      }
    })() as never);
    for await (const _ of gen) break;
    expect(finished).toBe(true);
    const subject = new Subject<number>();
    const observed = source(() => subject as never);
    const first = observed.next();
    // (A Subject is hot: wait until the source has subscribed, as it does once the agent returned.)
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(subject.observed).toBe(true);
    subject.next(1);
    expect(await first).toEqual({ value: 1, done: false });
    await observed.return();
    expect(subject.observed).toBe(false);
  });

  it("keeps only what the reader has not taken yet from an observable that runs ahead", async () => {
    const many = Array.from({ length: 5000 }, (_, i) => i);
    const values = await drain(source(() => new Observable((s) => { many.forEach((v) => s.next(v)); s.complete(); }) as never));
    expect(values).toEqual(many);
  });
});

describe("DeliveringRunSource", () => {
  /** Reads one outcome with PULL_INTO: what came at once, else what the receiver was told. */
  function pullInto(from: DeliveringRunSource<unknown>): { now: IteratorResult<unknown> | undefined; later: Promise<IteratorResult<unknown>> } {
    let receiver!: PullReceiver<unknown>;
    const later = new Promise<IteratorResult<unknown>>((pulled, pullFailed) => (receiver = { pulled, pullFailed }));
    return { now: from[PULL_INTO](receiver), later };
  }

  it("gives what the source holds at once, and tells the receiver what it waited for (the first value, a value of a promise, the end)", async () => {
    const sync = new DeliveringRunSource(() => [1, 2] as never);
    const first = pullInto(sync);
    expect(first.now).toBeUndefined(); // the agent is called asynchronously
    expect(await first.later).toEqual({ value: 1, done: false });
    expect(pullInto(sync).now).toEqual({ value: 2, done: false });
    expect(pullInto(sync).now).toEqual({ value: undefined, done: true });

    let release!: () => void;
    const later = new DeliveringRunSource(() => (async function* () {
      yield 1;
      await new Promise<void>((resolve) => (release = resolve));
      yield 2;
    })() as never);
    expect(await pullInto(later).later).toEqual({ value: 1, done: false });
    const waiting = pullInto(later);
    expect(waiting.now).toBeUndefined();
    release();
    expect(await waiting.later).toEqual({ value: 2, done: false });
    const end = pullInto(later);
    expect(end.now).toBeUndefined();
    expect(await end.later).toEqual({ value: undefined, done: true });
    // The same as PULL gives, through next() too.
    expect(await later.next()).toEqual({ value: undefined, done: true });
  });

  it("waits on past skipped values for the next one kept, and tells the receiver of a map that throws", async () => {
    const map = (v: unknown) => {
      if (v === "bad") throw new Error("invalid event");
      return typeof v === "number" && v % 2 === 1 ? SKIP : v;
    };
    const skipping = new DeliveringRunSource(() => (async function* () {
      yield 0;
      yield 1;
      yield 3;
      yield 4;
      yield "bad";
    })() as never, undefined, undefined, map);
    expect(await pullInto(skipping).later).toEqual({ value: 0, done: false });
    expect(await pullInto(skipping).later).toEqual({ value: 4, done: false });
    await expect(pullInto(skipping).later).rejects.toThrow("invalid event");
    expect(await skipping.next()).toEqual({ value: undefined, done: true });
  });

  it("tells the receiver what the source rejects with, and closes the source", async () => {
    let closed = 0;
    let fail!: (error: Error) => void;
    let reads = 0;
    const iterator = {
      next: () => (++reads === 1 ? Promise.resolve({ value: 1, done: false }) : new Promise<IteratorResult<unknown>>((_, reject) => (fail = reject))),
      return: () => {
        closed++;
        return Promise.resolve({ value: undefined, done: true as const });
      },
      [Symbol.asyncIterator]() {
        return this;
      },
    };
    const failing = new DeliveringRunSource(() => iterator as never);
    expect(await pullInto(failing).later).toEqual({ value: 1, done: false });
    const second = pullInto(failing);
    expect(second.now).toBeUndefined();
    fail(new Error("boom"));
    await expect(second.later).rejects.toThrow("boom");
    expect(closed).toBe(1);
    expect(pullInto(failing).now).toEqual({ value: undefined, done: true });
  });

  it("ends a wait with the abort error when its signal fires", async () => {
    const controller = new AbortController();
    let unsubscribed = false;
    const reading = new DeliveringRunSource(() => new Observable((s) => {
      s.next(1);
      return () => void (unsubscribed = true);
    }) as never, controller.signal, aborted);
    expect(await pullInto(reading).later).toEqual({ value: 1, done: false });
    const second = pullInto(reading);
    expect(second.now).toBeUndefined();
    controller.abort("stop");
    await expect(second.later).rejects.toThrow("aborted: stop");
    expect(unsubscribed).toBe(true);
  });
});
