/**
 * Reduce suite: what a front end pays per run to turn events it already holds into `messages` and
 * `state`, ours against `@ag-ui/client` 1.0, on the same events: one assistant message of N text
 * deltas (N = 1,000 and 10,000: does the time per event stay flat as the message grows?), the
 * mixed trace (one realistic run) and the 1.0 trace (an AG-UI 1.0 session of two runs).
 *
 * The reference is their `AbstractAgent.runAgent` on an agent whose `run()` replays the events
 * (`from(events)`): what a front end built on `@ag-ui/client` runs for every run once the bytes are
 * decoded (their HttpAgent decodes with `parseProtoStream`/`parseSSEStream`, which do not
 * validate). It validates every event (`enforceEvents`: zod parse), expands chunks
 * (`transformChunks`), checks the order (`verifyEvents`), reduces (`defaultApplyEvents`, which
 * copies the message list per delta) and publishes `messages`/`state`, then clones the messages
 * for `newMessages`. Ours, doing the same work: `parseEvent` (validation), `EventVerifier.push`,
 * `ChunkExpander.expand` and `RunState.apply` on each event, `EventVerifier.end` at the end (which
 * checks more than theirs: that the last run ended). Both start from a fresh agent / fresh state
 * per call, and both end with the same messages and state (checked before timing).
 *
 * Two more rows isolate the reducers: ours `ChunkExpander` + `RunState` on events parsed
 * beforehand, theirs `transformChunks` + `defaultApplyEvents` (no subscribers) consumed with rxjs.
 */
import { AbstractAgent, defaultApplyEvents, transformChunks } from "@ag-ui/client";
import { isDeepStrictEqual } from "node:util";
import { from, lastValueFrom, type Observable } from "rxjs";
import { ChunkExpander, EventVerifier, RunState } from "../../src/client/index.js";
import { parseEvent, type AguiEvent, type AguiEventInput } from "../../src/index.js";
import { rate, ratio, type Table } from "../format.js";
import { consume, measureGroups, valuesOf, type Budget, type Measurement, type Suite, type TaskGroup } from "../suite.js";
import { runTrace, runTrace10 } from "../trace.js";

const utf8 = new TextEncoder();

/** Deltas in the two one-message groups. */
const MESSAGE_SIZES = [1_000, 10_000];

