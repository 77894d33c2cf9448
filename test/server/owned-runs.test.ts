/**
 * Runs guarded by their resume token, and bound to a principal with `owner`, over real HTTP on
 * both handlers and both transports, with a memoryStore and with a redisStore on a real
 * redis-server: a reattach or cancel that does not present the run's token (or comes from another
 * principal) is the 404 of a run that never started, byte for byte, and leaves the run alone; the
 * token in the header or the query; a client's own token; two principals' runs of one runId; the
 * per-owner bound; the cancel of a run nobody reads; and no token kept in clear in Redis.
 */
import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeEventStream, EventType, type AguiEvent, type AguiEventInput, type RunAgentInput } from "../../src/index.js";
import type { RunContext } from "../../src/agent/contract.js";
import {
  createAgentHandler,
  createNodeHandler,
  memoryStore,
  redisStore,
  RESUME_TOKEN_HEADER,
  RUN_ID_HEADER,
  type RunStore,
} from "../../src/server/index.js";
import { startRedis, type RedisServer } from "../fixtures/redis-server.js";
import { BINARY, HANDLERS, SSE, post, postRun, resumeTokenOf, runInput, sleep, type Served } from "./helpers.js";
import { deferred, type Deferred } from "../fixtures/deferred.js";


/** What the agent did in one run, by the run's threadId (unique to each run of this file). */
interface Trace {
  started: boolean;
  /** Whether the run's signal fired. */
  signalled: boolean;
  /** Settles with `Date.now()` when the run's signal fires. */
  readonly aborted: Deferred<number>;
  /** Settles when the agent has yielded its ticks and waits at its gate. */
  readonly atGate: Deferred;
  /** The gate: the agent yields its last events once it opens. */
  readonly gate: Deferred;
  /** Settles when the agent's `finally` has run. */
  readonly done: Deferred;
}
const traces = new Map<string, Trace>();
function traceOf(threadId: string): Trace {
  let trace = traces.get(threadId);
  if (trace === undefined) {
    trace = { started: false, signalled: false, aborted: deferred<number>(), atGate: deferred(), gate: deferred(), done: deferred() };
    traces.set(threadId, trace);
  }
  return trace;
}

const TICKS = 3;

/** RUN_STARTED and TICKS ticks, then waits at its gate (or for its signal), then "released" and RUN_FINISHED. */
async function* agent(input: RunAgentInput, { signal }: RunContext): AsyncGenerator<AguiEventInput> {
  const { threadId, runId } = input;
  const trace = traceOf(threadId);
  trace.started = true;
  signal.addEventListener(
    "abort",
    () => {
      trace.signalled = true;
      trace.aborted.resolve(Date.now());
    },
    { once: true },
  );
  try {
    yield { type: EventType.RUN_STARTED, threadId, runId };
    for (let i = 0; i < TICKS; i++) yield { type: EventType.CUSTOM, name: "tick", value: i };
    trace.atGate.resolve();
    await Promise.race([trace.gate.promise, trace.aborted.promise]);
    if (signal.aborted) return;
    yield { type: EventType.CUSTOM, name: "released", value: threadId };
    yield { type: EventType.RUN_FINISHED, threadId, runId };
  } finally {
    trace.done.resolve();
  }
}

/** The principal a request names in `x-user`; "throws", "rejects" and "number" make owner() fail. */
function owner(request: Request | IncomingMessage): string | undefined | Promise<string | undefined> {
  const value = request instanceof Request ? request.headers.get("x-user") : request.headers["x-user"];
  const user = typeof value === "string" && value !== "" ? value : undefined;
  if (user === "throws") throw new Error("the session store is down");
  if (user === "rejects") return Promise.reject(new Error("the session store is down"));
  if (user === "number") return 42 as unknown as string;
  return user;
}

let serial = 0;
/** A name no other run of this file has. */
const unique = (what: string): string => `${what}-${++serial}`;

/** A well-formed token (43 base64url characters) that guards no run. */
const strayToken = (): string => createHash("sha256").update(unique("stray")).digest("base64url");

/** The 404 body of a run a request cannot reach, whether or not it exists. */
const noSuchRun = (runId: string): string =>
  JSON.stringify({ error: `no run ${JSON.stringify(runId)} that this request can reach: it never started, it has expired, or its resume token was not presented` });

