/**
 * A browser's own `EventSource` reattaching to a resumable run in headless Chromium: the page
 * follows a run (started with POST into a memory store) with `new
 * EventSource('/agent?runId=…&resumeToken=…')`, the token the POST's answer carried in
 * `AG-UI-Resume-Token` (an EventSource cannot send headers, so it goes in the query); the server
 * cuts its connection twice mid-run, and Chromium reconnects by itself with `Last-Event-ID`; when
 * the run ends the stream closes, the last reconnect gets 204, and the EventSource stops for
 * good. The page sees every event exactly once, in order.
 *
 * The handler is tested as it is: no `retry:` field, so Chromium waits its default reconnection
 * delay (3 s) before each of the three reconnects, and the test takes about 13 s.
 *
 * Needs Debian's `chromium` at /usr/bin/chromium (`apt-get install -y chromium`). Without it the
 * suite is skipped, except under CI, where a missing browser must fail the run.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventType, type AguiEventInput, type RunAgentInput } from "../../src/index.js";
import { createNodeHandler, memoryStore, RESUME_TOKEN_HEADER, type RunStore } from "../../src/server/index.js";
import { asServed, post, runInput, sleep, SSE, waitFor } from "../server/helpers.js";
import { available, closeServer, launchChromium, listen, pageServer, warnIfUnavailable } from "./chromium.js";

warnIfUnavailable("test/browser/eventsource.test.ts");

const RUN_ID = "eventsource-run";
const THREAD_ID = "thread-1";
/** Events of the run: RUN_STARTED, 58 ticks, RUN_FINISHED; seq 0..59. */
const TOTAL = 60;
/** The agent waits before these seqs until the page's nth GET (0-based) arrives: the run stays live across each reconnect. */
const GATES = [1, 20, 40];
/**
 * GET n (0-based) is cut once the page has seen the event with this seq or a later one. The test
 * cuts it then, rather than the server once it has written that event: a connection destroyed
 * right after a write may lose the write's last bytes on their way (the page then saw an earlier
 * event last, under load), and what the test asserts is what the page saw.
 */
const CUTS = [10, 30];
/** Longer than Chromium's default reconnection delay (3 s): a reconnect would have come by then. */
const QUIET_MS = 3500;

/** The agent's event of sequence number `seq`. */
function eventAt(seq: number): AguiEventInput {
  if (seq === 0) return { type: EventType.RUN_STARTED, threadId: THREAD_ID, runId: RUN_ID };
  if (seq === TOTAL - 1) return { type: EventType.RUN_FINISHED, threadId: THREAD_ID, runId: RUN_ID };
  return { type: EventType.CUSTOM, name: "tick", value: seq };
}

/** A promise the server opens. */
interface Gate {
  opened: Promise<void>;
  open(): void;
}

