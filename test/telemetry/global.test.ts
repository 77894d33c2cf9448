/**
 * The default: a handler loads `@opentelemetry/api` by itself and reports to the global providers,
 * found when each run starts. Before an SDK registers them nothing is recorded; after, the same
 * handler's runs are.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import * as api from "@opentelemetry/api";
import { EventType, type AguiEventInput, type RunAgentInput } from "../../src/index.js";
import { createNodeHandler } from "../../src/server/index.js";
import { BINARY, listen, post, readEvents, runInput, type Served } from "../server/helpers.js";
import { makeSdk, until, type Sdk } from "./sdk.js";

async function* agent(input: RunAgentInput): AsyncGenerator<AguiEventInput> {
  yield { type: EventType.RUN_STARTED, threadId: input.threadId, runId: input.runId };
  yield { type: EventType.RUN_FINISHED, threadId: input.threadId, runId: input.runId };
}

let served: Served;
let sdk: Sdk;

beforeAll(async () => {
  sdk = makeSdk();
  // No telemetry option: the default.
  served = await listen(createNodeHandler(agent));
});

afterAll(async () => {
  await served?.close();
});

it("records nothing without an SDK, then the same handler's runs once one is registered: spans first, then metrics", async () => {
  await readEvents(await post(served.url, runInput({ runId: "before" }), BINARY));
  expect(sdk.spans()).toEqual([]);
  // A tracer provider alone: the runs are traced although no meter counts them.
  api.trace.setGlobalTracerProvider(sdk.tracerProvider);
  await readEvents(await post(served.url, runInput({ runId: "traced" }), BINARY));
  await until(() => sdk.spans().length > 0);
  expect(sdk.spans().map((span) => [span.name, span.attributes["agui.run.id"]])).toEqual([["invoke_agent agent", "traced"]]);
  expect(await sdk.sum("agui.runs.started", { "agui.component": "server" })).toBe(0);
  api.metrics.setGlobalMeterProvider(sdk.meterProvider);
  await readEvents(await post(served.url, runInput({ runId: "after" }), BINARY));
  await until(() => sdk.spans().length > 1);
  expect(sdk.spans().map((span) => span.attributes["agui.run.id"])).toEqual(["traced", "after"]);
  expect(await sdk.sum("agui.runs.started", { "agui.component": "server" })).toBe(1);
});