/** How a GET or DELETE asks for a run. */
interface Ask {
  token?: string;
  /** Where the token goes: the AG-UI-Resume-Token header (default) or the resumeToken query parameter. */
  via?: "header" | "query";
  /** `x-user`, the principal `owner` reads. */
  user?: string;
  accept?: string;
}

/** A reattach (GET) or cancel (DELETE) of run `runId`. */
function ask(url: string, method: "GET" | "DELETE", runId: string, { token, via = "header", user, accept = SSE }: Ask = {}): Promise<Response> {
  const query = new URLSearchParams({ runId });
  const headers: Record<string, string> = { accept };
  if (token !== undefined && via === "query") query.set("resumeToken", token);
  if (token !== undefined && via === "header") headers[RESUME_TOKEN_HEADER] = token;
  if (user !== undefined) headers["x-user"] = user;
  return fetch(`${url}?${query.toString()}`, { method, headers });
}

/** What a client can see of an answer: status, headers, body. */
interface Answer {
  status: number;
  headers: [string, string][];
  body: string;
}

/**
 * An answer as a client sees it, but for the headers the server sets from the clock or the
 * connection's state rather than from the request (`Date`; `Connection` and `Keep-Alive`, which
 * the test's fetch bridge sets to close a connection whose body it did not read).
 */
async function answerOf(response: Response): Promise<Answer> {
  // A run's stream (a probe that reached the run) is not waited out: its status tells.
  const streaming = response.status === 200 && response.body !== null;
  if (streaming) await response.body.cancel();
  const body = streaming ? "(the run's stream)" : await response.text();
  const headers = [...response.headers].filter(([name]) => !["date", "connection", "keep-alive"].includes(name));
  return { status: response.status, headers, body };
}

async function eventsOf(response: Response): Promise<AguiEvent[]> {
  const events: AguiEvent[] = [];
  for await (const event of decodeEventStream(response.body!, response.headers.get("content-type"))) events.push(event);
  return events;
}

/** A run's events that its agent made whole: RUN_STARTED, the ticks, "released", RUN_FINISHED. */
function expectFinished(events: AguiEvent[], threadId: string): void {
  expect(events.map((e) => e.type)).toEqual([
    EventType.RUN_STARTED,
    ...Array.from({ length: TICKS }, () => EventType.CUSTOM),
    EventType.CUSTOM,
    EventType.RUN_FINISHED,
  ]);
  expect(events[0]).toMatchObject({ threadId });
  expect(events.at(-2)).toMatchObject({ name: "released", value: threadId });
}

const CANCELLED = { type: EventType.RUN_ERROR, code: "cancelled", message: "the run was cancelled" };

/** Rejects after `ms` with what was awaited, so that a wait that fails says which. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

let redis: RedisServer | undefined;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  // Whatever a failed test left at its gate.
  for (const trace of traces.values()) trace.gate.resolve();
  await redis?.stop();
});

/** The bounds the tests give a store. */
interface Bounds {
  maxLiveRunsPerOwner?: number;
}

const STORES = [
  { name: "memoryStore", make: (bounds: Bounds = {}): RunStore => memoryStore(bounds) },
  { name: "redisStore", make: (bounds: Bounds = {}): RunStore => redisStore({ url: redis!.url }, { keyPrefix: `${unique("owned")}:`, ...bounds }) },
] as const;

const TRANSPORTS = [
  { transport: "SSE", accept: SSE },
  { transport: "binary", accept: BINARY },
] as const;

