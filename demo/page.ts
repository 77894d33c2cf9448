/**
 * The demo page's script, bundled for the browser by the demo server. It runs one turn of the
 * conversation over both transports at once, each with its own `HttpAgent` and
 * `agent.runAgent(params, subscriber)`, and shows for each the conversation as it grows (rendered
 * from `agent.messages` and `agent.state` by the subscriber), the events as they arrive, the bytes
 * the transport used (counted by the agent's `fetch`) and the time it took (with how much of it
 * was the scripted agent's pacing). With "through the proxy" checked, both runs go through the
 * secure proxy, which transcodes its SSE-only upstream for the binary panel; "Try a wrong token"
 * shows the proxy's refusal, under the buttons. "Drop connections" asks the server to cut both
 * runs' connections (to the agent, or to the proxy; between runs, it starts a run and cuts it a few
 * events in); each `HttpAgent` reattaches (GET with `Last-Event-ID`, to the
 * agent or through the proxy, whose own store kept reading its upstream's run), and the panel says
 * after which event, through what, and how many events the store sent back at once: those the
 * agent made meanwhile.
 */
import { EventType, HttpAgent, type AguiEvent, type Message, type Transport } from "../src/client/index.js";
import { BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE } from "../src/index.js";
import { QUESTION } from "./conversation-run.js";
import { renderConversation, renderState } from "./conversation-view.js";

interface Panel {
  root: HTMLElement;
  status: HTMLElement;
  count: HTMLElement;
  bytes: HTMLElement;
  time: HTMLElement;
  /** Says how much of the time the agent spent waiting on purpose. */
  pacing: HTMLElement;
  /** The conversation, one item per message of `agent.messages`. */
  conversation: HTMLOListElement;
  /** `agent.state`, as JSON. */
  state: HTMLElement;
  list: HTMLOListElement;
  /** What reattaching after a dropped connection did. */
  resumed: HTMLElement;
}

/** What one transport's run measured. */
interface Outcome {
  bytes: number;
  ms: number;
  events: number;
}

/** The media type each transport's answer must have. */
const MEDIA_TYPE = { binary: BINARY_MEDIA_TYPE, sse: SSE_MEDIA_TYPE } as const;

function panel(id: string): Panel {
  const root = document.getElementById(id)!;
  const find = <T extends HTMLElement>(selector: string) => root.querySelector<T>(selector)!;
  return {
    root,
    status: find(".status"),
    count: find(".count"),
    bytes: find(".bytes"),
    time: find(".time"),
    pacing: find(".pacing"),
    conversation: find("ol.conversation"),
    state: find(".state"),
    list: find("ol.events"),
    resumed: find(".resumed"),
  };
}

/** The agent's delay before each event, as the demo server wrote it into the page. */
const delayMs = Number(document.querySelector<HTMLMetaElement>('meta[name="agent-delay-ms"]')?.content ?? "0") || 0;

/**
 * Runs `change` (which may add to the `scrollers` or resize them), then keeps the end of each in
 * view if it was in view before: a list follows what is added unless the reader has scrolled up
 * to look at older items.
 */
function following(scrollers: HTMLElement[], change: () => void): void {
  // Within a pixel or two: scroll positions are fractional at some zoom levels.
  const atEnd = scrollers.map((s) => s.scrollHeight - s.scrollTop - s.clientHeight <= 2);
  change();
  scrollers.forEach((s, i) => {
    if (atEnd[i]) s.scrollTop = s.scrollHeight;
  });
}

/** A few words on what an event carries, for its line in the list. */
function summary(event: AguiEvent): string {
  switch (event.type) {
    case EventType.RUN_STARTED:
    case EventType.RUN_FINISHED:
      return `run ${event.runId}`;
    case EventType.RUN_ERROR:
      return `${event.code ?? ""} ${event.message}`;
    case EventType.STEP_STARTED:
    case EventType.STEP_FINISHED:
      return event.stepName;
    case EventType.TEXT_MESSAGE_CONTENT:
    case EventType.TOOL_CALL_ARGS:
      return JSON.stringify(event.delta);
    case EventType.TOOL_CALL_START:
      return event.toolCallName;
    case EventType.STATE_SNAPSHOT:
      return JSON.stringify(event.snapshot);
    case EventType.STATE_DELTA:
      return event.delta.map((op) => `${op.op} ${op.path}`).join(", ");
    case EventType.MESSAGES_SNAPSHOT:
      return `${event.messages.length} messages`;
    case EventType.CUSTOM:
      return `${event.name} ${JSON.stringify(event.value ?? null)}`;
    default:
      return "";
  }
}

