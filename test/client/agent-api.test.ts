/**
 * The parts of the client API around `runAgent` that test/client/agent-differential.test.ts does
 * not drive: subscribe/unsubscribe, addMessage(s), setMessages, setState, clone, middleware,
 * detachActiveRun, abortRun, connectAgent, pending interrupts and buildResumeArray. Each is run
 * through an agent of the real `@ag-ui/client` 1.0 and one of ours with the same calls, and the
 * recorded callback sequences and results compared, wherever theirs behaves the same. Where it
 * does not (theirs' `abortRun` on a local agent does nothing, its `connectAgent` resolves on an
 * agent without `connect`), ours is asserted on its own and the difference named.
 */
import * as theirLib from "@ag-ui/client";
import { Observable, concatMap, filter, from, map, of, type ObservableInput } from "rxjs";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as ourLib from "../../src/client/index.js";
import { AguiWireError, type Interrupt, type Message, type RunAgentInput } from "../../src/client/index.js";
// Not re-exported by agui-wire/client, though AbstractAgent.run's signature names it.
import type { RunContext } from "../../src/index.js";
import { serveAgent, trackServers } from "./helpers.js";

const track = trackServers();

type Lib = typeof theirLib | typeof ourLib;
type Ev = Record<string, unknown>;
type Params = Record<string, unknown>;
/** What a test agent's run returns for an input: an rxjs observable, which both libraries take. */
type Script = (input: RunAgentInput, signal?: AbortSignal) => Observable<Ev>;

const LIBS = [
  ["theirs", theirLib],
  ["ours", ourLib],
] as const;

const CALLBACKS = [
  "onRunInitialized", "onRunFailed", "onRunFinalized", "onEvent", "onRunStartedEvent", "onRunFinishedEvent", "onRunErrorEvent",
  "onStepStartedEvent", "onStepFinishedEvent", "onTextMessageStartEvent", "onTextMessageContentEvent", "onTextMessageEndEvent",
  "onToolCallStartEvent", "onToolCallArgsEvent", "onToolCallEndEvent", "onToolCallResultEvent", "onStateSnapshotEvent",
  "onStateDeltaEvent", "onMessagesSnapshotEvent", "onRawEvent", "onCustomEvent", "onMessagesChanged", "onStateChanged",
  "onNewMessage", "onNewToolCall",
] as const;

const copy = <T>(v: T): T => (v === undefined ? v : structuredClone(v));
/** Lets callbacks that both libraries call in the background (unawaited) finish. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

beforeEach(() => {
  // Theirs logs failures and dropped material; neither is under test here.
  vi.spyOn(console, "warn").mockImplementation(() => {});
  vi.spyOn(console, "error").mockImplementation(() => {});
});
afterEach(() => vi.restoreAllMocks());

/**
 * A subscriber logging `[tag, callback, what it was given]`: the event (type and fields), the
 * message or tool call, messages and state, copied when called; `agent`, `input` and the
 * error (whose class differs between the libraries) left out, `partialToolCallArgs` too (a
 * documented difference).
 */
function recorder(log: unknown[], tag: string): ourLib.AgentSubscriber {
  const subscriber: Record<string, (p: Params) => void> = {};
  for (const name of CALLBACKS) {
    subscriber[name] = (p) => {
      const { agent, input, error, partialToolCallArgs, ...rest } = p;
      void agent, void input, void partialToolCallArgs;
      const entry: Params = copy(rest);
      if (error !== undefined) entry.failed = error instanceof Error;
      log.push([tag, name, entry]);
    };
  }
  return subscriber as ourLib.AgentSubscriber;
}

/** The callback names of a log, for assertions that need only the order. */
const names = (log: unknown[]) => log.map((e) => `${(e as string[])[0]}:${(e as string[])[1]}`);

/** The events one per macrotask, as a network stream delivers them; `hang` leaves it open after. */
function paced(events: readonly Ev[], hang = false, onUnsubscribe?: () => void): Observable<Ev> {
  return new Observable<Ev>((subscriber) => {
    let i = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = () => {
      if (i < events.length) {
        subscriber.next(copy(events[i++]!));
        timer = setTimeout(tick, 0);
      } else if (!hang) subscriber.complete();
    };
    timer = setTimeout(tick, 0);
    return () => {
      clearTimeout(timer);
      onUnsubscribe?.();
    };
  });
}

/** An agent of `lib` whose run is `script`; typed as ours for the calls, which both have. */
function makeAgent(lib: Lib, script: Script, config: ourLib.AgentConfig = {}): ourLib.AbstractAgent {
  const Base = lib.AbstractAgent as unknown as new (config: ourLib.AgentConfig) => ourLib.AbstractAgent;
  class Scripted extends Base {
    override run(input: RunAgentInput, context?: RunContext) {
      return script(input, context?.signal);
    }
  }
  return new Scripted({ threadId: "thread", ...config });
}