for (const kind of STORES) {
  for (const { name, serve } of HANDLERS) {
    describe(`${name} with a ${kind.name}`, () => {
      let store: RunStore;
      /** With `owner`: runs are bound to their principal as well as to their token. */
      let owned: Served;
      /** Without: the token alone guards a run. */
      let plain: Served;
      const errors: unknown[] = [];
      beforeAll(async () => {
        store = kind.make();
        owned = await serve(agent, { store, owner, onError: (error) => void errors.push(error) });
        plain = await serve(agent, { store, onError: (error) => void errors.push(error) });
      });
      afterAll(async () => {
        await owned.close();
        await plain.close();
        await store.close();
      });

      for (const mode of ["owner", "token alone"] as const) {
        for (const { transport, accept } of TRANSPORTS) {
          it(`${transport}, ${mode}: a reattach or cancel that does not present the run's token${mode === "owner" ? ", or comes from another principal," : ""} is the 404 of a never-started run, and the run goes on`, async () => {
            const url = mode === "owner" ? owned.url : plain.url;
            const alice = mode === "owner" ? "alice" : undefined;
            const runId = unique("probed");
            const threadId = unique("thread");
            const trace = traceOf(threadId);
            // Another live run of the same principal, for its token.
            const otherThread = unique("thread");
            const other = await postRun(url, runInput({ runId: unique("other"), threadId: otherThread }), accept, { headers: alice === undefined ? {} : { "x-user": alice } });
            const otherEvents = eventsOf(other.response);

            // What a client is told of this run id before it exists, with a well-formed token.
            const never = {
              GET: await answerOf(await ask(url, "GET", runId, { token: strayToken(), user: alice, accept })),
              DELETE: await answerOf(await ask(url, "DELETE", runId, { token: strayToken(), user: alice, accept })),
            };
            for (const answer of Object.values(never)) {
              expect(answer.status).toBe(404);
              expect(answer.body).toBe(noSuchRun(runId));
            }

            const { response, token } = await postRun(url, runInput({ runId, threadId }), accept, { headers: alice === undefined ? {} : { "x-user": alice } });
            expect(response.status).toBe(200);
            expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
            const events = eventsOf(response);
            await within(trace.atGate.promise, 10_000, "the agent to reach its gate");

            const probes: [label: string, ask: Ask][] = [
              ["no token", { user: alice }],
              ["a wrong token", { token: strayToken(), user: alice }],
              ["a wrong token in the query", { token: strayToken(), via: "query", user: alice }],
              ["another run's token", { token: other.token, user: alice }],
              ["another run's token in the query", { token: other.token, via: "query", user: alice }],
              ["the token cut to 21 characters", { token: token.slice(0, 21), user: alice }],
              ["the token cut to 21 characters in the query", { token: token.slice(0, 21), via: "query", user: alice }],
              ["the token three times over (129 characters)", { token: token.repeat(3), user: alice }],
              ["the token three times over in the query", { token: token.repeat(3), via: "query", user: alice }],
              ["the token with base64 padding", { token: `${token}=`, user: alice }],
              ["the token with a base64 '+' in the query", { token: `+${token.slice(1)}`, via: "query", user: alice }],
              ["the token with a base64 '/'", { token: `${token.slice(0, -1)}/`, user: alice }],
              ["an empty token in the query", { token: "", via: "query", user: alice }],
            ];
            if (mode === "owner") {
              probes.push(
                ["the token, as another principal", { token, user: "bob" }],
                ["the token in the query, as another principal", { token, via: "query", user: "bob" }],
                ["the token, as nobody in particular", { token }],
              );
            }
            const probeAll = async (): Promise<void> => {
              for (const [label, probe] of probes) {
                for (const method of ["GET", "DELETE"] as const) {
                  expect(await answerOf(await ask(url, method, runId, { ...probe, accept })), `${method} with ${label}`).toEqual(never[method]);
                }
              }
            };
            await probeAll();

            // Untouched: still live at its gate, its signal never fired.
            expect(trace.signalled).toBe(false);
            trace.gate.resolve();
            const whole = await events;
            expectFinished(whole, threadId);
            expect(whole.some((e) => e.type === EventType.RUN_ERROR)).toBe(false);
            await trace.done.promise;
            expect(trace.signalled).toBe(false);

            // Ended, it is guarded the same; and its own token (and principal) still reach it.
            await probeAll();
            expect(await eventsOf(await ask(url, "GET", runId, { token, user: alice, accept }))).toEqual(whole);
            traceOf(otherThread).gate.resolve();
            expectFinished(await otherEvents, otherThread);
          });
        }
      }

      for (const { transport, accept } of TRANSPORTS) {
        it(`${transport}: the run's token reaches it in the AG-UI-Resume-Token header and in the resumeToken query parameter`, async () => {
          const runs = await Promise.all(
            ["read", "cancel by query", "cancel by header"].map(async () => {
              const threadId = unique("thread");
              const runId = unique("reached");
              const { response, token } = await postRun(owned.url, runInput({ runId, threadId }), accept, { headers: { "x-user": "alice" } });
              await within(traceOf(threadId).atGate.promise, 10_000, "the agent to reach its gate");
              return { threadId, runId, token, events: eventsOf(response) };
            }),
          );
          const [read, byQuery, byHeader] = runs as [(typeof runs)[0], (typeof runs)[0], (typeof runs)[0]];

          const viaHeader = await ask(owned.url, "GET", read.runId, { token: read.token, user: "alice", accept });
          const viaQuery = await ask(owned.url, "GET", read.runId, { token: read.token, via: "query", user: "alice", accept });
          for (const response of [viaHeader, viaQuery]) {
            expect(response.status).toBe(200);
            expect(response.headers.get("content-type")).toBe(accept);
            expect(response.headers.get(RUN_ID_HEADER)).toBe(read.runId);
          }
          const followers = [eventsOf(viaHeader), eventsOf(viaQuery)];
          traceOf(read.threadId).gate.resolve();
          const whole = await read.events;
          expectFinished(whole, read.threadId);
          for (const follower of followers) expect(await follower).toEqual(whole);

          for (const [run, via] of [
            [byQuery, "query"],
            [byHeader, "header"],
          ] as const) {
            const deleted = await ask(owned.url, "DELETE", run.runId, { token: run.token, via, user: "alice" });
            expect(deleted.status, via).toBe(204);
            expect(deleted.headers.get(RUN_ID_HEADER)).toBe(run.runId);
            expect((await run.events).at(-1), via).toEqual(CANCELLED);
            await within(traceOf(run.threadId).done.promise, 10_000, "the cancelled agent to stop");
            expect(traceOf(run.threadId).signalled, via).toBe(true);
          }
        });
      }

      it("echoes a token the client sent with the POST, which then guards the run; refuses one that cannot be a token with 400, before the agent runs", async () => {
        const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        for (const [chosen, accept] of [
          ["client_chosen-token_22", SSE],
          [alphabet.repeat(2), BINARY],
        ] as const) {
          expect(chosen.length === 22 || chosen.length === 128).toBe(true);
          const threadId = unique("thread");
          const runId = unique("chosen");
          const headers = { "x-user": "alice", [RESUME_TOKEN_HEADER]: chosen };
          const { response, token } = await postRun(owned.url, runInput({ runId, threadId }), accept, { headers });
          expect(response.status).toBe(200);
          expect(token).toBe(chosen);
          const events = eventsOf(response);
          await within(traceOf(threadId).atGate.promise, 10_000, "the agent to reach its gate");
          const follower = await ask(owned.url, "GET", runId, { token: chosen, via: "query", user: "alice", accept });
          expect(follower.status).toBe(200);
          const stray = await ask(owned.url, "GET", runId, { token: strayToken(), user: "alice", accept });
          expect(stray.status).toBe(404);
          expect(await stray.text()).toBe(noSuchRun(runId));
          traceOf(threadId).gate.resolve();
          const whole = await events;
          expectFinished(whole, threadId);
          expect(await eventsOf(follower)).toEqual(whole);
          // An ended run is left as it was, and the client's token still reaches it.
          expect((await ask(owned.url, "DELETE", runId, { token: chosen, user: "alice" })).status).toBe(204);
          expect(await eventsOf(await ask(owned.url, "GET", runId, { token: chosen, user: "alice", accept: SSE }))).toEqual(whole);
        }

        const expected = "expected a resume token of 22 to 128 base64url characters";
        for (const [bad, found] of [
          ["client_chosen-token21", "found 21 characters"],
          [`${alphabet.repeat(2)}A`, "found 129 characters"],
          ["client+chosen/token+22", "found another character"],
          ["client_chosen-token_22==", "found another character"],
          ["client.chosen.token.22.", "found another character"],
        ] as const) {
          const threadId = unique("thread");
          const runId = unique("refused");
          for (const accept of [SSE, BINARY]) {
            const response = await post(owned.url, runInput({ runId, threadId }), accept, { headers: { "x-user": "alice", [RESUME_TOKEN_HEADER]: bad } });
            expect(response.status, bad).toBe(400);
            expect(response.headers.get(RESUME_TOKEN_HEADER)).toBeNull();
            expect(response.headers.get(RUN_ID_HEADER)).toBeNull();
            expect(await response.json()).toEqual({ error: `${RESUME_TOKEN_HEADER} cannot guard a run: ${expected}, ${found}` });
          }
          expect(traces.get(threadId)?.started ?? false, bad).toBe(false);
          // Nothing was kept of it: the run id is free.
          const again = await postRun(owned.url, runInput({ runId, threadId }), SSE, { headers: { "x-user": "alice" } });
          expect(again.response.status).toBe(200);
          traceOf(threadId).gate.resolve();
          expectFinished(await eventsOf(again.response), threadId);
        }
      });

      it("runs two principals' runs of one runId side by side, each reattaching to its own", async () => {
        const runId = unique("shared");
        const users = ["alice", "bob"] as const;
        const runs = await Promise.all(
          users.map(async (user, i) => {
            const threadId = unique(`thread-${user}`);
            const accept = i === 0 ? SSE : BINARY;
            const { response, token } = await postRun(owned.url, runInput({ runId, threadId }), accept, { headers: { "x-user": user } });
            expect(response.status).toBe(200);
            expect(response.headers.get(RUN_ID_HEADER)).toBe(runId);
            await within(traceOf(threadId).atGate.promise, 10_000, `${user}'s agent to reach its gate`);
            return { user, threadId, token, accept, events: eventsOf(response) };
          }),
        );
        const [alice, bob] = runs as [(typeof runs)[0], (typeof runs)[0]];
        expect(alice.token).not.toBe(bob.token);
        // The same principal again: that runId is taken, for alice.
        const again = await post(owned.url, runInput({ runId, threadId: unique("thread") }), SSE, { headers: { "x-user": "alice" } });
        expect(again.status).toBe(409);
        await again.arrayBuffer();
        // Each principal with the other's token: the other's run is no more theirs than any.
        for (const [user, token] of [
          ["alice", bob.token],
          ["bob", alice.token],
        ] as const) {
          const probe = await ask(owned.url, "GET", runId, { token, user });
          expect(probe.status).toBe(404);
          expect(await probe.text()).toBe(noSuchRun(runId));
        }
        // Both live at once; each reattach follows its own run.
        const followers = await Promise.all(runs.map((run) => ask(owned.url, "GET", runId, { token: run.token, user: run.user, accept: run.accept === SSE ? BINARY : SSE })));
        for (const follower of followers) expect(follower.status).toBe(200);
        const followed = followers.map(eventsOf);
        // Bob's is cancelled; alice's goes on to its end.
        expect((await ask(owned.url, "DELETE", runId, { token: bob.token, user: "bob" })).status).toBe(204);
        await within(traceOf(bob.threadId).done.promise, 10_000, "bob's agent to stop");
        expect(traceOf(alice.threadId).signalled).toBe(false);
        traceOf(alice.threadId).gate.resolve();
        const aliceEvents = await alice.events;
        expectFinished(aliceEvents, alice.threadId);
        expect(await followed[0]).toEqual(aliceEvents);
        const bobEvents = await bob.events;
        expect(bobEvents[0]).toMatchObject({ type: EventType.RUN_STARTED, threadId: bob.threadId, runId });
        expect(bobEvents.at(-1)).toEqual(CANCELLED);
        expect(await followed[1]).toEqual(bobEvents);
        expect(traceOf(alice.threadId).signalled).toBe(false);
        expect(traceOf(bob.threadId).signalled).toBe(true);
      });

      it("answers 500 when owner() throws, rejects or returns what is not a string: the agent never runs, and the run is untouched", async () => {
        const threadId = unique("thread");
        const runId = unique("owned");
        const { response, token } = await postRun(owned.url, runInput({ runId, threadId }), SSE, { headers: { "x-user": "alice" } });
        const events = eventsOf(response);
        await within(traceOf(threadId).atGate.promise, 10_000, "the agent to reach its gate");
        const failed = "the server could not tell who asked: its owner() failed";
        for (const [user, message] of [
          ["throws", failed],
          ["rejects", failed],
          ["number", "the server could not tell who asked: owner() returned number, expected a string or undefined"],
        ] as const) {
          const refusedThread = unique("thread");
          const before = errors.length;
          const refused = await post(owned.url, runInput({ runId: unique("refused"), threadId: refusedThread }), SSE, { headers: { "x-user": user } });
          expect(refused.status, user).toBe(500);
          expect(refused.headers.get(RESUME_TOKEN_HEADER)).toBeNull();
          expect(await refused.json()).toEqual({ error: message });
          expect(traces.get(refusedThread)?.started ?? false).toBe(false);
          if (user !== "number") expect(errors.slice(before)).toEqual([new Error("the session store is down")]);
          for (const method of ["GET", "DELETE"] as const) {
            const answer = await ask(owned.url, method, runId, { token, user });
            expect(answer.status, `${method} as ${user}`).toBe(500);
            expect(await answer.json()).toEqual({ error: message });
          }
        }
        expect(traceOf(threadId).signalled).toBe(false);
        traceOf(threadId).gate.resolve();
        expectFinished(await events, threadId);
      });

      it("refuses a principal past maxLiveRunsPerOwner with 503, while another principal, and nobody in particular, still start runs", async () => {
        const bounded = kind.make({ maxLiveRunsPerOwner: 2 });
        const served = await serve(agent, { store: bounded, owner, onError: () => {} });
        try {
          const start = async (user: string | undefined) => {
            const threadId = unique("thread");
            const { response } = await postRun(served.url, runInput({ runId: unique("bounded"), threadId }), SSE, { headers: user === undefined ? {} : { "x-user": user } });
            expect(response.status).toBe(200);
            await within(traceOf(threadId).atGate.promise, 10_000, "the agent to reach its gate");
            return { threadId, events: eventsOf(response) };
          };
          const refuse = async (user: string) => {
            const threadId = unique("thread");
            const refused = await post(served.url, runInput({ runId: unique("bounded"), threadId }), SSE, { headers: { "x-user": user } });
            expect(refused.status).toBe(503);
            expect(refused.headers.get("retry-after")).toBe("1");
            expect(await refused.json()).toEqual({ error: "too many live runs of yours: expected fewer than 2 (maxLiveRunsPerOwner)" });
            expect(traces.get(threadId)?.started ?? false).toBe(false);
          };
          const alices = [await start("alice"), await start("alice")];
          await refuse("alice");
          const others = [await start("bob"), await start(undefined), await start(undefined), await start(undefined)];
          await refuse("alice");
          // One of alice's runs ends: she may start one more, and no more.
          traceOf(alices[0]!.threadId).gate.resolve();
          expectFinished(await alices[0]!.events, alices[0]!.threadId);
          alices.push(await start("alice"));
          await refuse("alice");
          for (const run of [...alices.slice(1), ...others]) {
            traceOf(run.threadId).gate.resolve();
            expectFinished(await run.events, run.threadId);
          }
        } finally {
          await served.close();
          await bounded.close();
        }
      });
    });
  }
}

