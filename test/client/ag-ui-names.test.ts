// The values agui-wire/client provides under @ag-ui/client 1.0's names, called with the same inputs
// as theirs (the real @ag-ui/client and @ag-ui/core 1.0, dev dependencies) and compared: results,
// errors, warnings, and whether the input comes back as it is.
import * as theirs from "@ag-ui/client";
import { join } from "node:path";
import { build } from "esbuild";
import fc from "fast-check";
import { firstValueFrom, from, toArray } from "rxjs";
import { afterEach, describe, expect, it, vi } from "vitest";
import * as ours from "../../src/client/index.js";
import type { AguiEventInput, NextAgent, RunAgentInput } from "../../src/client/index.js";
import { runAgentInput, validEvent } from "../fixtures/arbitraries-1.0.js";
import { browserFiles } from "../../scripts/browser-files.js";

afterEach(() => {
  vi.restoreAllMocks();
});

/** What calling `f` gives: its result, or the error it throws (name and message). */
function outcome(f: () => unknown): unknown {
  try {
    return { value: f() };
  } catch (error) {
    return { throws: error instanceof Error ? `${error.name}: ${error.message}` : error };
  }
}

describe("constants", () => {
  it("are theirs", () => {
    expect(ours.AGUI_METADATA_KEY).toBe(theirs.AGUI_METADATA_KEY);
    expect(ours.ACTIVITY_HISTORY_METADATA).toBe(theirs.ACTIVITY_HISTORY_METADATA);
  });
});

describe("AGUIError, AGUIConnectNotImplementedError", () => {
  it("have theirs' messages, names and ancestry", () => {
    const pairs = [
      [new ours.AGUIError("boom"), new theirs.AGUIError("boom")],
      [new ours.AGUIConnectNotImplementedError(), new theirs.AGUIConnectNotImplementedError()],
    ] as const;
    for (const [mine, their] of pairs) {
      expect({ name: mine.name, message: mine.message, error: mine instanceof Error }).toEqual({ name: their.name, message: their.message, error: their instanceof Error });
    }
    expect(new ours.AGUIConnectNotImplementedError()).toBeInstanceOf(ours.AGUIError);
  });
});

describe("randomUUID", () => {
  it("gives version 4 UUIDs, as theirs, each new", () => {
    const v4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    expect(theirs.randomUUID()).toMatch(v4);
    const ids = Array.from({ length: 100 }, () => ours.randomUUID());
    for (const id of ids) expect(id).toMatch(v4);
    expect(new Set(ids).size).toBe(100);
  });
});

describe("structuredClone_", () => {
  it("copies as theirs, and throws where theirs throws", () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    const inputs: unknown[] = [{ a: [1, { b: null }], c: "x" }, [1, [2]], "s", 0, null, undefined, new Date(0), new Map([[1, 2]]), cycle, { f: () => 1 }];
    for (const input of inputs) {
      const mine = outcome(() => ours.structuredClone_(input));
      expect(mine).toEqual(outcome(() => theirs.structuredClone_(input)));
      if (typeof input === "object" && input !== null && "value" in (mine as object)) expect((mine as { value: unknown }).value).not.toBe(input);
    }
  });
});

describe("mergeMetadata", () => {
  it("merges as theirs, returning `existing` itself for no incoming", () => {
    const existing = { a: 1, b: { c: 2 } };
    const inputs: [ours.Metadata | undefined, ours.Metadata | undefined][] = [
      [undefined, undefined],
      [existing, undefined],
      [undefined, { a: 1 }],
      [existing, {}],
      [existing, { b: { d: 3 }, e: null }],
      [{ "ag-ui": { x: [1] } }, { "ag-ui": { y: 2 } }],
      [JSON.parse('{"__proto__": {"p": 1}}') as ours.Metadata, JSON.parse('{"__proto__": {"q": 1}, "r": 2}') as ours.Metadata],
    ];
    for (const [a, b] of inputs) {
      const mine = ours.mergeMetadata(a, b);
      const their = theirs.mergeMetadata(a, b);
      expect(mine).toStrictEqual(their);
      expect({ sameAsExisting: mine === a, sameAsIncoming: mine === b }).toEqual({ sameAsExisting: their === a, sameAsIncoming: their === b });
    }
  });
});