function gate(): Gate {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** One GET of the run as the server received and answered it. */
interface GetSeen {
  lastEventId: string | undefined;
  status?: number;
  /** The `id:`s written to it, in order. */
  written: number[];
  /** Cut by the test, and whether the agent was still running then. */
  cut?: { whileLive: boolean };
  /** The connection, for the test to cut. */
  socket: IncomingMessage["socket"];
  /** The handler ended the response itself. */
  finished: boolean;
}

/** What the page's EventSource reported, in order. */
type PageEntry = { kind: "open" } | { kind: "message"; lastEventId: string; data: string } | { kind: "error"; readyState: number };

/** The page's globals this test sets. */
interface PageGlobals {
  esLog: PageEntry[];
  esSource: EventSource;
}

describe.skipIf(!available)("a browser's EventSource reattaches to a resumable run (headless Chromium)", () => {
  let server: Server;
  let origin: string;
  let browser: Browser;
  let page: Page;
  let store: RunStore;
  const gates = GATES.map(gate);
  const gets: GetSeen[] = [];
  const errors: unknown[] = [];
  let agentDone = false;

  async function* agent(input: RunAgentInput): AsyncGenerator<AguiEventInput> {
    try {
      for (let seq = 0; seq < TOTAL; seq++) {
        const at = GATES.indexOf(seq);
        if (at >= 0) await gates[at]!.opened;
        else if (seq > 0) await sleep(5);
        yield input.runId === RUN_ID ? eventAt(seq) : { type: EventType.RUN_ERROR, message: `unexpected run ${input.runId}` };
      }
    } finally {
      agentDone = true;
    }
  }

  /** The handler, with each GET of the run recorded (its connection kept for the cut) and its gate opened. */
  function agentRoute(): (req: IncomingMessage, res: ServerResponse) => void {
    // Uncompressed: the cut is placed by reading the `id:` lines the handler writes.
    const handler = createNodeHandler(agent, { store, compression: false, onError: (error) => void errors.push(error) });
    return (req, res) => {
      if (req.method === "GET") {
        const index = gets.length;
        const header = req.headers["last-event-id"];
        const seen: GetSeen = { lastEventId: Array.isArray(header) ? header.join(", ") : header, written: [], finished: false, socket: req.socket };
        gets.push(seen);
        gates[index]?.open();
        const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
        res.writeHead = ((...args: unknown[]) => {
          seen.status = args[0] as number;
          return writeHead(...args);
        }) as typeof res.writeHead;
        const write = res.write.bind(res) as (chunk: unknown, done?: (error?: Error | null) => void) => boolean;
        res.write = ((chunk: unknown) => {
          const text = typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8");
          for (const match of text.matchAll(/^id: (\d+)$/gm)) seen.written.push(Number(match[1]));
          return write(chunk);
        }) as typeof res.write;
        res.on("finish", () => (seen.finished = true));
      }
      handler(req, res);
    };
  }

  beforeAll(async () => {
    store = memoryStore();
    // The page needs no script of its own: the test drives EventSource through page.evaluate.
    server = pageServer(new TextEncoder().encode("globalThis.esReady = true;\n"), { "/agent": agentRoute() });
    origin = await listen(server);
    browser = await launchChromium();
    page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(origin);
    await page.waitForFunction(() => "esReady" in globalThis);
    expect(pageErrors).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await closeServer(server);
    await store?.close();
  });

  const pageLog = async (): Promise<PageEntry[]> => page.evaluate(() => (globalThis as unknown as PageGlobals).esLog);

  it("reconnects after two cuts with Last-Event-ID, sees every event once and in order, and stops at the 204", async () => {
    // The run starts from Node; its own response is read to the end alongside.
    const response = await post(`${origin}/agent`, runInput({ runId: RUN_ID, threadId: THREAD_ID }), SSE);
    expect(response.status).toBe(200);
    const postText = response.text();
    // The run's resume token: a reattach must present it, here as the query parameter.
    const token = response.headers.get(RESUME_TOKEN_HEADER);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

    await page.evaluate((url: string) => {
      const global = globalThis as unknown as PageGlobals;
      global.esLog = [];
      const source = new EventSource(url);
      global.esSource = source;
      source.onopen = () => void global.esLog.push({ kind: "open" });
      source.onmessage = (event: MessageEvent<string>) => void global.esLog.push({ kind: "message", lastEventId: event.lastEventId, data: event.data });
      source.onerror = () => void global.esLog.push({ kind: "error", readyState: source.readyState });
    }, `/agent?runId=${RUN_ID}&resumeToken=${token}`);

    // Each of the first two GETs is cut mid-run once the page has seen its CUTS entry (the agent
    // waits at the next gate until the page reconnects, so the run is live then): the connection
    // drops without the stream's end.
    for (const [index, cutAt] of CUTS.entries()) {
      await waitFor(() => gets.length > index, 10_000, `GET ${index}`);
      await page.waitForFunction(
        (at: number) => (globalThis as unknown as PageGlobals).esLog.some((e) => e.kind === "message" && Number(e.lastEventId) >= at),
        cutAt,
        { timeout: 10_000, polling: 20 },
      );
      gets[index]!.cut = { whileLive: !agentDone };
      gets[index]!.socket.destroy();
    }

    // Three reconnects, each after Chromium's 3 s delay; the last one gets the 204.
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).esSource.readyState === EventSource.CLOSED, undefined, { timeout: 20_000, polling: 50 });
    await waitFor(() => agentDone, 1000, "the agent's end");

    const log = await pageLog();
    // open, messages, error; three times (two cuts, then the run's end), and the 204's error, which closes.
    expect(log.filter((e) => e.kind !== "message")).toEqual([
      { kind: "open" },
      { kind: "error", readyState: 0 },
      { kind: "open" },
      { kind: "error", readyState: 0 },
      { kind: "open" },
      { kind: "error", readyState: 0 },
      { kind: "error", readyState: 2 },
    ]);

    // Every event exactly once, in order, ids contiguous from 0.
    const messages = log.filter((e): e is Extract<PageEntry, { kind: "message" }> => e.kind === "message");
    expect(messages.map((m) => m.lastEventId)).toEqual(Array.from({ length: TOTAL }, (_, seq) => String(seq)));
    // As the server sent them: the RUN_STARTED declares its protocol version, the agent having declared none.
    expect(messages.map((m) => JSON.parse(m.data) as unknown)).toEqual(Array.from({ length: TOTAL }, (_, seq) => asServed(eventAt(seq))));

    // The id of the last message before each connection's end, as the page saw it.
    const lastSeenBeforeErrors: string[] = [];
    let last = "";
    for (const entry of log) {
      if (entry.kind === "message") last = entry.lastEventId;
      else if (entry.kind === "error" && entry.readyState === 0) lastSeenBeforeErrors.push(last);
    }

    // The server's side: a GET from the start, two reconnects that each carried the last id the
    // page saw, and a last one after the whole run, answered 204.
    expect(gets.map(({ lastEventId, status }) => ({ lastEventId, status }))).toEqual([
      { lastEventId: undefined, status: 200 },
      { lastEventId: lastSeenBeforeErrors[0], status: 200 },
      { lastEventId: lastSeenBeforeErrors[1], status: 200 },
      { lastEventId: String(TOTAL - 1), status: 204 },
    ]);
    expect(lastSeenBeforeErrors[2]).toBe(String(TOTAL - 1));
    // The first two were cut by the server mid-run, after the page had events of them; the third
    // was ended by the handler when the run ended.
    for (const index of [0, 1]) {
      expect(gets[index]!.cut).toEqual({ whileLive: true });
      expect(gets[index]!.finished).toBe(false);
      expect(Number(lastSeenBeforeErrors[index])).toBeGreaterThanOrEqual(CUTS[index]!);
    }
    expect(Number(lastSeenBeforeErrors[0])).toBeLessThan(GATES[1]!);
    expect(Number(lastSeenBeforeErrors[1])).toBeLessThan(GATES[2]!);
    expect(gets[2]!.cut).toBeUndefined();
    expect(gets[2]!.finished).toBe(true);
    expect(gets[2]!.written.at(-1)).toBe(TOTAL - 1);
    expect(gets[3]!.written).toEqual([]);

    // Closed for good: no request comes within a reconnection delay, and the page hears nothing more.
    await sleep(QUIET_MS);
    expect(gets).toHaveLength(4);
    expect(await pageLog()).toHaveLength(log.length);
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).esSource.readyState)).toBe(2);

    // The POST that started the run streamed all of it too, numbered the same way.
    const ids = [...(await postText).matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual(Array.from({ length: TOTAL }, (_, seq) => seq));
    expect(errors).toEqual([]);
  }, 40_000);
});