/** An `@ag-ui/client` agent whose run replays `events`, as a test double or a local agent would. */
class Replay extends AbstractAgent {
  readonly #events: readonly AguiEventInput[];
  constructor(events: readonly AguiEventInput[]) {
    super({ threadId: "t" });
    this.#events = events;
  }
  run(): ReturnType<AbstractAgent["run"]> {
    return from(this.#events) as unknown as ReturnType<AbstractAgent["run"]>;
  }
}

/**
 * One run holding one assistant message of `n` text deltas. The deltas are those of the mixed
 * trace's assistant messages, cycled, so the message grows as a real one does.
 */
export function messageTrace(n: number): AguiEventInput[] {
  const deltas = runTrace().flatMap((e) => (e.type === "TEXT_MESSAGE_CONTENT" ? [e.delta] : []));
  return [
    { type: "RUN_STARTED", threadId: "t", runId: "r" },
    { type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant" },
    ...Array.from({ length: n }, (_, i): AguiEventInput => ({ type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: deltas[i % deltas.length]! })),
    { type: "TEXT_MESSAGE_END", messageId: "m" },
    { type: "RUN_FINISHED", threadId: "t", runId: "r" },
  ];
}

/** Ours, as a front end runs it: validate, verify, expand chunks, reduce. */
function oursFull(events: readonly AguiEventInput[]): RunState {
  const verifier = new EventVerifier();
  const expander = new ChunkExpander();
  const run = new RunState();
  for (const input of events) {
    const event = parseEvent(input);
    verifier.push(event);
    for (const e of expander.expand(event)) run.apply(e);
  }
  verifier.end();
  return run;
}

/** Ours, the reducer alone, on events parsed beforehand. */
function oursReduce(events: readonly AguiEvent[]): RunState {
  const expander = new ChunkExpander();
  const run = new RunState();
  for (const event of events) for (const e of expander.expand(event)) run.apply(e);
  return run;
}

/** Theirs, as a front end runs it: `runAgent` on a fresh agent. */
async function theirsRunAgent(events: readonly AguiEventInput[]): Promise<{ messages: unknown; state: unknown }> {
  const agent = new Replay(events);
  consume(await agent.runAgent());
  return { messages: agent.messages, state: agent.state };
}

/** Theirs, the reducer alone: `transformChunks` then `defaultApplyEvents`, no subscribers. */
async function theirsReduce(events: readonly AguiEventInput[]): Promise<unknown> {
  const agent = { messages: [], state: {}, pendingInterrupts: [] };
  const input = { threadId: "t", runId: "r", messages: [], state: {}, tools: [], context: [], forwardedProps: {} };
  const expanded = (from(events) as Observable<never>).pipe(transformChunks(false));
  return lastValueFrom(defaultApplyEvents(input as never, expanded as never, agent as never, []), { defaultValue: undefined });
}

/** Plain data (drops `undefined` fields), so that two reductions compare by value. */
const plain = (v: unknown): unknown => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

/**
 * Runs both full paths once and throws unless they end with the same messages and state: the rows
 * compare the same work only if they compute the same thing.
 */
async function checkSame(id: string, events: readonly AguiEventInput[]): Promise<void> {
  const ours = oursFull(events);
  const theirs = await theirsRunAgent(events);
  // Their agent starts from state {}; ours from undefined: compare only when some event set one.
  const stateSet = events.some((e) => e.type === "STATE_SNAPSHOT" || e.type === "STATE_DELTA");
  if (!isDeepStrictEqual(plain(ours.messages), plain(theirs.messages)) || (stateSet && !isDeepStrictEqual(plain(ours.state), plain(theirs.state)))) {
    throw new Error(`reduce/${id}: ours and @ag-ui/client's runAgent end with different messages or state`);
  }
}

function group(id: string, title: string, events: AguiEventInput[]): TaskGroup {
  const parsed = events.map((e) => parseEvent(e));
  const n = events.length;
  const bytes = events.reduce((sum, e) => sum + utf8.encode(JSON.stringify(e)).length, 0);
  return {
    id,
    title,
    reference: "ag-run-agent",
    tasks: [
      { key: "ours", label: "agui-wire parseEvent + EventVerifier + ChunkExpander + RunState", impl: "ours", validates: true, events: n, bytes, fn: () => consume(oursFull(events)) },
      { key: "ag-run-agent", label: "@ag-ui/client runAgent", impl: "peer", validates: true, events: n, bytes, fn: () => theirsRunAgent(events) },
      { key: "ours-reduce", label: "agui-wire ChunkExpander + RunState", impl: "ours", validates: false, events: n, bytes, fn: () => consume(oursReduce(parsed)) },
      { key: "ag-reduce", label: "@ag-ui/client transformChunks + defaultApplyEvents", impl: "peer", validates: false, events: n, bytes, fn: () => theirsReduce(events) },
    ],
  };
}

/** Nanoseconds per event of a measurement. */
const nsPerEvent = (m: Measurement | undefined): number => (m && !m.error ? 1e9 / m.eventsPerSec : NaN);
const ns = (n: number): string => (Number.isFinite(n) ? (n >= 100 ? n.toFixed(0) : n.toFixed(1)) : "-");

const suite: Suite = {
  name: "reduce",
  description: "events to messages and state, as a front end pays per run: ours against @ag-ui/client 1.0's runAgent, on one growing message and two realistic runs",
  async run(ctx) {
    const budget: Budget = ctx.quick
      ? { time: 30, iterations: 2, warmupTime: 10, warmupIterations: 1 }
      : { time: 1000, iterations: 10, warmupTime: 300, warmupIterations: 3 };
    const trace = runTrace();
    const trace10 = runTrace10();
    const inputs: [string, string, AguiEventInput[]][] = [
      ...MESSAGE_SIZES.map((n): [string, string, AguiEventInput[]] => [`message ${n / 1000}k`, `one message of ${n.toLocaleString("en")} text deltas`, messageTrace(n)]),
      ["mixed", `mixed trace (${trace.length} events, one realistic run)`, trace],
      ["1.0", `1.0 trace (${trace10.length} events, an AG-UI 1.0 session of two runs)`, trace10],
    ];
    for (const [id, , events] of inputs) await checkSame(id, events);
    const groups = inputs.map(([id, title, events]) => group(id, title, events));

    const measurements = await measureGroups("reduce", groups, budget, ctx);
    const get = (g: string, key: string) => measurements.find((m) => m.group === g && m.key === key);
    const main: Table = {
      title: "Events to messages and state, one run per call: events/s; x: ours over theirs on the same events",
      columns: [
        { header: "events" },
        { header: "ours (full)", align: "right" },
        { header: "runAgent", align: "right" },
        { header: "x runAgent", align: "right" },
        { header: "ours (reducer)", align: "right" },
        { header: "their reducer", align: "right" },
        { header: "x their reducer", align: "right" },
      ],
      rows: groups.map((g) => {
        const cell = (key: string) => {
          const m = get(g.id, key);
          return m && !m.error ? rate(m.eventsPerSec) : `failed${m?.error ? `: ${m.error}` : ""}`;
        };
        const over = (a: string, b: string) => {
          const x = get(g.id, a);
          const y = get(g.id, b);
          return x && y && !x.error && !y.error ? ratio(x.eventsPerSec / y.eventsPerSec) : "-";
        };
        return [g.title, cell("ours"), cell("ag-run-agent"), over("ours", "ag-run-agent"), cell("ours-reduce"), cell("ag-reduce"), over("ours-reduce", "ag-reduce")];
      }),
    };
    const [small, large] = MESSAGE_SIZES.map((n) => `message ${n / 1000}k`) as [string, string];
    const growth: Table = {
      title: `Time per event as the message grows: ns/event at ${MESSAGE_SIZES[0]!.toLocaleString("en")} and ${MESSAGE_SIZES[1]!.toLocaleString("en")} deltas (flat = 1.00x)`,
      columns: [{ header: "task" }, { header: `ns/event, ${small}`, align: "right" }, { header: `ns/event, ${large}`, align: "right" }, { header: `${large} / ${small}`, align: "right" }],
      rows: groups[0]!.tasks.map((t) => {
        const a = nsPerEvent(get(small, t.key));
        const b = nsPerEvent(get(large, t.key));
        return [t.label, ns(a), ns(b), ratio(b / a)];
      }),
    };
    const values = valuesOf(measurements);
    return {
      tables: [main, growth],
      values,
      measurements,
      charts: groups.map((g) => ({
        title: `Reduce a run to messages and state (${g.title})`,
        bars: measurements.filter((m) => m.group === g.id).map((m) => ({ label: m.label.replace("parseEvent + EventVerifier + ChunkExpander + RunState", "validate+verify+reduce"), value: m.eventsPerSec, impl: m.impl, reference: m.key === g.reference })),
      })),
      notes: [
        "full: ours = parseEvent (validation) + EventVerifier + ChunkExpander + RunState per event; theirs = AbstractAgent.runAgent on an agent whose run() returns from(events): enforceEvents (zod parse) + transformChunks + verifyEvents + defaultApplyEvents, messages/state published, newMessages cloned. Both end with the same messages and state (checked before timing).",
        "reducer: ours = ChunkExpander + RunState on events parsed beforehand; theirs = transformChunks + defaultApplyEvents with no subscribers, consumed with rxjs. Neither validates nor verifies.",
        "Decoding is not counted (see the stream suite): both start from event objects. A fresh agent (theirs) / fresh RunState (ours) per call.",
      ],
    };
  },
};

export default suite;