describe("contentToText, contentHasMedia", () => {
  it("answer as theirs", () => {
    const image = { type: "image" as const, source: { type: "url" as const, value: "https://x/y.png" } };
    const inputs: (string | ours.ContentPart[] | undefined)[] = [
      undefined,
      "",
      "plain",
      [],
      [{ type: "text", text: "a" }, image, { type: "text", text: "b" }],
      [image],
      [{ type: "text", text: "" }],
    ];
    for (const input of inputs) {
      expect(ours.contentToText(input)).toBe(theirs.contentToText(input));
      expect(ours.contentHasMedia(input)).toBe(theirs.contentHasMedia(input));
    }
  });
});

describe("token usage", () => {
  const labels = [{}, { provider: "openai" }, { provider: "anthropic", model: "claude" }];
  const langChain: unknown[] = [
    undefined,
    null,
    0,
    "usage",
    {},
    { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
    { input_tokens: 10, input_token_details: { cache_read: 4, cache_creation: 2 }, output_token_details: { reasoning: 3 } },
    { input_tokens: Number.NaN, output_tokens: undefined },
    { input_tokens: 1.5, output_tokens: -2 },
    { input_token_details: null, output_token_details: "x", total_tokens: 0 },
  ];
  const aiSdk: unknown[] = [
    undefined,
    {},
    { inputTokens: 10, outputTokens: 5, totalTokens: 15, reasoningTokens: 2, cachedInputTokens: 1 },
    { inputTokens: 10, inputTokenDetails: { cacheReadTokens: 3, cacheWriteTokens: 4 }, outputTokenDetails: { reasoningTokens: 6 } },
    { reasoningTokens: 1, outputTokenDetails: { reasoningTokens: 6 }, cachedInputTokens: 2, inputTokenDetails: { cacheReadTokens: 9 } },
    { inputTokens: Number.NaN, outputTokens: undefined },
    { inputTokens: Infinity },
  ];

  it("warns about an unusable count once per count and process, in theirs' words", () => {
    // First of the file's usage tests: the once-per-process memory of both sides is still empty.
    const bad = [{ inputTokens: "7" }, { inputTokens: null, outputTokens: Infinity }, { totalTokens: {}, reasoningTokens: true }, { inputTokens: "8" }];
    const warnings = (f: (usage: unknown) => unknown) => {
      const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
      for (const usage of bad) f(usage);
      const said = warn.mock.calls.map((call) => call.join(" "));
      warn.mockRestore();
      return said;
    };
    const ourWarnings = warnings((usage) => ours.tokenUsageFromAiSdkUsage(usage, {}));
    expect(ourWarnings).toHaveLength(4);
    expect(ourWarnings).toEqual(warnings((usage) => theirs.tokenUsageFromAiSdkUsage(usage, {})));
  });

  it("maps LangChain's and the AI SDK's usage as theirs", () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    for (const label of labels) {
      for (const input of langChain) expect(ours.tokenUsageFromLangChainMetadata(input, label)).toStrictEqual(theirs.tokenUsageFromLangChainMetadata(input, label));
      for (const input of aiSdk) expect(ours.tokenUsageFromAiSdkUsage(input, label)).toStrictEqual(theirs.tokenUsageFromAiSdkUsage(input, label));
    }
  });

  it("aggregates as theirs", () => {
    const inputs: ours.TokenUsage[][] = [
      [],
      [{ inputTokens: 1 }],
      [
        { provider: "a", model: "m", inputTokens: 1, outputTokens: 2 },
        { provider: "b", inputTokens: 5 },
        { provider: "a", model: "m", inputTokens: 3, cacheWriteInputTokens: 4 },
        { model: "m", totalTokens: 0 },
        { provider: "a b" },
        { provider: "a", model: "b", reasoningTokens: 1 },
      ],
    ];
    for (const input of inputs) expect(ours.aggregateTokenUsage(input)).toStrictEqual(theirs.aggregateTokenUsage(input));
  });
});

/** Every path to a key of an object in `value` (in arrays and opaque JSON too). */
function keyPaths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.flatMap((item, i) => keyPaths(item, [...at, i]));
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, field]) => [[...at, key], ...keyPaths(field, [...at, key])]);
}

/** A copy of `value` with the values at `paths` set to null. */
function nullAt(value: unknown, paths: (string | number)[][]): unknown {
  const copy = structuredClone(value);
  for (const path of paths) {
    let node = copy as Record<string | number, unknown>;
    for (const key of path.slice(0, -1)) node = node?.[key] as Record<string | number, unknown>;
    if (node && typeof node === "object") node[path.at(-1)!] = null;
  }
  return copy;
}

/** A valid 1.0 value with some of its fields, at any depth, set to null. */
const withNulls = (arbitrary: fc.Arbitrary<unknown>) => arbitrary.chain((value) => fc.subarray(keyPaths(value)).map((paths) => nullAt(value, paths)));