const RS = (input: RunAgentInput): Ev => ({ type: "RUN_STARTED", threadId: input.threadId, runId: input.runId });
const RF = (input: RunAgentInput, extra: Ev = {}): Ev => ({ type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId, ...extra });
const text = (id: string, ...deltas: string[]): Ev[] => [
  { type: "TEXT_MESSAGE_START", messageId: id, role: "assistant" },
  ...deltas.map((delta) => ({ type: "TEXT_MESSAGE_CONTENT", messageId: id, delta })),
  { type: "TEXT_MESSAGE_END", messageId: id },
];
/** A short run: a text message, a RAW and a CUSTOM event, a state snapshot. */
const simple: Script = (input) =>
  paced([RS(input), ...text(`a-${input.runId}`, "Hel", "lo"), { type: "RAW", event: { vendor: 1 } }, { type: "CUSTOM", name: "c", value: 1 }, { type: "STATE_SNAPSHOT", snapshot: { turn: input.runId } }, RF(input, { result: "done" })]);

/** Runs `body` with an agent of each library and expects the same returned value from both. */
async function same<T>(body: (lib: Lib, which: "theirs" | "ours") => Promise<T>): Promise<T> {
  const theirs = await body(theirLib, "theirs");
  const ours = await body(ourLib, "ours");
  expect(ours).toEqual(theirs);
  return ours;
}

describe("subscribe, addMessage(s), setMessages, setState (vs @ag-ui/client 1.0)", () => {
  it("subscribe adds a subscriber to every later run; unsubscribe removes it", async () => {
    const log = await same(async (lib) => {
      const log: unknown[] = [];
      const agent = makeAgent(lib, simple);
      const first = agent.subscribe(recorder(log, "first"));
      agent.subscribe(recorder(log, "second"));
      await agent.runAgent({ runId: "r1" });
      first.unsubscribe();
      await agent.runAgent({ runId: "r2" });
      await settle();
      return { log, subscribers: agent.subscribers.length };
    });
    expect(log.subscribers).toBe(1);
    const firstRun = names(log.log).slice(0, names(log.log).indexOf("second:onRunFinalized") + 1);
    expect(firstRun.filter((n) => n.startsWith("first:")).length).toBe(firstRun.filter((n) => n.startsWith("second:")).length);
    expect(names(log.log).slice(firstRun.length).every((n) => n.startsWith("second:"))).toBe(true);
  });

  it("addMessage: onNewMessage, onNewToolCall per tool call of an assistant message, then onMessagesChanged; the message is not copied", async () => {
    const out = await same(async (lib) => {
      const log: unknown[] = [];
      const agent = makeAgent(lib, simple, { initialMessages: [{ id: "u0", role: "user", content: "hi" }] });
      agent.subscribe(recorder(log, "a"));
      agent.subscribe(recorder(log, "b"));
      const assistant: Message = {
        id: "m1",
        role: "assistant",
        content: "calling",
        toolCalls: [
          { id: "t1", type: "function", function: { name: "f", arguments: "{}" } },
          { id: "t2", type: "function", function: { name: "g", arguments: '{"x":1}' } },
        ],
      };
      agent.addMessage(assistant);
      await settle();
      // A tool message has no tool calls of its own to announce.
      agent.addMessage({ id: "m2", role: "tool", toolCallId: "t1", content: "ok" });
      await settle();
      return { log, messages: copy(agent.messages), same: agent.messages[1] === assistant };
    });
    expect(out.same).toBe(true);
    expect(names(out.log)).toEqual([
      "a:onNewMessage", "b:onNewMessage", "a:onNewToolCall", "b:onNewToolCall", "a:onNewToolCall", "b:onNewToolCall", "a:onMessagesChanged", "b:onMessagesChanged",
      "a:onNewMessage", "b:onNewMessage", "a:onMessagesChanged", "b:onMessagesChanged",
    ]);
  });

  it("addMessages: onNewMessage per message (each followed by its tool calls), onMessagesChanged once", async () => {
    const out = await same(async (lib) => {
      const log: unknown[] = [];
      const agent = makeAgent(lib, simple);
      agent.subscribe(recorder(log, "s"));
      agent.addMessages([
        { id: "u1", role: "user", content: "q" },
        { id: "a1", role: "assistant", toolCalls: [{ id: "t1", type: "function", function: { name: "f", arguments: "{}" } }] },
        { id: "r1", role: "tool", toolCallId: "t1", content: "res" },
      ]);
      await settle();
      return { log, messages: copy(agent.messages) };
    });
    expect(names(out.log)).toEqual(["s:onNewMessage", "s:onNewMessage", "s:onNewToolCall", "s:onNewMessage", "s:onMessagesChanged"]);
    expect((out.messages as Message[]).map((m) => m.id)).toEqual(["u1", "a1", "r1"]);
  });

  it("setMessages and setState store copies and tell subscribers in the background, one after another", async () => {
    await same(async (lib) => {
      const log: unknown[] = [];
      const agent = makeAgent(lib, simple);
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      // The first subscriber holds its onStateChanged open: the setter returns regardless, and the
      // second subscriber waits for it.
      agent.subscribe({ ...recorder(log, "slow"), onStateChanged: async () => void (log.push(["slow", "onStateChanged"]), await gate) });
      agent.subscribe(recorder(log, "next"));
      const messages: Message[] = [{ id: "u1", role: "user", content: "x" }];
      agent.setMessages(messages);
      messages.push({ id: "u2", role: "user", content: "y" });
      (messages[0] as { content: string }).content = "changed";
      await settle();
      const state = { list: [1] };
      agent.setState(state);
      state.list.push(2);
      const returned = names(log).length;
      await settle();
      const beforeRelease = names(log).length;
      release();
      await settle();
      return { log, returned, beforeRelease, messages: copy(agent.messages), state: copy(agent.state), sameMessages: agent.messages === messages };
    }).then((out) => {
      expect(out.messages).toEqual([{ id: "u1", role: "user", content: "x" }]);
      expect(out.state).toEqual({ list: [1] });
      expect(out.sameMessages).toBe(false);
      expect(out.beforeRelease).toBe(out.returned);
      expect(names(out.log)).toEqual(["slow:onMessagesChanged", "next:onMessagesChanged", "slow:onStateChanged", "next:onStateChanged"]);
    });
  });
});

