/**
 * An open stream waiting on its agent: the keep-alive clock shared by every stream of an interval
 * (silences.ts), and the agent's stream read with `pullInto`, as the Node writer reads it.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { EventType, SSE_KEEP_ALIVE, SSEDecoder, type AguiEventInput } from "../../src/index.js";
import { agentEventStream } from "../../src/server/event-stream.js";
import { Silences } from "../../src/server/silences.js";
import { runInput, SSE } from "./helpers.js";

describe("Silences", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const stream = () => ({ ended: 0, silenceEnded() { this.ended++; } });

  it("tells each armed stream once its interval has passed, and not one disarmed or armed again since", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    const silences = new Silences(100);
    const [a, b, c] = [stream(), stream(), stream()];
    silences.arm(a);
    vi.advanceTimersByTime(40);
    silences.arm(b);
    silences.arm(c);
    vi.advanceTimersByTime(40);
    silences.disarm(c);
    // a's wait begins again: its deadline is now 180.
    silences.arm(a);
    vi.advanceTimersByTime(60);
    expect([a.ended, b.ended, c.ended]).toEqual([0, 1, 0]);
    vi.advanceTimersByTime(40);
    expect([a.ended, b.ended, c.ended]).toEqual([1, 1, 0]);
    vi.advanceTimersByTime(1000);
    expect([a.ended, b.ended, c.ended]).toEqual([1, 1, 0]);
  });

  it("holds no timer once no stream waits", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    const silences = new Silences(100);
    const a = stream();
    silences.arm(a);
    expect(vi.getTimerCount()).toBe(1);
    silences.disarm(a);
    expect(vi.getTimerCount()).toBe(0);
  });
});

/** Reads one chunk with pullInto. */
function pullInto<T>(source: { pullInto?(receiver: { chunkPulled(chunk: T | undefined): void }): void }): Promise<T | undefined> {
  return new Promise((chunkPulled) => source.pullInto!({ chunkPulled }));
}

const text = (chunk: Uint8Array | undefined): string | undefined => (chunk === undefined ? undefined : new TextDecoder().decode(chunk));

describe("agentEventStream read with pullInto", () => {
  it("answers a wait on the agent with keep-alives, then with the event the agent was making meanwhile", async () => {
    let release!: () => void;
    const input = runInput();
    const agent = async function* (): AsyncGenerator<AguiEventInput> {
      yield { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId };
      await new Promise<void>((resolve) => (release = resolve));
      yield { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId };
    };
    const stream = agentEventStream({ agent, input, contentType: SSE, keepAliveMs: 20, maxEventBytes: 1 << 20, onError: () => {}, request: undefined });
    const decoder = new SSEDecoder();
    const started = decoder.push((await pullInto(stream))!);
    expect(started.map((e) => e.type)).toEqual([EventType.RUN_STARTED]);
    expect(text(await pullInto(stream))).toBe(SSE_KEEP_ALIVE);
    expect(text(await pullInto(stream))).toBe(SSE_KEEP_ALIVE);
    release();
    expect(decoder.push((await pullInto(stream))!).map((e) => e.type)).toEqual([EventType.RUN_FINISHED]);
    expect(await pullInto(stream)).toBeUndefined();
  });

  it("keeps each stream's keep-alive apart when streams share an interval, and an aborted one gets none", async () => {
    const finallyRan: string[] = [];
    const make = (name: string) =>
      agentEventStream({
        agent: async function* (): AsyncGenerator<AguiEventInput> {
          try {
            yield { type: EventType.RUN_STARTED, threadId: "t", runId: name };
            await new Promise(() => {});
          } finally {
            finallyRan.push(name);
          }
        },
        input: runInput({ runId: name }),
        contentType: SSE,
        keepAliveMs: 15,
        maxEventBytes: 1 << 20,
        onError: () => {},
        request: undefined,
      });
    const [a, b] = [make("a"), make("b")];
    await Promise.all([pullInto(a), pullInto(b)]);
    const waitA = pullInto(a);
    const waitB = pullInto(b);
    a.abort();
    expect(await waitA).toBeUndefined();
    expect(text(await waitB)).toBe(SSE_KEEP_ALIVE);
    expect(await pullInto(a)).toBeUndefined();
    b.abort();
    // The agents are stuck in an await that never settles: their finally cannot run, but the
    // streams have ended all the same.
    expect(await pullInto(b)).toBeUndefined();
    expect(finallyRan).toEqual([]);
  });

  it("gives a run whose events are all ready at once in full chunks, every event once, then its end", async () => {
    const input = runInput();
    const events: AguiEventInput[] = [{ type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId }];
    for (let i = 0; i < 200; i++) events.push({ type: EventType.CUSTOM, name: "n", value: i });
    events.push({ type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId });
    const stream = agentEventStream({ agent: () => events, input, contentType: SSE, keepAliveMs: 0, maxEventBytes: 1 << 20, onError: () => {}, request: undefined });
    const decoder = new SSEDecoder();
    const got: unknown[] = [];
    let chunks = 0;
    for (let chunk = await pullInto(stream); chunk !== undefined; chunk = await pullInto(stream)) {
      chunks++;
      got.push(...decoder.push(chunk).map((e) => (e.type === EventType.CUSTOM ? e.value : e.type)));
    }
    expect(got).toEqual([EventType.RUN_STARTED, ...events.slice(1, -1).map((e) => (e as { value: number }).value), EventType.RUN_FINISHED]);
    // At most 64 events a chunk.
    expect(chunks).toBeGreaterThanOrEqual(4);
  });
});