describe("omitOptionalNulls", () => {
  // How many comparisons removed something: the properties must not pass on values left alone.
  let changed = 0;
  const compare = (value: unknown, root: "Event" | "RunAgentInput") => {
    const before = structuredClone(value);
    const mine = ours.omitOptionalNulls(value, root);
    const their = theirs.omitOptionalNulls(value, root);
    if (their !== value) changed++;
    expect(mine).toStrictEqual(their);
    expect(mine === value).toBe(their === value);
    expect(value).toStrictEqual(before);
  };

  it("removes the same nulls as theirs from events", () => {
    changed = 0;
    fc.assert(fc.property(withNulls(validEvent), (event) => compare(event, "Event")), { numRuns: 500 });
    expect(changed).toBeGreaterThan(50);
  });

  it("removes the same nulls as theirs from run requests", () => {
    changed = 0;
    fc.assert(fc.property(withNulls(runAgentInput), (input) => compare(input, "RunAgentInput")), { numRuns: 300 });
    expect(changed).toBeGreaterThan(30);
  });

  it("leaves what it does not know as theirs does", () => {
    const inputs: [unknown, "Event" | "RunAgentInput"][] = [
      [null, "Event"],
      ["RUN_STARTED", "Event"],
      [[{ type: "RAW", source: null }], "Event"],
      [{ type: "THINKING_START", title: null }, "Event"],
      [{ type: "RAW", event: null, source: null, extra: null }, "Event"],
      [{ type: "STATE_SNAPSHOT", snapshot: { a: null }, timestamp: null }, "Event"],
      [{ threadId: "t", runId: "r", messages: null, tools: null, state: null, forwardedProps: null }, "RunAgentInput"],
    ];
    for (const [value, root] of inputs) compare(value, root);
  });
});

describe("getRunOutcome, isRecognizedEvent", () => {
  it("answer as theirs", () => {
    const finished = [
      { type: "RUN_FINISHED", threadId: "t", runId: "r" },
      { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "cancelled" } },
      { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "interrupt", interrupts: [{ id: "i", reason: "r" }] } },
    ] as ours.RunFinishedEvent[];
    for (const event of finished) expect(ours.getRunOutcome(event)).toBe(theirs.getRunOutcome(event as theirs.RunFinishedEvent));
    for (const type of [...ours.EVENT_TYPES, "THINKING_START", "run_started", "", "toString", "__proto__"]) {
      expect(ours.isRecognizedEvent({ type })).toBe(theirs.isRecognizedEvent({ type }));
    }
  });
});

describe("authoritativeActivityTypes, withAuthoritativeActivityTypes", () => {
  const activity = { id: "a", role: "activity" as const, activityType: "plan", content: {} };
  const user = { id: "u", role: "user" as const, content: "hi" };
  const snapshots = [
    { messages: [user] },
    { messages: [user, activity] },
    { messages: [user], metadata: {} },
    { messages: [user], metadata: { "@ag-ui/client": null } },
    { messages: [user], metadata: { "@ag-ui/client": [] } },
    { messages: [user], metadata: { "@ag-ui/client": {} } },
    { messages: [activity], metadata: { "@ag-ui/client": { other: 1 } } },
    { messages: [user], metadata: { "@ag-ui/client": { authoritativeActivityTypes: null } } },
    { messages: [user], metadata: { "@ag-ui/client": { authoritativeActivityTypes: ["plan", "plan"] } } },
    { messages: [user], metadata: { "@ag-ui/client": { authoritativeActivityTypes: ["plan", 1] } } },
    { messages: [user], metadata: { "@ag-ui/client": { authoritativeActivityTypes: "plan", keep: true }, mine: 2 } },
  ].map((fields) => ({ type: "MESSAGES_SNAPSHOT" as const, ...fields }) as ours.MessagesSnapshotEvent);

  it("read and write the hint as theirs", () => {
    for (const snapshot of snapshots) {
      const before = structuredClone(snapshot);
      const their = snapshot as unknown as theirs.MessagesSnapshotEvent;
      expect(ours.authoritativeActivityTypes(snapshot)).toStrictEqual(theirs.authoritativeActivityTypes(their));
      for (const types of [[], ["plan"], ["search", "plan"]]) {
        expect(ours.withAuthoritativeActivityTypes(snapshot, types)).toStrictEqual(theirs.withAuthoritativeActivityTypes(their, types));
      }
      expect(snapshot).toStrictEqual(before);
    }
  });
});