describe("clone (vs @ag-ui/client 1.0)", () => {
  const interrupting: Script = (input) =>
    input.resume
      ? paced([RS(input), ...text("after", "resumed"), RF(input)])
      : paced([RS(input), ...text("before", "ask"), RF(input, { outcome: { type: "interrupt", interrupts: [{ id: "i1", reason: "confirm" }] } })]);

  it("copies messages, state and pendingInterrupts: changing the clone leaves the original", async () => {
    await same(async (lib) => {
      const agent = makeAgent(lib, interrupting, { agentId: "agent-1", description: "d", initialState: { n: 1, deep: { list: [1] } }, initialMessages: [{ id: "u", role: "user", content: "hi" }] });
      await agent.runAgent({ runId: "r1" });
      const twin = agent.clone();
      const config = { agentId: twin.agentId, description: twin.description, threadId: twin.threadId, isRunning: twin.isRunning, proto: Object.getPrototypeOf(twin) === Object.getPrototypeOf(agent) };
      (twin.messages[0] as { content: string }).content = "changed";
      twin.messages.push({ id: "x", role: "user", content: "only in the clone" });
      (twin.state as { deep: { list: number[] } }).deep.list.push(2);
      twin.pendingInterrupts[0]!.reason = "changed";
      // The clone answers its interrupt and runs; the original still has it open.
      await twin.runAgent({ runId: "r2", resume: [{ interruptId: "i1", status: "resolved" }] });
      return {
        config,
        original: { messages: copy(agent.messages), state: copy(agent.state), pending: copy(agent.pendingInterrupts) },
        clone: { messages: copy(twin.messages).map((m) => m.id), state: copy(twin.state), pending: copy(twin.pendingInterrupts) },
      };
    }).then((out) => {
      expect(out.config).toEqual({ agentId: "agent-1", description: "d", threadId: "thread", isRunning: false, proto: true });
      expect(out.original).toEqual({
        messages: [{ id: "u", role: "user", content: "hi" }, { id: "before", role: "assistant", content: "ask" }],
        state: { n: 1, deep: { list: [1] } },
        pending: [{ id: "i1", reason: "confirm" }],
      });
      expect(out.clone).toEqual({ messages: ["u", "before", "x", "after"], state: { n: 1, deep: { list: [1, 2] } }, pending: [] });
    });
  });

  it("keeps the subscribers and the middleware (as copied lists)", async () => {
    const out = await same(async (lib) => {
      const log: unknown[] = [];
      const agent = makeAgent(lib, simple);
      agent.subscribe(recorder(log, "shared"));
      const tag = (name: string) =>
        lib === ourLib
          ? async function* (input: RunAgentInput, next: ourLib.NextAgent) {
              yield* next.run({ ...input, forwardedProps: { ...(input.forwardedProps as object), [name]: true } });
            }
          : (input: RunAgentInput, next: { run(i: RunAgentInput): Observable<Ev> }) => next.run({ ...input, forwardedProps: { ...(input.forwardedProps as object), [name]: true } });
      agent.use(tag("before") as never);
      const twin = agent.clone();
      twin.subscribe(recorder(log, "clone-only"));
      twin.use(tag("clone-only") as never);
      await twin.runAgent({ runId: "clone-run" });
      await agent.runAgent({ runId: "original-run" });
      await settle();
      return { log: names(log), subscribers: [agent.subscribers.length, twin.subscribers.length] };
    });
    expect(out.subscribers).toEqual([1, 2]);
    expect(out.log).toContain("shared:onRunFinalized");
    expect(out.log.filter((n) => n === "clone-only:onRunFinalized")).toHaveLength(1);
    expect(out.log.filter((n) => n === "shared:onRunFinalized")).toHaveLength(2);
  });

  it("middleware of the original and the clone both act on the clone's run, the clone's only on its own", async () => {
    await same(async (lib) => {
      const seen: unknown[] = [];
      const agent = makeAgent(lib, (input) => (seen.push(input.forwardedProps), simple(input)));
      const mark = (name: string) =>
        lib === ourLib
          ? (input: RunAgentInput, next: ourLib.NextAgent) => next.run({ ...input, forwardedProps: { ...(input.forwardedProps as object), [name]: true } })
          : (input: RunAgentInput, next: { run(i: RunAgentInput): Observable<Ev> }) => next.run({ ...input, forwardedProps: { ...(input.forwardedProps as object), [name]: true } });
      agent.use(mark("original") as never);
      const twin = agent.clone();
      twin.use(mark("clone") as never);
      await twin.runAgent();
      await agent.runAgent();
      return seen;
    }).then((seen) => expect(seen).toEqual([{ original: true, clone: true }, { original: true }]));
  });

  it("works for a subclass whose constructor takes other arguments", async () => {
    const out = await same(async (lib) => {
      const Base = lib.AbstractAgent as unknown as new (config: ourLib.AgentConfig) => ourLib.AbstractAgent;
      class Greeter extends Base {
        readonly greeting: string;
        constructor(greeting: string, threadId: string) {
          super({ threadId });
          if (typeof greeting !== "string") throw new TypeError("a greeting is needed");
          this.greeting = greeting;
        }
        override run(input: RunAgentInput) {
          // Read from the input, not from `this`: theirs' clone copies only its own fields.
          const who = (input.forwardedProps as { who?: string }).who ?? "nobody";
          return paced([RS(input), ...text(`hello-${input.runId}`, `hello ${who}`), RF(input)]);
        }
      }
      const agent = new Greeter("hi", "t-greet");
      const twin = agent.clone();
      await twin.runAgent({ runId: "r", forwardedProps: { who: "ana" } });
      return {
        isGreeter: twin instanceof Greeter,
        messages: copy(twin.messages),
        original: agent.messages.length,
        threadId: twin.threadId,
        greeting: lib === ourLib ? twin.greeting : "hi",
      };
    });
    expect(out).toEqual({ isGreeter: true, messages: [{ id: "hello-r", role: "assistant", content: "hello ana" }], original: 0, threadId: "t-greet", greeting: "hi" });
  });

  it("an HttpAgent's clone runs against our server, with the same URL and headers and its own abortController", async () => {
    const server = await track(
      serveAgent((input: RunAgentInput) => [
        RS(input) as never,
        ...(text(`reply-${input.runId}`, `${input.messages.length} messages`) as never[]),
        RF(input) as never,
      ]),
    );
    const out = await same(async (lib) => {
      const agent = new lib.HttpAgent({ url: server.url, threadId: "t-http", headers: { "x-who": "ana" }, initialMessages: [{ id: "u1", role: "user", content: "hi" }] }) as unknown as ourLib.HttpAgent;
      await agent.runAgent({ runId: "original" });
      const twin = agent.clone();
      twin.messages.push({ id: "u2", role: "user", content: "again" });
      const result = await twin.runAgent({ runId: "clone" });
      return {
        ownController: twin.abortController !== agent.abortController,
        url: twin.url,
        original: copy(agent.messages),
        clone: copy(twin.messages),
        newMessages: result.newMessages,
      };
    });
    expect(out.ownController).toBe(true);
    expect(out.original.map((m) => m.id)).toEqual(["u1", "reply-original"]);
    expect(out.newMessages).toEqual([{ id: "reply-clone", role: "assistant", content: "3 messages" }]);
    // Four runs (two per library), each with the configured header, the clone's too.
    expect(server.requests.map((r) => r.headers["x-who"])).toEqual(["ana", "ana", "ana", "ana"]);
  });

  it("ours also keeps a subclass's own fields (theirs copies only the base class's)", () => {
    class Named extends ourLib.AbstractAgent {
      constructor(readonly label: string) {
        super();
      }
      run() {
        return [];
      }
    }
    const TheirBase = theirLib.AbstractAgent as unknown as new () => { clone(): { label?: string } };
    class TheirNamed extends TheirBase {
      constructor(readonly label: string) {
        super();
      }
      run() {
        return of();
      }
    }
    expect(new Named("x").clone().label).toBe("x");
    expect(new TheirNamed("x").clone().label).toBeUndefined();
  });
});

