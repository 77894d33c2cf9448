/**
 * A run store as a traced request sees it (src/telemetry/store.ts), with the real SDK: a writer
 * whose lease was lost, a store that fails, appends counted; over the memory store, and a store
 * that fails as a Redis store does when its run was taken or Redis is gone.
 */
import { describe, expect, it } from "vitest";
import { EventType, type AguiEvent } from "../../src/index.js";
import { memoryStore, type RunStore, type RunWriter } from "../../src/server/index.js";
import { RunStoreError, type RunEvent } from "../../src/store/run-store.js";
import { encodeFrame } from "../../src/binary/index.js";
import { componentTelemetry, ServerRequestTrace } from "../../src/telemetry/server.js";
import { makeSdk } from "./sdk.js";

const access = { owner: undefined, tokenHash: "h" };
const entry = (event: AguiEvent): RunEvent => ({ event, frame: encodeFrame(event) });

/** The memory store, whose writers lose their lease on the second append. */
function losingStore(): RunStore {
  const store = memoryStore();
  return {
    ...store,
    create: async (runId, a) => {
      const writer = await store.create(runId, a);
      let appends = 0;
      const losing: RunWriter = {
        runId: writer.runId,
        cancelled: writer.cancelled,
        append: async (events) => {
          if (++appends === 2) throw new RunStoreError("run_lost", "run taken: its lease had expired");
          return writer.append(events);
        },
        end: (last) => writer.end(last),
      };
      return losing;
    },
    read: (...args) => store.read(...args),
    cancel: (...args) => store.cancel(...args),
    close: () => store.close(),
  };
}

describe("a traced request's store", () => {
  it("tells the run's span of its create and appends, and of a lost lease", async () => {
    const sdk = makeSdk();
    const component = componentTelemetry({ api: sdk.api, tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider }, "server", "a")!;
    const trace = ServerRequestTrace.start(component, component.handle.current!, "POST", () => null)!;
    const store = trace.store(losingStore());
    const writer = await store.create("r1", access);
    await writer.append([entry({ type: EventType.RUN_STARTED, threadId: "t", runId: "r1" } as AguiEvent)]);
    await expect(writer.append([entry({ type: EventType.CUSTOM, name: "x", value: 1 } as AguiEvent)])).rejects.toMatchObject({ code: "run_lost" });
    await writer.end();
    trace.answered(503, {}, undefined);
    const [span] = sdk.spans();
    expect(span!.events.map((event) => [event.name, event.attributes])).toEqual([
      ["agui.store.create", {}],
      ["agui.store.append", { "agui.events": 1 }],
      ["agui.store.lease_lost", { "error.type": "run_lost" }],
    ]);
    expect(await sdk.sum("agui.store.errors", { "error.type": "run_lost" })).toBe(1);
  });

  it("counts a store that cannot be reached, by its code", async () => {
    const sdk = makeSdk();
    const component = componentTelemetry({ api: sdk.api, tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider }, "server", "a")!;
    const trace = ServerRequestTrace.start(component, component.handle.current!, "GET", () => null)!;
    const gone = async (): Promise<never> => {
      throw new RunStoreError("store_unavailable", "redisStore: could not read a run: expected Redis to answer, found connect ECONNREFUSED 127.0.0.1:6379");
    };
    const store = trace.store({ create: gone, read: gone, cancel: gone, close: async () => {} });
    await expect(store.read("r1", -1, access)).rejects.toMatchObject({ code: "store_unavailable" });
    trace.answered(503, {}, undefined);
    expect(sdk.spans()[0]!.events.map((event) => event.name)).toEqual(["agui.store.error"]);
    expect(await sdk.sum("agui.store.errors", { "agui.component": "server", "error.type": "store_unavailable" })).toBe(1);
    expect(sdk.spans()[0]!.attributes).toMatchObject({ "agui.run.id": "r1", "error.type": "503" });
  });
});
