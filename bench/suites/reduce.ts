/**
 * Reduce suite: what a front end pays per run to turn events it already holds into `messages` and
 * `state`, ours against `@ag-ui/client` 1.0, on the same events: one assistant message of N text
 * deltas (N = 1,000 and 10,000: does the time per event stay flat as the message grows?), the
 * mixed trace (one realistic run) and the 1.0 trace (an AG-UI 1.0 session of two runs).
 *
 * Both sides run the same thing: `AbstractAgent.runAgent` (ours from agui-wire/client, theirs from
 * `@ag-ui/client`) on a fresh agent whose `run()` replays the events as `from(events)` (an rxjs
 * observable, which ours accepts as theirs does), with the same one subscriber (an `onEvent`
 * that counts). That is what a front end pays for every run once the bytes are decoded, and both
 * pay all of it: validation of every event (theirs `enforceEvents`, a zod parse; ours
 * `parseEvent`), order checks (`verifyEvents`), chunk expansion, reduction (theirs
 * `defaultApplyEvents`, which copies the message list per event; ours `RunState`, in place),
 * subscriber callbacks and the published `messages`/`state`, then copies of the new messages for
 * `newMessages`. Both end with the same messages and state and hear the same number of events
 * (checked before timing).
 *
 * More rows split the cost: ours without `runAgent` (`parseEvent` + `EventVerifier` +
 * `ChunkExpander` + `RunState` in a plain loop: the work without the async plumbing and the
 * callbacks), and the reducers alone: ours `ChunkExpander` + `RunState` on events parsed
 * beforehand, theirs `transformChunks` + `defaultApplyEvents` (no subscribers) consumed with rxjs.
 */
import { AbstractAgent as TheirAgent, defaultApplyEvents, transformChunks } from "@ag-ui/client";
import { isDeepStrictEqual } from "node:util";
import { from, lastValueFrom, type Observable } from "rxjs";
import { AbstractAgent, ChunkExpander, EventVerifier, RunState, type AgentSubscriber } from "../../src/client/index.js";
import { parseEvent, type AguiEvent, type AguiEventInput } from "../../src/index.js";
import { rate, ratio, type Table } from "../format.js";
import { pairedSpeeds } from "../paired-rounds.js";
import { consume, measureGroups, valuesOf, type Budget, type Measurement, type Suite, type TaskGroup, type TaskSpec } from "../suite.js";
import { runTrace, runTrace10 } from "../trace.js";

const utf8 = new TextEncoder();

/**
 * Deltas in the two one-message groups; quick mode (CI) stops at 3,000, since @ag-ui/client's
 * runAgent takes seconds on 10,000 (the goals on the 10k row are then not reported).
 */
const messageSizes = (quick: boolean): [number, number] => [1_000, quick ? 3_000 : 10_000];