describe("owner", () => {
  it("needs a store, and must be a function", () => {
    const makers = [
      (options: object) => createAgentHandler(agent, options as never),
      (options: object) => createNodeHandler(agent, options as never),
    ];
    for (const make of makers) {
      expect(() => make({ owner })).toThrow(TypeError);
      expect(() => make({ owner })).toThrow("owner binds resumable runs to a principal: expected a store beside it, found none");
      expect(() => make({ owner: "alice", store: memoryStore() })).toThrow(TypeError);
      expect(() => make({ owner: "alice", store: memoryStore() })).toThrow("owner must be a function of the request, found string");
    }
  });
});

describe("memoryStore's detachedTimeoutMs", () => {
  /** Small, since the test waits it out; a run is read from its start, so no load makes it unread. */
  const DETACHED_MS = 500;
  for (const { name, serve } of HANDLERS) {
    for (const { transport, accept } of TRANSPORTS) {
      it(`${name}, ${transport}: cancels a run nobody reads once its client hung up, and not one that is read`, async () => {
        const store = memoryStore({ detachedTimeoutMs: DETACHED_MS });
        const served = await serve(agent, { store, owner, onError: () => {} });
        try {
          const headers = { "x-user": "alice" };
          // Read from its POST to its end.
          const readThread = unique("thread");
          const readStarted = Date.now();
          const read = await postRun(served.url, runInput({ runId: unique("read"), threadId: readThread }), accept, { headers });
          const readEvents = eventsOf(read.response);
          // Its client hangs up as soon as the answer's headers are in.
          const leftThread = unique("thread");
          const leftRunId = unique("left");
          const hangUp = new AbortController();
          const left = await post(served.url, runInput({ runId: leftRunId, threadId: leftThread }), accept, { headers, signal: hangUp.signal });
          expect(left.status).toBe(200);
          const leftToken = resumeTokenOf(left);
          hangUp.abort();
          const hungUpAt = Date.now();

          const abortedAt = await within(traceOf(leftThread).aborted.promise, 20 * DETACHED_MS, "the unread run to be cancelled");
          // Not before nobody had read it for detachedTimeoutMs (timers may round a millisecond down).
          expect(abortedAt - hungUpAt).toBeGreaterThanOrEqual(DETACHED_MS - 5);
          await within(traceOf(leftThread).done.promise, 10_000, "the cancelled agent to stop");
          const rest = await ask(served.url, "GET", leftRunId, { token: leftToken, user: "alice", accept });
          expect(rest.status).toBe(200);
          const leftEvents = await eventsOf(rest);
          expect(leftEvents[0]).toMatchObject({ type: EventType.RUN_STARTED, threadId: leftThread });
          expect(leftEvents.at(-1)).toEqual(CANCELLED);

          // The run read all along outlives several timeouts, then ends as its agent ends it.
          await sleep(2 * DETACHED_MS);
          expect(Date.now() - readStarted).toBeGreaterThan(3 * DETACHED_MS);
          expect(traceOf(readThread).signalled).toBe(false);
          traceOf(readThread).gate.resolve();
          const whole = await readEvents;
          expectFinished(whole, readThread);
          expect(traceOf(readThread).signalled).toBe(false);
        } finally {
          await served.close();
          await store.close();
        }
      });
    }
  }
});