describe("middleware (vs @ag-ui/client 1.0)", () => {
  const rich: Script = (input) =>
    paced([
      RS(input),
      { type: "RAW", event: { a: 1 } },
      ...text("m1", "one ", "two"),
      { type: "RAW", event: { b: 2 } },
      { type: "CUSTOM", name: "trail", value: [] },
      { type: "STATE_SNAPSHOT", snapshot: { n: 1 } },
      { type: "STATE_DELTA", delta: [{ op: "replace", path: "/n", value: 2 }] },
      RF(input, { result: input.forwardedProps }),
    ]);

  async function runWith(lib: Lib, middlewares: (which: Lib) => unknown[], script: Script = rich) {
    const log: unknown[] = [];
    const inputs: unknown[] = [];
    const agent = makeAgent(lib, (input) => (inputs.push(copy(input.forwardedProps)), script(input)));
    agent.use(...(middlewares(lib) as never[]));
    agent.subscribe(recorder(log, "s"));
    const result = await agent.runAgent({ runId: "r", forwardedProps: { from: "caller" } });
    await settle();
    return { log, result: copy(result), inputs, messages: copy(agent.messages), state: copy(agent.state) };
  }

  it("a function middleware dropping RAW events: an async generator for ours, rxjs filter for theirs", async () => {
    const out = await same((lib) =>
      runWith(lib, (which) => [
        which === ourLib
          ? async function* (input: RunAgentInput, next: ourLib.NextAgent) {
              for await (const event of next.run(input)) if (event.type !== "RAW") yield event;
            }
          : (input: RunAgentInput, next: theirLib.AbstractAgent) => next.run(input as never).pipe(filter((e) => e.type !== "RAW")),
      ]),
    );
    expect(names(out.log)).not.toContain("s:onRawEvent");
    expect(names(out.log)).toContain("s:onCustomEvent");
  });

  it("a middleware rewriting the input's forwardedProps: the agent gets the new input", async () => {
    const out = await same((lib) =>
      runWith(lib, () => [
        (input: RunAgentInput, next: { run(i: RunAgentInput): unknown }) => next.run({ ...input, forwardedProps: { ...(input.forwardedProps as object), rewritten: true } }),
      ]),
    );
    expect(out.inputs).toEqual([{ from: "caller", rewritten: true }]);
    expect(out.result.result).toEqual({ from: "caller", rewritten: true });
  });

  it("several middlewares: the first added is outermost, in on the way in and last on the way out", async () => {
    const layer = (which: Lib, name: string) => {
      const stamp = (event: Ev): Ev => (event.type === "CUSTOM" ? { ...event, value: [...(event.value as string[]), name] } : event);
      const rewrite = (input: RunAgentInput): RunAgentInput => ({ ...input, forwardedProps: { ...(input.forwardedProps as object), order: [...(((input.forwardedProps as { order?: string[] }).order) ?? []), name] } });
      return which === ourLib
        ? async function* (input: RunAgentInput, next: ourLib.NextAgent) {
            for await (const event of next.run(rewrite(input))) yield stamp(event as unknown as Ev);
          }
        : (input: RunAgentInput, next: theirLib.AbstractAgent) => next.run(rewrite(input) as never).pipe(map((e) => stamp(e as unknown as Ev)));
    };
    const out = await same((lib) => runWith(lib, (which) => [layer(which, "outer"), layer(which, "middle"), layer(which, "inner")]));
    expect(out.inputs).toEqual([{ from: "caller", order: ["outer", "middle", "inner"] }]);
    const custom = out.log.find((e) => (e as string[])[1] === "onCustomEvent") as [string, string, { event: { value: string[] } }];
    expect(custom[2].event.value).toEqual(["inner", "middle", "outer"]);
  });

  it("an rxjs middleware written for theirs, `from(next.run(input)).pipe(filter(...))`, runs on ours unchanged", async () => {
    // One function for both: next.run returns an observable in theirs, an observable async
    // iterable in ours, and rxjs's from() takes either.
    const dropRaw = (input: RunAgentInput, next: { run(input: RunAgentInput): unknown }) =>
      from(next.run(input) as ObservableInput<Ev>).pipe(filter((event) => event.type !== "RAW"));
    const out = await same((lib) => runWith(lib, () => [dropRaw]));
    expect(names(out.log)).not.toContain("s:onRawEvent");
  });

  it("a Middleware subclass using runNext (chunks expanded) and runNextWithState (messages and state after each event)", async () => {
    const chunky: Script = (input) =>
      paced([
        RS(input),
        { type: "TEXT_MESSAGE_CHUNK", messageId: "c1", role: "assistant", delta: "chunk " },
        { type: "TEXT_MESSAGE_CHUNK", delta: "two" },
        { type: "STATE_SNAPSHOT", snapshot: { n: 1 } },
        { type: "STATE_DELTA", delta: [{ op: "add", path: "/m", value: 3 }] },
        ...text("m2", "plain"),
        RF(input),
      ]);
    const custom = (name: string, value: unknown) => ({ type: "CUSTOM", name, value }) as ourLib.AguiEventInput;
    class OurTypes extends ourLib.Middleware {
      async *run(input: RunAgentInput, next: ourLib.NextAgent) {
        for await (const event of this.runNext(input, next)) {
          yield event;
          if (event.type === "TEXT_MESSAGE_END") yield custom("types", event.messageId);
        }
      }
    }
    class OurCounts extends ourLib.Middleware {
      async *run(input: RunAgentInput, next: ourLib.NextAgent) {
        for await (const { event, messages, state } of this.runNextWithState(input, next)) {
          yield event;
          if (event.type === "TEXT_MESSAGE_END" || event.type === "STATE_DELTA") yield custom("after", { messages: copy(messages), state: copy(state) });
        }
      }
    }
    class TheirTypes extends theirLib.Middleware {
      run(input: theirLib.RunAgentInput, next: theirLib.AbstractAgent) {
        return this.runNext(input, next).pipe(concatMap((event) => (event.type === "TEXT_MESSAGE_END" ? of(event, custom("types", (event as unknown as Ev).messageId) as never) : of(event))));
      }
    }
    class TheirCounts extends theirLib.Middleware {
      run(input: theirLib.RunAgentInput, next: theirLib.AbstractAgent) {
        return this.runNextWithState(input, next).pipe(
          concatMap(({ event, messages, state }) => (event.type === "TEXT_MESSAGE_END" || event.type === "STATE_DELTA" ? of(event, custom("after", { messages: copy(messages), state: copy(state) }) as never) : of(event))),
        );
      }
    }
    const out = await same((lib) => runWith(lib, (which) => (which === ourLib ? [new OurCounts(), new OurTypes()] : [new TheirCounts(), new TheirTypes()]), chunky));
    const customs = out.log.filter((e) => (e as string[])[1] === "onCustomEvent").map((e) => (e as [string, string, { event: Ev }])[2].event);
    // The outer (first added) middleware sees the inner one's CUSTOM after the END it follows.
    expect(customs).toEqual([
      { type: "CUSTOM", name: "after", value: { messages: [{ id: "c1", role: "assistant", content: "chunk two" }], state: {} } },
      { type: "CUSTOM", name: "types", value: "c1" },
      { type: "CUSTOM", name: "after", value: { messages: [{ id: "c1", role: "assistant", content: "chunk two" }], state: { n: 1, m: 3 } } },
      { type: "CUSTOM", name: "after", value: { messages: [{ id: "c1", role: "assistant", content: "chunk two" }, { id: "m2", role: "assistant", content: "plain" }], state: { n: 1, m: 3 } } },
      { type: "CUSTOM", name: "types", value: "m2" },
    ]);
  });

  it("ours validates what a middleware yields: an invalid event fails the run with invalid_event", async () => {
    const failures: unknown[] = [];
    const agent = makeAgent(ourLib, rich);
    agent.use(async function* (input, next) {
      for await (const event of next.run(input)) {
        yield event;
        if (event.type === "RUN_STARTED") yield { type: "TEXT_MESSAGE_START" } as never;
      }
    });
    const error = await agent.runAgent({}, { onRunFailed: ({ error }) => void failures.push(error) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AguiWireError);
    expect(error).toMatchObject({ code: "invalid_event" });
    expect(failures).toEqual([error]);
  });
});

describe("detachActiveRun, abortRun, isRunning", () => {
  /** A run that sends a little and then waits: for a caller to detach or abort it. */
  function waiting(unsubscribed: { count: number }): Script {
    return (input) => paced([RS(input), { type: "TEXT_MESSAGE_START", messageId: "w", role: "assistant" }, { type: "TEXT_MESSAGE_CONTENT", messageId: "w", delta: "thinking" }], true, () => unsubscribed.count++);
  }

  it("detachActiveRun: runAgent resolves, onRunFinalized fires, no onRunFailed, the run is cancelled (vs theirs)", async () => {
    const out = await same(async (lib) => {
      const log: unknown[] = [];
      const unsubscribed = { count: 0 };
      const agent = makeAgent(lib, waiting(unsubscribed));
      let contentSeen!: () => void;
      const seen = new Promise<void>((resolve) => (contentSeen = resolve));
      agent.subscribe({ ...recorder(log, "s"), onTextMessageContentEvent: () => contentSeen() });
      const running = agent.runAgent({ runId: "r" });
      await seen;
      const during = agent.isRunning;
      await agent.detachActiveRun();
      const result = await running;
      await settle();
      // Nothing to detach now: resolves at once.
      await agent.detachActiveRun();
      return { log, result: copy(result), during, after: agent.isRunning, unsubscribed: unsubscribed.count, messages: copy(agent.messages) };
    });
    expect(out.during).toBe(true);
    expect(out.after).toBe(false);
    expect(out.unsubscribed).toBe(1);
    expect(names(out.log)).not.toContain("s:onRunFailed");
    expect(names(out.log).at(-1)).toBe("s:onRunFinalized");
    expect(out.result).toEqual({ result: undefined, newMessages: [{ id: "w", role: "assistant", content: "thinking" }] });
  });

  it("abortRun during a local run: the agent's signal fires, onRunFailed hears an aborted AguiWireError, runAgent resolves, isRunning true during and false after", async () => {
    const calls: string[] = [];
    const failures: Error[] = [];
    let signalFired = false;
    let started!: () => void;
    const startedP = new Promise<void>((resolve) => (started = resolve));
    class Slow extends ourLib.AbstractAgent {
      async *run(input: RunAgentInput, { signal }: RunContext) {
        signal.addEventListener("abort", () => (signalFired = true));
        yield RS(input) as never;
        started();
        await new Promise((resolve) => signal.addEventListener("abort", resolve));
      }
    }
    const agent = new Slow();
    const running = agent.runAgent({}, {
      onRunStartedEvent: () => void calls.push("started"),
      onRunFailed: ({ error }) => void (calls.push("failed"), failures.push(error)),
      onRunFinalized: () => void calls.push("finalized"),
    });
    await startedP;
    expect(agent.isRunning).toBe(true);
    agent.abortRun();
    await expect(running).resolves.toEqual({ result: undefined, newMessages: [] });
    expect(agent.isRunning).toBe(false);
    expect(signalFired).toBe(true);
    expect(calls).toEqual(["started", "failed", "finalized"]);
    expect(failures[0]).toBeInstanceOf(AguiWireError);
    expect(failures[0]).toMatchObject({ code: "aborted" });
  });

  it("isRunning is true from onRunInitialized to the last event, false in onRunFinalized and after (vs theirs)", async () => {
    await same(async (lib) => {
      const seen: [string, boolean][] = [];
      const agent = makeAgent(lib, simple);
      agent.subscribe({
        onRunInitialized: ({ agent: a }) => void seen.push(["initialized", a.isRunning]),
        onEvent: ({ event, agent: a }) => void seen.push([event.type, a.isRunning]),
        onRunFinalized: ({ agent: a }) => void seen.push(["finalized", a.isRunning]),
      });
      const before = agent.isRunning;
      const running = agent.runAgent();
      const right = agent.isRunning;
      await running;
      await settle();
      return { before, right, seen, after: agent.isRunning };
    }).then((out) => {
      expect(out.before).toBe(false);
      expect(out.right).toBe(true);
      expect(out.after).toBe(false);
      expect(out.seen.at(0)).toEqual(["initialized", true]);
      expect(out.seen.at(-2)).toEqual(["RUN_FINISHED", true]);
      expect(out.seen.at(-1)).toEqual(["finalized", false]);
    });
  });
});

describe("connectAgent", () => {
  it("on an agent without connect, ours rejects with not_supported before any callback (theirs resolves with nothing)", async () => {
    const calls: string[] = [];
    const subscriber = { onRunInitialized: () => void calls.push("init"), onRunFinalized: () => void calls.push("final") };
    const ours = makeAgent(ourLib, simple);
    const error = await ours.connectAgent({}, subscriber).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AguiWireError);
    expect(error).toMatchObject({ code: "not_supported" });
    expect(calls).toEqual([]);
    expect(ours.isRunning).toBe(false);
    // Theirs swallows its AGUIConnectNotImplementedError and resolves, after the lifecycle callbacks.
    const theirs = makeAgent(theirLib, simple);
    await expect(theirs.connectAgent({}, subscriber)).resolves.toEqual({ result: undefined, newMessages: [] });
  });

  it("a subclass implementing protected connect(input, context) is driven like runAgent (vs theirs)", async () => {
    const out = await same(async (lib) => {
      const log: unknown[] = [];
      const Base = lib.AbstractAgent as unknown as new (config: ourLib.AgentConfig) => ourLib.AbstractAgent;
      const connects: unknown[] = [];
      class Reattaching extends Base {
        override run(): never {
          throw new Error("connectAgent must not call run");
        }
        protected override connect(input: RunAgentInput) {
          connects.push(input.runId);
          return paced([RS(input), ...text("live", "caught ", "up"), { type: "STATE_SNAPSHOT", snapshot: { live: true } }, RF(input, { result: "reattached" })]);
        }
      }
      const agent = new Reattaching({ threadId: "thread" });
      // Middleware is for runs only: connectAgent reads connect() directly, in both.
      agent.use(((input: RunAgentInput) => {
        throw new Error(`no middleware on connect (${input.runId})`);
      }) as never);
      agent.subscribe(recorder(log, "s"));
      const result = await agent.connectAgent({ runId: "c1" }, recorder(log, "call"));
      await settle();
      return { log, result: copy(result), connects, messages: copy(agent.messages), state: copy(agent.state) };
    });
    expect(out.result).toEqual({ result: "reattached", newMessages: [{ id: "live", role: "assistant", content: "caught up" }] });
    expect(out.connects).toEqual(["c1"]);
    expect(names(out.log)).toContain("call:onRunFinalized");
  });
  it("ours passes connect a context whose signal abortRun fires; connectAgent then resolves", async () => {
    let fired = false;
    let started!: () => void;
    const startedP = new Promise<void>((resolve) => (started = resolve));
    class Live extends ourLib.AbstractAgent {
      run(): never {
        throw new Error("not used");
      }
      protected override async *connect(input: RunAgentInput, { signal }: RunContext) {
        yield RS(input) as ourLib.AguiEventInput;
        started();
        await new Promise((resolve) => signal.addEventListener("abort", resolve));
        fired = true;
      }
    }
    const agent = new Live();
    const calls: string[] = [];
    const connecting = agent.connectAgent({}, { onRunFailed: ({ error }) => void calls.push(`failed ${(error as AguiWireError).code}`), onRunFinalized: () => void calls.push("finalized") });
    await startedP;
    expect(agent.isRunning).toBe(true);
    agent.abortRun();
    await expect(connecting).resolves.toEqual({ result: undefined, newMessages: [] });
    await settle();
    expect(fired).toBe(true);
    expect(calls).toEqual(["failed aborted", "finalized"]);
  });
});