/** Our agent whose run replays `events`, as theirs does below: the same observable on both sides. */
class OurReplay extends AbstractAgent {
  readonly #events: readonly AguiEventInput[];
  constructor(events: readonly AguiEventInput[]) {
    super({ threadId: "t" });
    this.#events = events;
  }
  run(): ReturnType<AbstractAgent["run"]> {
    return from(this.#events);
  }
}

/** An `@ag-ui/client` agent whose run replays `events`, as a test double or a local agent would. */
class TheirReplay extends TheirAgent {
  readonly #events: readonly AguiEventInput[];
  constructor(events: readonly AguiEventInput[]) {
    super({ threadId: "t" });
    this.#events = events;
  }
  run(): ReturnType<TheirAgent["run"]> {
    return from(this.#events) as unknown as ReturnType<TheirAgent["run"]>;
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

/** The subscriber both sides get: one `onEvent` that counts, as a front end listening to a run has. */
function counter(): { subscriber: AgentSubscriber; count: () => number } {
  let n = 0;
  return { subscriber: { onEvent: () => void n++ }, count: () => n };
}

/** The agent's end: its messages and state, and how many events the subscriber heard. */
interface Outcome {
  messages: unknown;
  state: unknown;
  heard: number;
}

/** Ours, as a front end runs it: `runAgent` on a fresh agent. */
async function oursRunAgent(events: readonly AguiEventInput[]): Promise<Outcome> {
  const agent = new OurReplay(events);
  const { subscriber, count } = counter();
  consume(await agent.runAgent({}, subscriber));
  return { messages: agent.messages, state: agent.state, heard: count() };
}

/** Theirs, as a front end runs it: `runAgent` on a fresh agent. */
async function theirsRunAgent(events: readonly AguiEventInput[]): Promise<Outcome> {
  const agent = new TheirReplay(events);
  const { subscriber, count } = counter();
  consume(await agent.runAgent({}, subscriber as never));
  return { messages: agent.messages, state: agent.state, heard: count() };
}

/** Ours without runAgent: validate, verify, expand chunks, reduce, in a plain loop. */
function oursCore(events: readonly AguiEventInput[]): RunState {
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
 * Runs both sides once and throws unless they end with the same messages and state and their
 * subscriber heard as many events: the rows compare the same work only if they compute the same
 * thing. Ours' pipeline without runAgent must end with the same messages too.
 */
async function checkSame(id: string, events: readonly AguiEventInput[]): Promise<void> {
  const ours = await oursRunAgent(events);
  const theirs = await theirsRunAgent(events);
  const core = oursCore(events);
  const same = (a: unknown, b: unknown) => isDeepStrictEqual(plain(a), plain(b));
  if (!same(ours.messages, theirs.messages) || !same(ours.state, theirs.state) || ours.heard !== theirs.heard) {
    throw new Error(`reduce/${id}: ours and @ag-ui/client's runAgent end with different messages, state or event counts (${ours.heard} and ${theirs.heard} events heard)`);
  }
  if (!same(core.messages, ours.messages)) throw new Error(`reduce/${id}: ours without runAgent ends with other messages than ours' runAgent`);
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
      { key: "ours", label: "agui-wire runAgent", impl: "ours", validates: true, events: n, bytes, fn: () => oursRunAgent(events) },
      { key: "ag-run-agent", label: "@ag-ui/client runAgent", impl: "peer", validates: true, events: n, bytes, fn: () => theirsRunAgent(events) },
      { key: "ours-core", label: "agui-wire parseEvent + EventVerifier + ChunkExpander + RunState", impl: "ours", validates: true, events: n, bytes, fn: () => consume(oursCore(events)) },
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
      ? { time: 5, iterations: 2, warmupTime: 0, warmupIterations: 1 }
      : { time: 1000, iterations: 10, warmupTime: 300, warmupIterations: 3 };
    const trace = runTrace();
    const trace10 = runTrace10();
    const sizes = messageSizes(ctx.quick);
    const inputs: [string, string, AguiEventInput[]][] = [
      ...sizes.map((n): [string, string, AguiEventInput[]] => [`message ${n / 1000}k`, `one message of ${n.toLocaleString("en")} text deltas`, messageTrace(n)]),
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
        { header: "ours runAgent", align: "right" },
        { header: "their runAgent", align: "right" },
        { header: "x runAgent", align: "right" },
        { header: "ours, no runAgent", align: "right" },
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
        return [g.title, cell("ours"), cell("ag-run-agent"), over("ours", "ag-run-agent"), cell("ours-core"), cell("ours-reduce"), cell("ag-reduce"), over("ours-reduce", "ag-reduce")];
      }),
    };
    const [small, large] = sizes.map((n) => `message ${n / 1000}k`) as [string, string];
    const growth: Table = {
      title: `Time per event as the message grows: ns/event at ${sizes[0].toLocaleString("en")} and ${sizes[1].toLocaleString("en")} deltas (flat = 1.00x)`,
      columns: [{ header: "task" }, { header: `ns/event, ${small}`, align: "right" }, { header: `ns/event, ${large}`, align: "right" }, { header: `${large} / ${small}`, align: "right" }],
      rows: groups[0]!.tasks.map((t) => {
        const a = nsPerEvent(get(small, t.key));
        const b = nsPerEvent(get(large, t.key));
        return [t.label, ns(a), ns(b), ratio(b / a)];
      }),
    };
    // The goal's growth, paired (see paired-rounds.ts): the large message against as many events
    // in runs of the small one, both run once per round, the order turning.
    const [few, many] = sizes;
    const smallEvents = messageTrace(few);
    const largeEvents = messageTrace(many);
    const pairs: TaskSpec[] = [
      { key: "small", label: "", impl: "ours", validates: true, events: many, bytes: 0, fn: async () => { for (let i = 0; i < many / few; i++) await oursRunAgent(smallEvents); } },
      { key: "large", label: "", impl: "ours", validates: true, events: many, bytes: 0, fn: () => oursRunAgent(largeEvents) },
    ];
    ctx.progress("[reduce] growth of our runAgent's time per event, paired");
    const pairedGrowth = (await pairedSpeeds(pairs, "large", ["small"], ctx.quick ? 3 : 15))["small"]!;
    growth.rows.push([`agui-wire runAgent, paired: ${many / few} runs of ${small} against one of ${large}, the median over rounds`, "", "", ratio(pairedGrowth)]);
    const values = { ...valuesOf(measurements), "reduce/growth/ours": pairedGrowth };
    return {
      tables: [main, growth],
      values,
      measurements,
      charts: groups.map((g) => ({
        title: `Reduce a run to messages and state (${g.title})`,
        bars: measurements.filter((m) => m.group === g.id).map((m) => ({ label: m.label.replace("parseEvent + EventVerifier + ChunkExpander + RunState", "validate+verify+reduce, no runAgent"), value: m.eventsPerSec, impl: m.impl, reference: m.key === g.reference })),
      })),
      notes: [
        "runAgent: both sides = AbstractAgent.runAgent on a fresh agent whose run() returns from(events), with one subscriber (onEvent, counting): validation (theirs enforceEvents, a zod parse; ours parseEvent), verifyEvents, chunk expansion, reduction (theirs defaultApplyEvents; ours RunState), callbacks, messages/state published, newMessages copied. Both end with the same messages and state and hear as many events (checked before timing).",
        "ours, no runAgent: parseEvent + EventVerifier + ChunkExpander + RunState per event in a plain loop: the same work without the async plumbing and the callbacks.",
        "reducer: ours = ChunkExpander + RunState on events parsed beforehand; theirs = transformChunks + defaultApplyEvents with no subscribers, consumed with rxjs. Neither validates nor verifies.",
        "Decoding is not counted (see the stream suite): both start from event objects.",
      ],
    };
  },
};

export default suite;