describe("redisStore", () => {
  for (const { name, serve } of HANDLERS) {
    it(`${name}: keeps no resume token in clear, only its SHA-256 (base64url) in the run's meta hash`, async () => {
      const prefix = `${unique("clear")}:`;
      const store = redisStore({ url: redis!.url }, { keyPrefix: prefix });
      const plain = await serve(agent, { store, onError: () => {} });
      const owned = await serve(agent, { store, owner, onError: () => {} });
      const client = new Redis(redis!.url);
      const sha256 = (text: string): string => createHash("sha256").update(text).digest("base64url");
      try {
        const user = "alice@example.com";
        const runs = [
          // A token the server makes, no owner: the meta hash is <prefix>run:<runId>:meta.
          { url: plain.url, user: undefined, chosen: undefined },
          // A token the client chose, and an owner: the key names the owner's digest, not the owner.
          { url: owned.url, user, chosen: "my-own-token_of-the-client-0123456789" },
        ];
        const tokens: string[] = [];
        for (const { url, user, chosen } of runs) {
          const runId = unique("clear");
          const threadId = unique("thread");
          const headers: Record<string, string> = {};
          if (user !== undefined) headers["x-user"] = user;
          if (chosen !== undefined) headers[RESUME_TOKEN_HEADER] = chosen;
          const { response, token } = await postRun(url, runInput({ runId, threadId }), SSE, { headers });
          if (chosen !== undefined) expect(token).toBe(chosen);
          tokens.push(token);
          const events = eventsOf(response);
          await within(traceOf(threadId).atGate.promise, 10_000, "the agent to reach its gate");
          const metaKey = `${prefix}run:{${user === undefined ? runId : `${sha256(user)} ${runId}`}}:meta`;
          const check = async (): Promise<void> => {
            const meta = await client.hgetall(metaKey);
            expect(Object.keys(meta)).toContain("access");
            for (const value of Object.values(meta)) expect(value).not.toContain(token);
            expect(meta.access).toMatch(/^[A-Za-z0-9_-]{43}$/);
            expect(meta.access).toBe(sha256(token));
          };
          // Live, and ended.
          await check();
          traceOf(threadId).gate.resolve();
          expectFinished(await events, threadId);
          await check();
        }
        // Nowhere under the prefix, in a key's name or its value, is a token or the principal.
        const keys = await client.keys(`${prefix}*`);
        expect(keys.length).toBeGreaterThan(0);
        const secrets = [...tokens, user];
        for (const key of keys) {
          const type = await client.type(key);
          const values: Buffer[] = [Buffer.from(key)];
          if (type === "hash") values.push(...Object.values(await client.hgetallBuffer(key)));
          else if (type === "string") values.push((await client.getBuffer(key)) ?? Buffer.alloc(0));
          else if (type === "stream") for (const [, fields] of await client.xrangeBuffer(key, "-", "+")) values.push(...fields);
          else throw new Error(`unexpected key ${key} of type ${type}`);
          for (const value of values) for (const secret of secrets) expect(value.includes(secret), `${secret} in ${key}`).toBe(false);
        }
      } finally {
        client.disconnect();
        await plain.close();
        await owned.close();
        await store.close();
      }
    });
  }
});