describe("pending interrupts, resume and buildResumeArray (vs @ag-ui/client 1.0)", () => {
  const past = "2000-01-01T00:00:00Z";
  const future = "2999-01-01T00:00:00Z";
  const interrupts: Interrupt[] = [
    { id: "live", reason: "confirm", expiresAt: future },
    { id: "old", reason: "confirm", expiresAt: past },
  ];

  it("accepts and refuses the same resumes, with the same messages; the refused ones run nothing", async () => {
    const attempts: (unknown[] | undefined)[] = [
      undefined,
      [{ interruptId: "live", status: "resolved" }],
      [{ interruptId: "live", status: "resolved" }, { interruptId: "old", status: "resolved", payload: { ok: true } }],
      [{ interruptId: "live", status: "cancelled" }, { interruptId: "old", status: "cancelled" }, { interruptId: "unknown", status: "cancelled" }],
    ];
    const out = await same(async (lib) => {
      const runs: string[] = [];
      const calls: string[] = [];
      const agent = makeAgent(lib, (input) => {
        runs.push(input.runId);
        return input.runId === "first"
          ? paced([RS(input), RF(input, { outcome: { type: "interrupt", interrupts } })])
          : paced([RS(input), ...text(`m-${input.runId}`, "ok"), RF(input, { result: input.resume })]);
      });
      agent.subscribe({ onRunInitialized: ({ input }) => void calls.push(`init ${input.runId}`) });
      await agent.runAgent({ runId: "first" });
      const pending = copy(agent.pendingInterrupts);
      const outcomes: unknown[] = [];
      for (const [i, resume] of attempts.entries()) {
        try {
          const r = await agent.runAgent({ runId: `try-${i}`, ...(resume ? { resume: resume as never } : {}) });
          outcomes.push({ resolved: r.result });
        } catch (error) {
          outcomes.push({ refused: (error as Error).message });
          if (lib === ourLib) expect(error).toMatchObject({ code: "pending_interrupts" });
        }
      }
      await settle();
      return { pending, outcomes, runs, calls, after: copy(agent.pendingInterrupts) };
    });
    expect(out.pending).toEqual(interrupts);
    expect(out.outcomes).toEqual([
      { refused: "Thread has 2 pending interrupt(s) not addressed by resume: live, old" },
      { refused: "Thread has 1 pending interrupt(s) not addressed by resume: old" },
      { refused: `Interrupt old expired at ${past} and can no longer be answered. Cancel it to continue the thread.` },
      { resolved: attempts[3] },
    ]);
    expect(out.runs).toEqual(["first", "try-3"]);
    expect(out.after).toEqual([]);
  });

  it("a null payload: theirs keeps it in the entry (and strips it when sending, with a warning), ours leaves it out", () => {
    const responses = { only: { status: "resolved", payload: null } };
    expect(theirLib.buildResumeArray([{ id: "only", reason: "r" }] as never, responses as never)).toEqual([{ interruptId: "only", status: "resolved", payload: null }]);
    expect(ourLib.buildResumeArray([{ id: "only", reason: "r" }], responses as never)).toEqual([{ interruptId: "only", status: "resolved" }]);
  });

  it("isInterruptExpired agrees", () => {
    for (const interrupt of [...interrupts, { id: "none", reason: "r" }]) {
      expect(ourLib.isInterruptExpired(interrupt)).toBe(theirLib.isInterruptExpired(interrupt as never));
    }
  });

  it("buildResumeArray: the same entries, and an error in the same cases (ours an AguiWireError pending_interrupts)", () => {
    const cases: [Interrupt[], Record<string, unknown>][] = [
      [interrupts, { live: { status: "resolved", payload: { yes: 1 }, metadata: { by: "ana" } }, old: { status: "cancelled" } }],
      [interrupts, { old: { status: "cancelled", metadata: { why: "late" } }, live: { status: "resolved" } }],
      [interrupts, { live: { status: "resolved", payload: 0 }, old: { status: "resolved", payload: "" } }],
      [[], {}],
      [interrupts, { live: { status: "resolved" } }],
      [interrupts, { live: { status: "resolved" }, old: { status: "cancelled" }, ghost: { status: "cancelled" } }],
      [[], { ghost: { status: "cancelled" } }],
    ];
    for (const [open, responses] of cases) {
      const attempt = (fn: () => unknown) => {
        try {
          return { entries: fn() };
        } catch (error) {
          return { error: error as Error };
        }
      };
      const theirs = attempt(() => theirLib.buildResumeArray(open as never, responses as never));
      const ours = attempt(() => ourLib.buildResumeArray(open, responses as never));
      expect(ours.entries).toEqual(theirs.entries);
      expect(ours.error === undefined).toBe(theirs.error === undefined);
      if (ours.error) expect(ours.error).toMatchObject({ code: "pending_interrupts" });
    }
  });
});