describe("FilterToolCallsMiddleware", () => {
  const input: RunAgentInput = { threadId: "t", runId: "r", messages: [], tools: [], context: [] };
  const call = (id: string, name: string, result = true): AguiEventInput[] => [
    { type: "TOOL_CALL_START", toolCallId: id, toolCallName: name },
    { type: "TOOL_CALL_ARGS", toolCallId: id, delta: "{}" },
    { type: "TOOL_CALL_END", toolCallId: id },
    ...(result ? [{ type: "TOOL_CALL_RESULT" as const, messageId: `m-${id}`, toolCallId: id, content: "ok" }] : []),
  ];
  const run = (runId: string, ...events: AguiEventInput[][]): AguiEventInput[] => [
    { type: "RUN_STARTED", threadId: "t", runId },
    ...events.flat(),
    { type: "RUN_FINISHED", threadId: "t", runId },
  ];
  const streams: AguiEventInput[][] = [
    run("r1", call("c1", "search"), call("c2", "delete"), [{ type: "TEXT_MESSAGE_CHUNK", messageId: "m", delta: "hi" }]),
    run("r1", [{ type: "TOOL_CALL_CHUNK", toolCallId: "k", toolCallName: "delete", delta: "{" }, { type: "TOOL_CALL_CHUNK", toolCallId: "k", delta: "}" }], call("c3", "search")),
    // A call left without its result, then a second run reusing its id for an allowed tool.
    [...run("r1", call("c1", "delete", false)), ...run("r2", call("c1", "search"))],
    // A call reusing the id of a filtered call that got its result.
    run("r1", call("c1", "delete"), call("c1", "search")),
  ];
  const configs = [{ disallowedToolCalls: ["delete"] }, { allowedToolCalls: ["search"] }, { allowedToolCalls: [] }];

  const ourRun = async (config: ours.FilterToolCallsConfig, events: AguiEventInput[]) => {
    const next = { run: async function* () { yield* events; }, messages: [], state: {} } as unknown as NextAgent;
    const out = [];
    for await (const event of new ours.FilterToolCallsMiddleware(config).run(input, next)) out.push(event);
    return out;
  };
  const theirRun = (config: ours.FilterToolCallsConfig, events: AguiEventInput[]) => {
    const next = { run: () => from(events) } as unknown as theirs.AbstractAgent;
    return firstValueFrom(new theirs.FilterToolCallsMiddleware(config).run(input as theirs.RunAgentInput, next).pipe(toArray()));
  };

  it("lets through the same events as theirs", async () => {
    let dropped = 0;
    for (const config of configs) {
      for (const events of streams) {
        const mine = await ourRun(config, events);
        expect(mine).toStrictEqual(await theirRun(config, events));
        if (mine.length < events.length) dropped++;
      }
    }
    expect(dropped).toBeGreaterThan(6);
  });

  it("refuses a config with both lists or neither, in theirs' words", () => {
    for (const config of [{ allowedToolCalls: ["a"], disallowedToolCalls: ["b"] }, {}, { allowedToolCalls: undefined }]) {
      const make = (Class: new (config: ours.FilterToolCallsConfig) => unknown) => outcome(() => new Class(config as unknown as ours.FilterToolCallsConfig));
      expect(make(ours.FilterToolCallsMiddleware)).toEqual(make(theirs.FilterToolCallsMiddleware));
    }
  });
});