function show(target: Panel, event: AguiEvent, atMs: number): void {
  const item = document.createElement("li");
  const at = document.createElement("span");
  at.className = "at";
  at.textContent = `+${Math.round(atMs)} ms`;
  const type = document.createElement("span");
  type.className = "type";
  type.textContent = event.type;
  // textContent only: event data never becomes markup.
  item.append(at, type, ` ${summary(event)}`);
  following([target.list], () => target.list.append(item));
  target.count.textContent = String(target.list.children.length);
}

/** Where a run goes: straight to the agent, or through the proxy with the demo's token. */
interface Route {
  url: string;
  headers?: Record<string, string>;
  /** Through the proxy: its run store, not the agent's, answers a reattach. */
  proxied: boolean;
}
const DIRECT: Route = { url: "/agent", proxied: false };
const PROXIED: Route = { url: "/proxy/agents/demo", headers: { authorization: "Bearer demo-token" }, proxied: true };

/** A reattach the agent made: after which event, and how many the store sent back at once. */
interface Reattach {
  lastEventId: string | null;
  replayed: number;
}

/** Whole events at the start of `chunk`: binary frames by their length prefixes, SSE by `data:` lines. */
function eventsIn(chunk: Uint8Array, transport: Exclude<Transport, "auto">): number {
  if (transport === "sse") return new TextDecoder().decode(chunk).match(/^data:/gm)?.length ?? 0;
  const view = new DataView(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  let count = 0;
  for (let at = 0; at + 4 <= chunk.byteLength; count++) {
    at += 4 + view.getUint32(at);
    if (at > chunk.byteLength) break;
  }
  return count;
}

/**
 * An `HttpAgent` for `transport` whose `fetch` counts the bytes of each answer as they arrive and
 * checks that the answer came in the transport asked for. A GET is the agent reattaching after a
 * dropped connection: `onReattach` hears its `Last-Event-ID` and the events of its first chunk,
 * which the store sends at once (the agent's later events come one by one, as it makes them).
 */
function countingAgent(transport: Exclude<Transport, "auto">, route: Route, onBytes: (total: number) => void, onReattach: (reattach: Reattach) => void): HttpAgent {
  let total = 0;
  const counted = async (url: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const response = await fetch(url, init);
    const contentType = response.headers.get("content-type");
    if (response.ok && contentType !== MEDIA_TYPE[transport]) throw new Error(`asked for ${MEDIA_TYPE[transport]}, got ${contentType}`);
    if (!response.body) return response;
    const reattaching = init?.method === "GET";
    let first = true;
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        total += chunk.byteLength;
        onBytes(total);
        if (reattaching && first) onReattach({ lastEventId: new Headers(init?.headers).get("last-event-id"), replayed: eventsIn(chunk, transport) });
        first = false;
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(counter), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  return new HttpAgent({
    url: route.url,
    headers: route.headers,
    transport,
    threadId: "demo-thread",
    initialMessages: [{ id: "user-1", role: "user", content: QUESTION }],
    fetch: counted,
  });
}

/** Runs the turn `runId` over `transport` and shows the conversation and the events while they stream in. */
async function runTransport(target: Panel, transport: Exclude<Transport, "auto">, route: Route, runId: string): Promise<Outcome> {
  target.list.replaceChildren();
  target.list.scrollTop = 0;
  target.conversation.scrollTop = 0;
  target.root.dataset.state = "running";
  target.status.textContent = "running";
  target.count.textContent = "0";
  target.bytes.textContent = "0";
  target.time.textContent = "–";
  target.pacing.textContent = "";
  target.resumed.textContent = "";
  delete target.root.dataset.replayed;
  delete target.root.dataset.reattachedVia;
  let bytes = 0;
  let events = 0;
  let last: AguiEvent | undefined;
  const reattaches: Reattach[] = [];
  const agent = countingAgent(
    transport,
    route,
    (total) => {
      bytes = total;
      target.bytes.textContent = bytes.toLocaleString("en-US");
    },
    (reattach) => {
      reattaches.push(reattach);
      const after = reattach.lastEventId === null ? "before the first event" : `after event ${reattach.lastEventId}`;
      const through = route.proxied ? " through the proxy" : "";
      target.resumed.textContent = `Reattached${through} ${after}: ${reattach.replayed} missed event${reattach.replayed === 1 ? "" : "s"} replayed.`;
      target.resumed.title = route.proxied
        ? "The connection to the proxy was dropped; the client reattached through the proxy with Last-Event-ID, the proxy's run store (which kept reading the upstream's run, though the upstream keeps no runs) sent back what the agent had made meanwhile, and the rest followed live."
        : "The connection was dropped; the client reattached with Last-Event-ID, the server's run store sent back what the agent had made meanwhile, and the rest followed live.";
      target.root.dataset.reattachedVia = route.proxied ? "proxy" : "direct";
      target.root.dataset.replayed = String(reattaches.reduce((sum, r) => sum + r.replayed, 0));
    },
  );
  const showConversation = (messages: readonly Message[]): void => following([target.conversation], () => renderConversation(target.conversation, messages));
  showConversation(agent.messages);
  renderState(target.state, agent.state, 0);
  const started = performance.now();
  try {
    await agent.runAgent(
      { runId },
      {
        onEvent: ({ event }) => {
          events++;
          last = event;
          show(target, event, performance.now() - started);
          dropWhenDue(target, events);
        },
        // The conversation and state are drawn from the agent's own, after each event changed them.
        onMessagesChanged: ({ messages }) => showConversation(messages),
        // The state's box may grow and shrink the lists: keep their ends in view.
        onStateChanged: ({ state }) => following([target.list, target.conversation], () => renderState(target.state, state, 0)),
      },
    );
    const ms = performance.now() - started;
    // The agent sleeps before each event, so most of the time is that, not the transport. The
    // text may wrap and shrink the lists: keep their ends in view.
    following([target.list, target.conversation], () => {
      target.time.textContent = `${ms.toFixed(0)} ms`;
      target.pacing.textContent = `(agent paced: ${(events * delayMs).toLocaleString("en-US")} ms of delays)`;
      target.pacing.title = `The scripted agent waits ${delayMs} ms before each of its ${events} events.`;
    });
    // runAgent resolves on RUN_ERROR too: the last event says whether the run finished.
    if (last?.type !== EventType.RUN_FINISHED) throw new Error(last ? `the run ended with ${last.type}` : "the run sent no events");
    if (reattaches.length > 0) {
      // The client counted every event once by its sequence number: the run arrived whole.
      target.resumed.textContent += ` All ${events} once.`;
    }
    target.root.dataset.state = "done";
    target.status.textContent = "done";
    Object.assign(target.root.dataset, { bytes: String(bytes), ms: ms.toFixed(1), events: String(events) });
    return { bytes, ms, events };
  } catch (error) {
    target.root.dataset.state = "error";
    target.status.textContent = `failed: ${(error as Error).message}`;
    throw error;
  }
}

document.getElementById("delay")!.textContent = String(delayMs);
const binary = panel("binary");
const sse = panel("sse");
const button = document.getElementById("run") as HTMLButtonElement;
const comparison = document.getElementById("comparison")!;
const viaProxy = document.getElementById("via-proxy") as HTMLInputElement;
const wrongToken = document.getElementById("wrong-token") as HTMLButtonElement;
const drop = document.getElementById("drop") as HTMLButtonElement;
let runs = 0;
/** Whether a run is in progress: "Drop connections" cuts it then, and starts one to cut otherwise. */
let running = false;
/** Set by "Drop connections" between runs: the run it starts is cut once it is this far along. */
let dropAfterEvents: number | undefined;
/** How far along a run started by "Drop connections" is cut: a few events in, most still to come. */
const DROP_AFTER_EVENTS = 10;
/** This page's own part of its runs' ids. */
const session = Math.random().toString(36).slice(2, 6);

async function runBoth(): Promise<void> {
  button.disabled = true;
  viaProxy.disabled = true;
  running = true;
  shownEvents.clear();
  comparison.textContent = "";
  delete comparison.dataset.dropped;
  delete comparison.dataset.refused;
  runs++;
  const runId = `run-${runs}`;
  const route = viaProxy.checked ? PROXIED : DIRECT;
  document.body.dataset.route = viaProxy.checked ? "proxy" : "direct";
  try {
    // Each run has an id of its own, whatever page started it: the store keeps runs by id.
    const [b, s] = await Promise.all([
      runTransport(binary, "binary", route, `${runId}b-${session}`),
      runTransport(sse, "sse", route, `${runId}s-${session}`),
    ]);
    const via = viaProxy.checked ? " Through the proxy: the upstream answered SSE, and the proxy re-encoded each event as a binary frame for the binary panel." : "";
    comparison.textContent = `Binary used ${b.bytes.toLocaleString("en-US")} bytes, ${((100 * b.bytes) / s.bytes).toFixed(1)}% of SSE's ${s.bytes.toLocaleString("en-US")}, for the same ${b.events} events.${via}`;
  } catch {
    // Each panel shows its own failure.
  } finally {
    button.disabled = false;
    viaProxy.disabled = false;
    running = false;
    dropAfterEvents = undefined;
  }
}

/** Asks the server to cut the connections of the runs in progress, as a flaky network would. */
async function dropConnections(): Promise<void> {
  const response = await fetch("/demo/drop", { method: "POST" });
  const { dropped } = (await response.json()) as { dropped: number };
  comparison.dataset.dropped = String(dropped);
  comparison.textContent = `Dropped ${dropped} connection${dropped === 1 ? "" : "s"} mid-run: each panel reattaches and says what it missed.`;
}

/**
 * "Drop connections": cuts the runs in progress; between runs (a run lasts a few seconds, too
 * short to aim at) starts one, and cuts it a few events in.
 */
function dropOrArm(): void {
  if (running) {
    void dropConnections();
    return;
  }
  dropAfterEvents = DROP_AFTER_EVENTS;
  void runBoth();
}

/** The events each panel has shown of the current run. */
const shownEvents = new Map<Panel, number>();

/**
 * Called with each event a panel shows: cuts the run an armed "Drop connections" started, once
 * both panels are that far along (so that both connections are open, and both get cut).
 */
function dropWhenDue(target: Panel, events: number): void {
  shownEvents.set(target, events);
  if (dropAfterEvents === undefined) return;
  const due = dropAfterEvents;
  if (![binary, sse].every((panel) => (shownEvents.get(panel) ?? 0) >= due)) return;
  dropAfterEvents = undefined;
  void dropConnections();
}

/** Asks the proxy for a run with a token it does not know, and shows its answer. */
async function tryWrongToken(): Promise<void> {
  const response = await fetch(PROXIED.url, {
    method: "POST",
    headers: { authorization: "Bearer not-the-demo-token", "content-type": "application/json" },
    body: JSON.stringify({ threadId: "demo-thread", runId: "refused", messages: [] }),
  });
  const body = (await response.json()) as { error?: string };
  comparison.dataset.refused = String(response.status);
  comparison.textContent = `The proxy refused the wrong token: ${response.status}, "${body.error ?? ""}" (WWW-Authenticate: ${response.headers.get("www-authenticate") ?? "none"}). The agent never ran.`;
}

button.addEventListener("click", () => void runBoth());
viaProxy.addEventListener("change", () => void runBoth());
wrongToken.addEventListener("click", () => void tryWrongToken());
drop.addEventListener("click", dropOrArm);
void runBoth();
