/**
 * The demo page's script, bundled for the browser by the demo server. It runs one request over
 * both transports at once with plain `fetch` and the library's decoders, and shows the events as
 * they arrive, the bytes each transport used and the time each took (with how much of it was the
 * scripted agent's pacing).
 */
import { BINARY_MEDIA_TYPE, EventType, FrameDecoder, SSEDecoder, SSE_MEDIA_TYPE, type AguiEvent, type RunAgentInput } from "../src/index.js";

type MediaType = typeof BINARY_MEDIA_TYPE | typeof SSE_MEDIA_TYPE;

interface Panel {
  root: HTMLElement;
  status: HTMLElement;
  count: HTMLElement;
  bytes: HTMLElement;
  time: HTMLElement;
  /** Says how much of the time the agent spent waiting on purpose. */
  pacing: HTMLElement;
  list: HTMLOListElement;
}

/** What one transport's run measured. */
interface Outcome {
  bytes: number;
  ms: number;
  events: number;
}

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
    list: find("ol.events"),
  };
}

/** The agent's delay before each event, as the demo server wrote it into the page. */
const delayMs = Number(document.querySelector<HTMLMetaElement>('meta[name="agent-delay-ms"]')?.content ?? "0") || 0;

/**
 * Runs `change` (which may add to the panel's list or resize it), then keeps the list's newest
 * event in view if it was in view before: the list follows new events unless the reader has
 * scrolled up to look at older ones.
 */
function following(target: Panel, change: () => void): void {
  const list = target.list;
  // Within a pixel or two: scroll positions are fractional at some zoom levels.
  const atEnd = list.scrollHeight - list.scrollTop - list.clientHeight <= 2;
  change();
  if (atEnd) list.scrollTop = list.scrollHeight;
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
  following(target, () => target.list.append(item));
  target.count.textContent = String(target.list.children.length);
}

/** POSTs `input` asking for `mediaType`, and shows the events while they stream in. */
async function runTransport(target: Panel, mediaType: MediaType, input: RunAgentInput): Promise<Outcome> {
  target.list.replaceChildren();
  target.list.scrollTop = 0;
  target.root.dataset.state = "running";
  target.status.textContent = "running";
  target.count.textContent = "0";
  target.bytes.textContent = "0";
  target.time.textContent = "–";
  target.pacing.textContent = "";
  const started = performance.now();
  let bytes = 0;
  let events = 0;
  let last: AguiEvent | undefined;
  try {
    const response = await fetch("/agent", {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: mediaType },
      body: JSON.stringify(input),
    });
    if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
    const contentType = response.headers.get("content-type");
    if (contentType !== mediaType) throw new Error(`asked for ${mediaType}, got ${contentType}`);
    const decoder = mediaType === BINARY_MEDIA_TYPE ? new FrameDecoder() : new SSEDecoder();
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      target.bytes.textContent = bytes.toLocaleString("en-US");
      for (const event of decoder.push(value)) {
        events++;
        last = event;
        show(target, event, performance.now() - started);
      }
    }
    decoder.end();
    const ms = performance.now() - started;
    // The agent sleeps before each event, so most of the time is that, not the transport. The
    // text may wrap and shrink the list: keep its end in view.
    following(target, () => {
      target.time.textContent = `${ms.toFixed(0)} ms`;
      target.pacing.textContent = `(agent paced: ${(events * delayMs).toLocaleString("en-US")} ms of delays)`;
      target.pacing.title = `The scripted agent waits ${delayMs} ms before each of its ${events} events.`;
    });
    if (last?.type !== EventType.RUN_FINISHED) throw new Error(last ? `the run ended with ${last.type}` : "the run sent no events");
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
let runs = 0;

async function runBoth(): Promise<void> {
  button.disabled = true;
  comparison.textContent = "";
  runs++;
  const input: RunAgentInput = {
    threadId: "demo-thread",
    runId: `demo-run-${runs}`,
    state: {},
    messages: [{ id: "user-1", role: "user", content: "What's the weather in Lisbon?" }],
    tools: [],
    context: [],
    forwardedProps: {},
  };
  try {
    const [b, s] = await Promise.all([runTransport(binary, BINARY_MEDIA_TYPE, input), runTransport(sse, SSE_MEDIA_TYPE, input)]);
    comparison.textContent = `Binary used ${b.bytes.toLocaleString("en-US")} bytes, ${((100 * b.bytes) / s.bytes).toFixed(1)}% of SSE's ${s.bytes.toLocaleString("en-US")}, for the same ${b.events} events.`;
  } catch {
    // Each panel shows its own failure.
  } finally {
    button.disabled = false;
  }
}

button.addEventListener("click", () => void runBoth());
void runBoth();