describe("compactEvents", () => {
  const id = (ids: string[]) => fc.constantFrom(...ids);
  const metadata = fc.option(fc.dictionary(fc.constantFrom("a", "b", "ag-ui"), fc.oneof(fc.integer(), fc.constant(null)), { maxKeys: 2, noNullPrototype: true }), { nil: undefined });
  const withMeta = <T extends Record<string, unknown>>(event: fc.Arbitrary<T>) =>
    fc.tuple(event, metadata).map(([e, m]) => (m === undefined ? e : { ...e, metadata: m }) as T);
  const event = withMeta<Record<string, unknown>>(
    fc.oneof(
      fc.record({ type: fc.constant("TEXT_MESSAGE_START"), messageId: id(["m1", "m2"]), role: fc.constantFrom("assistant", "user") }),
      fc.record({ type: fc.constant("TEXT_MESSAGE_CONTENT"), messageId: id(["m1", "m2"]), delta: fc.string({ minLength: 1, maxLength: 3 }) }),
      fc.record({ type: fc.constant("TEXT_MESSAGE_END"), messageId: id(["m1", "m2"]) }),
      fc.record({ type: fc.constant("TOOL_CALL_START"), toolCallId: id(["t1", "t2"]), toolCallName: id(["search", "read"]) }),
      fc.record({ type: fc.constant("TOOL_CALL_ARGS"), toolCallId: id(["t1", "t2"]), delta: fc.string({ maxLength: 3 }) }),
      fc.record({ type: fc.constant("TOOL_CALL_END"), toolCallId: id(["t1", "t2"]) }),
      fc.record({ type: fc.constant("TOOL_CALL_RESULT"), messageId: id(["r1"]), toolCallId: id(["t1", "t2"]), content: fc.constant("ok") }),
      fc.record({ type: fc.constant("STATE_SNAPSHOT"), snapshot: fc.dictionary(fc.constantFrom("x", "y"), fc.integer(), { maxKeys: 2, noNullPrototype: true }) }),
      fc.record({
        type: fc.constant("STATE_DELTA"),
        delta: fc.array(fc.record({ op: fc.constantFrom("add", "replace"), path: fc.constantFrom("/x", "/y", "/z"), value: fc.integer() }), { maxLength: 2 }),
      }),
      fc.record({ type: fc.constantFrom("RUN_STARTED", "RUN_FINISHED"), threadId: fc.constant("t"), runId: fc.constant("r") }),
      fc.record({ type: fc.constant("RUN_ERROR"), message: fc.constant("boom") }),
      fc.record({ type: fc.constant("STEP_STARTED"), stepName: fc.constant("s") }),
      fc.record({ type: fc.constant("CUSTOM"), name: fc.constant("c"), value: fc.integer() }),
      fc.record({ type: fc.constant("TEXT_MESSAGE_CHUNK"), messageId: id(["m1"]), delta: fc.constant("c") }),
    ),
  );

  it("compacts as theirs", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    let shorter = 0;
    fc.assert(
      fc.property(fc.array(event, { maxLength: 25 }).map((events) => JSON.parse(JSON.stringify(events)) as Record<string, unknown>[]), (events) => {
        const before = structuredClone(events);
        const mine = ours.compactEvents(events as ours.BaseEvent[]);
        expect(mine).toStrictEqual(theirs.compactEvents(events as theirs.BaseEvent[]));
        expect(events).toStrictEqual(before);
        if (mine.length < events.length) shorter++;
      }),
      { numRuns: 1000 },
    );
    expect(shorter).toBeGreaterThan(100);
    warn.mockRestore();
  });

  it("warns about a delta that does not apply, and skips it, as theirs", () => {
    const events = [
      { type: "STATE_SNAPSHOT", snapshot: { a: 1 } },
      { type: "STATE_DELTA", delta: [{ op: "replace", path: "/missing/deep", value: 2 }] },
      { type: "STATE_DELTA", delta: [{ op: "add", path: "/b", value: 3 }] },
    ] as ours.AguiEvent[];
    const warnings = (compact: (events: ours.AguiEvent[]) => unknown) => {
      const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
      const result = compact(events);
      const said = warn.mock.calls.map((call) => String(call[0]).split("\nError:")[0]);
      warn.mockRestore();
      return { result, said };
    };
    expect(warnings(ours.compactEvents)).toStrictEqual(warnings((e) => theirs.compactEvents(e as theirs.BaseEvent[])));
  });
});

describe("the HttpAgent browser bundle", () => {
  // The modules behind these names, which `export { HttpAgent }` must leave out (tree-shaken).
  const modules = ["ag-ui-types", "capabilities", "ag-ui-errors", "metadata", "activity-history", "content-text", "token-usage", "omit-nulls", "ag-ui-utils", "filter-tool-calls", "compact-events", "ag-ui-names"];

  it("holds nothing of them", async () => {
    const root = join(import.meta.dirname, "..", "..");
    const result = await build({
      stdin: { contents: 'export { HttpAgent } from "./src/client/index.ts";', resolveDir: root, loader: "ts", sourcefile: "entry.ts" },
      bundle: true,
      minify: true,
      platform: "browser",
      format: "esm",
      write: false,
      logLevel: "silent",
      metafile: true,
      plugins: [browserFiles()],
    });
    const bundled = Object.values(result.metafile.outputs).flatMap((output) =>
      Object.entries(output.inputs)
        .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
        .map(([input]) => input),
    );
    expect(bundled.some((input) => input.endsWith("src/client/http-agent.ts"))).toBe(true);
    expect(bundled.filter((input) => modules.some((module) => input.endsWith(`src/client/${module}.ts`)))).toEqual([]);
  }, 60_000);
});
