/**
 * The demo page in headless Chromium (Debian's `chromium`, driven by playwright-core): it runs
 * both transports with `HttpAgent.runAgent` and shows the conversation as it grows (drawn from
 * `agent.messages` and `agent.state`), every event, the bytes (binary fewer) and the time of each
 * (saying how much of it is the agent's pacing); each list follows its newest event on a laptop
 * screen unless the reader scrolled up, and on a phone the panels stack and event names show in
 * full.
 *
 * Skipped, saying so, only when /usr/bin/chromium is missing outside CI; in CI it must run.
 */
import type { Browser, Page, Response } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoServer, type DemoServer } from "../../demo/server.js";
import { ANSWER, conversationRun, FINAL_STATE, FORECAST, INTRO, QUESTION, REASONING, TOOL } from "../../demo/conversation-run.js";
import { available, launchChromium, warnIfUnavailable } from "../browser/chromium.js";

const skip = !available;
warnIfUnavailable("test/demo/browser.test.ts");

const EVENTS = [...conversationRun({ threadId: "t", runId: "r" })].length;
const DELAY_MS = 30;
/** Where a drop test holds its run: past the events it waits to see, well before the end. */
const HOLD_AT = 25;

interface Shown {
  state: string | undefined;
  status: string;
  count: string;
  bytes: string;
  time: string;
  pacing: string;
  items: string[];
}

/** What one transport's panel shows, read from the page as a user would see it. */
function shown(page: Page, id: "binary" | "sse"): Promise<Shown> {
  return page.$eval(`#${id}`, (root) => {
    const text = (selector: string) => root.querySelector(selector)?.textContent?.trim() ?? "";
    return {
      state: (root as HTMLElement).dataset.state,
      status: text(".status"),
      count: text(".count"),
      bytes: text(".bytes"),
      time: text(".time"),
      pacing: text(".pacing"),
      items: [...root.querySelectorAll("ol.events li")].map((li) => li.textContent ?? ""),
    };
  });
}

/** A message of a panel's conversation, as the page shows it. */
interface ShownMessage {
  role: string | undefined;
  label: string;
  text: string;
  calls: string[];
}

/** What one transport's panel shows of the conversation and the state. */
function conversation(page: Page, id: "binary" | "sse"): Promise<{ messages: ShownMessage[]; state: string }> {
  return page.$eval(`#${id}`, (root) => ({
    messages: [...root.querySelectorAll<HTMLElement>("ol.conversation > li")].map((li) => ({
      role: li.dataset.role,
      label: li.querySelector(".role")?.textContent ?? "",
      text: li.querySelector(".text")?.textContent ?? "",
      calls: [...li.querySelectorAll(".tool-call")].map((call) => `${call.querySelector(".name")?.textContent} ${call.querySelector(".args")?.textContent}`),
    })),
    state: root.querySelector(".state")?.textContent ?? "",
  }));
}

/** The whole turn, as each panel must show it once its run is done. */
const TURN: ShownMessage[] = [
  { role: "user", label: "user", text: QUESTION, calls: [] },
  { role: "activity", label: "activity PLAN", text: JSON.stringify({ steps: [{ title: "Look up the forecast", done: true }, { title: "Answer", done: true }] }), calls: [] },
  { role: "reasoning", label: "reasoning", text: REASONING, calls: [] },
  { role: "assistant", label: "assistant", text: INTRO, calls: [`${TOOL.name} ${TOOL.arguments}`] },
  { role: "tool", label: `tool result (${TOOL.name})`, text: JSON.stringify(FORECAST), calls: [] },
  { role: "assistant", label: "assistant", text: ANSWER, calls: [] },
];

const number = (text: string): number => Number(text.replace(/[^\d]/g, ""));

interface Box {
  top: number;
  bottom: number;
}

/** Where a panel's last event row is, against its list's visible box and the window. */
function lastRowInView(
  page: Page,
  id: string,
): Promise<{ row: Box; list: Box; text: string; scrollHeight: number; clientHeight: number; windowHeight: number }> {
  return page.$eval(`#${id} ol.events`, (list) => {
    const box = (element: Element) => {
      const { top, bottom } = element.getBoundingClientRect();
      return { top, bottom };
    };
    // The list's visible box is its client area: its border box less borders and scrollbar.
    const outer = list.getBoundingClientRect();
    const top = outer.top + list.clientTop;
    const last = list.lastElementChild!;
    return {
      row: box(last),
      list: { top, bottom: top + list.clientHeight },
      text: last.textContent ?? "",
      scrollHeight: list.scrollHeight,
      clientHeight: list.clientHeight,
      windowHeight: window.innerHeight,
    };
  });
}

describe.skipIf(skip)("the demo page in headless Chromium", () => {
  let server: DemoServer;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  /**
   * Runs whose id starts with `prefix` wait before event `at` until released: a test that drops
   * connections mid-run drops them while the run surely goes on, however slowly this machine
   * shows its events (a page that lags its server could otherwise show event 15 of a run the
   * server has finished).
   */
  let held: { prefix: string; at: number; released: Promise<void> } | undefined;
  function hold(prefix: string, at = HOLD_AT): () => void {
    let release!: () => void;
    held = { prefix, at, released: new Promise<void>((resolve) => (release = resolve)) };
    return () => {
      held = undefined;
      release();
    };
  }

  beforeAll(async () => {
    server = await startDemoServer({
      port: 0,
      delayMs: DELAY_MS,
      beforeEvent: (runId, index) => (held && runId.startsWith(held.prefix) && index === held.at ? held.released : undefined),
    });
    browser = await launchChromium();
    page = await open({ width: 1366, height: 768 });
  });
  /** A new page of the given size, whose errors go to `problems`. */
  async function open(viewport: { width: number; height: number }): Promise<Page> {
    const opened = await browser.newPage({ viewport });
    opened.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    opened.on("console", (message) => {
      if (message.type() === "error") problems.push(`console error: ${message.text()}`);
    });
    return opened;
  }

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function expectCompleteRun(runId: string, page: Page, throughProxy = false): Promise<void> {
    await page.waitForFunction(() => ["binary", "sse"].every((id) => document.getElementById(id)?.dataset.state === "done"), undefined, {
      timeout: 15_000,
    });
    const binary = await shown(page, "binary");
    const sse = await shown(page, "sse");
    for (const panel of [binary, sse]) {
      expect(panel.status).toBe("done");
      expect(panel.items).toHaveLength(EVENTS);
      expect(number(panel.count)).toBe(EVENTS);
      expect(panel.items[0]).toMatch(new RegExp(`^\\+\\d+ msRUN_STARTED run ${runId}[bs]-[0-9a-z]+$`));
      expect(panel.items.at(-1)).toMatch(/RUN_FINISHED/);
      expect(panel.time).toMatch(/^\d+ ms$/);
      // Events arrived over time, as the agent paced them, not all at once at the end.
      const first = number(panel.items[0]!.split("ms")[0]!);
      const last = number(panel.items.at(-1)!.split("ms")[0]!);
      expect(last - first).toBeGreaterThanOrEqual((EVENTS - 1) * DELAY_MS * 0.5);
      expect(number(panel.time)).toBeGreaterThanOrEqual(last);
      // The time says how much of it the scripted agent spent waiting on purpose.
      expect(panel.pacing).toBe(`(agent paced: ${(EVENTS * DELAY_MS).toLocaleString("en-US")} ms of delays)`);
    }
    // Both panels list the same events, in the same order.
    const strip = (item: string) =>
      item
        .replace(/^\+\d+ ms/, "")
        .replace(/"timestamp":\d+/, "")
        .replace(/(run-\d+)[bs]-[0-9a-z]+/g, "$1");
    expect(binary.items.map(strip)).toEqual(sse.items.map(strip));
    expect(number(binary.bytes)).toBeGreaterThan(0);
    expect(number(binary.bytes)).toBeLessThan(number(sse.bytes));
    // Each panel shows the whole turn, ending with the assistant's answer, and the final state.
    for (const id of ["binary", "sse"] as const) {
      const shownTurn = await conversation(page, id);
      expect(shownTurn.messages, id).toEqual(TURN);
      expect(shownTurn.messages.at(-1)!.text, id).toBe(ANSWER);
      expect(shownTurn.state, id).toBe(JSON.stringify(FINAL_STATE));
    }
    const proxied = throughProxy ? " Through the proxy: the upstream answered SSE, and the proxy re-encoded each event as a binary frame for the binary panel\\." : "";
    expect(await page.textContent("#comparison")).toMatch(new RegExp(`^Binary used [\\d,]+ bytes, \\d+\\.\\d% of SSE's [\\d,]+, for the same \\d+ events\\.${proxied}$`));
  }

  it("runs both transports on load and shows the conversation, every event, the bytes and the time of each", async () => {
    // Before the page's script runs: note each text the SSE panel's answer shows, as it changes.
    await page.addInitScript(() => {
      addEventListener("DOMContentLoaded", () => {
        const list = document.querySelector<HTMLElement>("#sse ol.conversation")!;
        const seen: string[] = ((globalThis as unknown as { answerSteps: string[] }).answerSteps = []);
        new MutationObserver(() => {
          const items = list.querySelectorAll<HTMLElement>(':scope > li[data-role="assistant"]');
          const text = items.length === 2 ? (items[1]!.querySelector(".text")?.textContent ?? "") : undefined;
          if (text !== undefined && text !== seen.at(-1)) seen.push(text);
        }).observe(list, { childList: true, subtree: true, characterData: true });
      });
    });
    await page.goto(server.url);
    expect(await page.textContent("#delay")).toBe(String(DELAY_MS));
    await expectCompleteRun("run-1", page);
    // The answer grew on the page as its deltas arrived, each text a longer prefix of the last.
    const steps = await page.evaluate(() => (globalThis as unknown as { answerSteps: string[] }).answerSteps);
    expect(steps.length).toBeGreaterThan(3);
    expect(steps.at(-1)).toBe(ANSWER);
    for (let i = 1; i < steps.length; i++) expect(steps[i]!.startsWith(steps[i - 1]!) && steps[i] !== steps[i - 1]).toBe(true);
    expect(problems).toEqual([]);
  });

  it("at 1366×768, each list has followed its events and the conversation its answer: the last ones are in view", async () => {
    for (const id of ["binary", "sse"]) {
      const view = await lastRowInView(page, id);
      // The list did overflow (so following it meant scrolling), and its last row is inside the
      // list's visible box and inside the window.
      expect(view.scrollHeight, id).toBeGreaterThan(view.clientHeight);
      expect(view.row.top, id).toBeGreaterThanOrEqual(view.list.top - 1);
      expect(view.row.bottom, id).toBeLessThanOrEqual(view.list.bottom + 1);
      expect(view.row.bottom, id).toBeLessThanOrEqual(view.windowHeight);
      expect(view.text, id).toMatch(/RUN_FINISHED/);
      // The conversation followed too: the answer, its last message, ends inside its box.
      const answer = await page.$eval(`#${id} ol.conversation`, (list) => {
        const last = list.lastElementChild!.getBoundingClientRect();
        const box = list.getBoundingClientRect();
        return { bottom: last.bottom, listBottom: box.top + list.clientTop + list.clientHeight, text: list.lastElementChild!.querySelector(".text")?.textContent };
      });
      expect(answer.text, id).toBe(ANSWER);
      expect(answer.bottom, id).toBeLessThanOrEqual(answer.listBottom + 1);
    }
  });

  it("runs both again on a click", async () => {
    await page.click("#run");
    await page.waitForFunction(() => document.getElementById("comparison")?.textContent === "");
    await expectCompleteRun("run-2", page);
    expect(problems).toEqual([]);
  });

  it("runs both through the proxy when asked, the binary panel getting frames made from the SSE-only upstream's events", async () => {
    await page.check("#via-proxy");
    await page.waitForFunction(() => document.body.dataset.route === "proxy" && document.getElementById("comparison")?.textContent === "");
    await expectCompleteRun("run-3", page, true);
    expect(problems).toEqual([]);
  });

  it("shows the proxy refusing a wrong token: 401 with its challenge, and no run", async () => {
    await page.click("#wrong-token");
    await page.waitForFunction(() => document.getElementById("comparison")?.dataset.refused !== undefined);
    expect(await page.$eval("#comparison", (p) => (p as HTMLElement).dataset.refused)).toBe("401");
    // Chromium logs every 4xx answer to a fetch as a console error: this one was asked for.
    const expected = problems.findIndex((p) => /status of 401/.test(p));
    expect(expected, problems.join("\n")).toBeGreaterThanOrEqual(0);
    problems.splice(expected, 1);
    expect(await page.textContent("#comparison")).toMatch(/^The proxy refused the wrong token: 401, "[^"]+" \(WWW-Authenticate: Bearer realm="agui-wire", error="invalid_token"[^)]*\)\. The agent never ran\.$/);
    // Back to direct runs for the tests that follow.
    await page.uncheck("#via-proxy");
    await page.waitForFunction(() => document.body.dataset.route === "direct");
    await page.waitForFunction(() => ["binary", "sse"].every((id) => document.getElementById(id)?.dataset.state === "done"), undefined, { timeout: 15_000 });
    expect(problems).toEqual([]);
  });

  it("drops both connections mid-run on a click: each client reattaches, gets what it missed, and completes the run whole", async () => {
    const release = hold("run-5");
    await page.click("#run");
    await page.waitForFunction(() => ["binary", "sse"].every((id) => (document.querySelectorAll(`#${id} ol.events li`).length ?? 0) >= 15));
    await page.click("#drop");
    await page.waitForFunction(() => Number(document.getElementById("comparison")?.dataset.dropped) >= 1);
    release();
    await expectCompleteRun("run-5", page);
    for (const id of ["binary", "sse"] as const) {
      const note = await page.$eval(`#${id} .resumed`, (p) => p.textContent ?? "");
      expect(note, id).toMatch(
        new RegExp(
          `^Reattached after event \\d+: \\d+ missed events? replayed\\. All ${EVENTS} once\\.$`,
        ),
      );
      // The agent went on while the page was away (its events are 30 ms apart, the client waits 200 ms to reattach).
      expect(Number(await page.$eval(`#${id}`, (root) => (root as HTMLElement).dataset.replayed)), id).toBeGreaterThanOrEqual(1);
    }
    // Chromium reports a body cut short as a failed load: that is what was asked for.
    const cut = problems.filter((p) => /ERR_INCOMPLETE_CHUNKED_ENCODING|ERR_CONNECTION|network error/i.test(p));
    problems.splice(0, problems.length, ...problems.filter((p) => !cut.includes(p)));
    expect(problems).toEqual([]);
  });

  it("drops both connections to the proxy mid-run: each client reattaches through the proxy, from the proxy's own store, and completes the run whole", async () => {
    // What the page asked of the server, and how it was answered, from here on.
    const answered: string[] = [];
    const onResponse = (response: Response): void => {
      const url = new URL(response.url());
      answered.push(`${response.request().method()} ${url.pathname}${url.search} ${response.status()}`);
    };
    page.on("response", onResponse);
    const release = hold("run-6");
    try {
      // Checking the box starts a run through the proxy (its lists are emptied at once).
      await page.check("#via-proxy");
      await page.waitForFunction(
        () => document.body.dataset.route === "proxy" && ["binary", "sse"].every((id) => document.querySelectorAll(`#${id} ol.events li`).length >= 15),
      );
      expect(await page.isEnabled("#drop")).toBe(true);
      await page.click("#drop");
      await page.waitForFunction(() => document.getElementById("comparison")?.dataset.dropped !== undefined);
      release();
      // The page's two connections to the proxy, and not the proxy's own to its upstream (the
      // run would then end with a RUN_ERROR rather than complete).
      expect(await page.$eval("#comparison", (p) => (p as HTMLElement).dataset.dropped)).toBe("2");
      await expectCompleteRun("run-6", page, true);
      for (const id of ["binary", "sse"] as const) {
        const note = await page.$eval(`#${id} .resumed`, (p) => p.textContent ?? "");
        expect(note, id).toMatch(new RegExp(`^Reattached through the proxy after event \\d+: \\d+ missed events? replayed\\. All ${EVENTS} once\\.$`));
        const data = await page.$eval(`#${id}`, (root) => ({ ...(root as HTMLElement).dataset }));
        expect(data.reattachedVia, id).toBe("proxy");
        // The upstream went on while the page was away, and the proxy's store kept its events.
        expect(Number(data.replayed), id).toBeGreaterThanOrEqual(1);
        // The reattach was a GET to the proxy, which answered it (its upstream keeps no runs).
        const panelRun = new RegExp(`^GET /proxy/agents/demo\\?runId=run-6${id === "binary" ? "b" : "s"}-[0-9a-z]+ 200$`);
        expect(answered.filter((line) => panelRun.test(line)).length, answered.join("\n")).toBeGreaterThanOrEqual(1);
      }
      // Nothing went straight to the agent.
      expect(answered.filter((line) => line.includes(" /agent")), answered.join("\n")).toEqual([]);
    } finally {
      release();
      page.off("response", onResponse);
    }
    const cut = problems.filter((p) => /ERR_INCOMPLETE_CHUNKED_ENCODING|ERR_CONNECTION|network error/i.test(p));
    problems.splice(0, problems.length, ...problems.filter((p) => !cut.includes(p)));
    expect(problems).toEqual([]);
    // Back to direct runs for the tests that follow.
    await page.uncheck("#via-proxy");
    await page.waitForFunction(() => document.body.dataset.route === "direct");
    await page.waitForFunction(() => ["binary", "sse"].every((id) => document.getElementById(id)?.dataset.state === "done"), undefined, { timeout: 15_000 });
    expect(problems).toEqual([]);
  });

  it("drops connections from a click between runs: it starts a run and cuts it a few events in, and the run completes whole", async () => {
    await page.waitForFunction(() => ["binary", "sse"].every((id) => document.getElementById(id)?.dataset.state === "done"), undefined, { timeout: 15_000 });
    // Between runs too the button can be clicked: a run lasts a few seconds, too short to aim at.
    expect(await page.isEnabled("#drop")).toBe(true);
    const release = hold("run-8");
    await page.click("#drop");
    await page.waitForFunction(() => document.getElementById("comparison")?.dataset.dropped !== undefined);
    release();
    expect(Number(await page.$eval("#comparison", (p) => (p as HTMLElement).dataset.dropped))).toBe(2);
    await expectCompleteRun("run-8", page);
    for (const id of ["binary", "sse"] as const) {
      const note = await page.$eval(`#${id} .resumed`, (p) => p.textContent ?? "");
      expect(note, id).toMatch(new RegExp(`^Reattached after event \\d+: \\d+ missed events? replayed\\. All ${EVENTS} once\\.$`));
    }
    const cut = problems.filter((p) => /ERR_INCOMPLETE_CHUNKED_ENCODING|ERR_CONNECTION|network error/i.test(p));
    problems.splice(0, problems.length, ...problems.filter((p) => !cut.includes(p)));
    expect(problems).toEqual([]);
  });

  it("leaves a list where the reader scrolled it, instead of following new events", async () => {
    // A short window, so that the lists overflow after a few events and most of the run is
    // still to come when the reader scrolls up.
    const short = await open({ width: 1366, height: 420 });
    try {
      // Before the page's own script runs: scroll the binary list to its top, in the page, as
      // soon as it overflows by more than a row (in the turn a new event made it so, not a round
      // trip later). Less than that would leave it within the page's "at the end" tolerance.
      await short.addInitScript(() => {
        addEventListener("DOMContentLoaded", () => {
          const list = document.querySelector<HTMLElement>("#binary ol.events")!;
          const observer = new MutationObserver(() => {
            if (list.scrollHeight - list.clientHeight < 24) return;
            list.scrollTop = 0;
            document.body.dataset.scrolledUpAt = String(list.children.length);
            observer.disconnect();
          });
          observer.observe(list, { childList: true });
        });
      });
      await short.goto(server.url);
      await expectCompleteRun("run-1", short);
      const scrolledAt = Number(await short.evaluate(() => document.body.dataset.scrolledUpAt));
      expect(scrolledAt).toBeGreaterThan(0);
      expect(scrolledAt).toBeLessThan(EVENTS);
      // The binary list stayed at the top; the SSE list, untouched, followed to the end.
      expect(await short.$eval("#binary ol.events", (list) => list.scrollTop)).toBe(0);
      const sse = await lastRowInView(short, "sse");
      expect(sse.row.bottom).toBeLessThanOrEqual(sse.list.bottom + 1);
      expect(sse.row.top).toBeGreaterThanOrEqual(sse.list.top - 1);
    } finally {
      await short.close();
    }
    expect(problems).toEqual([]);
  });

  it("at 390×844, starts the panels within the first screen, and shows a wrong token's answer in view", async () => {
    const phone = await open({ width: 390, height: 844 });
    try {
      await phone.goto(server.url);
      await expectCompleteRun("run-1", phone);
      await phone.evaluate(() => window.scrollTo(0, 0));
      // The first panel begins in the top half of the screen, its status and first events with it
      // (the explanation went below the panels, where it pushed them about 1,000 px down).
      const top = await phone.$eval("#binary", (panel) => panel.getBoundingClientRect().top);
      expect(top).toBeLessThan(844 / 2);
      await phone.click("#wrong-token");
      await phone.waitForFunction(() => document.getElementById("comparison")?.dataset.refused !== undefined);
      // The answer is on the screen the button is on: nothing scrolled, and it lies within it.
      const answer = await phone.$eval("#comparison", (p) => ({ ...p.getBoundingClientRect().toJSON(), text: p.textContent, scrollY: window.scrollY, height: window.innerHeight }));
      expect(answer.text).toMatch(/^The proxy refused the wrong token: 401/);
      expect(answer.scrollY).toBe(0);
      expect(answer.top).toBeGreaterThanOrEqual(0);
      expect(answer.bottom).toBeLessThanOrEqual(answer.height);
      // Chromium logs every 4xx answer to a fetch as a console error: this one was asked for.
      const expected = problems.findIndex((p) => /status of 401/.test(p));
      expect(expected, problems.join("\n")).toBeGreaterThanOrEqual(0);
      problems.splice(expected, 1);
    } finally {
      await phone.close();
    }
    expect(problems).toEqual([]);
  });

  it("at 390×844, stacks the panels and shows event names in full", async () => {
    const phone = await open({ width: 390, height: 844 });
    try {
      await phone.goto(server.url);
      await expectCompleteRun("run-1", phone);
      const [binary, sse] = await Promise.all(["#binary", "#sse"].map(async (id) => (await phone.locator(id).boundingBox())!));
      // One above the other, each about the page's width, not side by side.
      expect(binary!.y + binary!.height).toBeLessThanOrEqual(sse!.y);
      expect(Math.abs(binary!.x - sse!.x)).toBeLessThanOrEqual(1);
      expect(binary!.width).toBeGreaterThan(300);
      const rows = await phone.$$eval("ol.events li", (items) =>
        items.map((row) => {
          const name = row.querySelector(".type")!;
          const box = row.getBoundingClientRect();
          const nameBox = name.getBoundingClientRect();
          return {
            name: name.textContent,
            // Nothing in the row is clipped or hidden to the side...
            overflows: row.scrollWidth > row.clientWidth,
            // ...and the name sits on one line, inside the row.
            nameLines: name.getClientRects().length,
            nameInside: nameBox.left >= box.left - 0.5 && nameBox.right <= box.right + 0.5,
          };
        }),
      );
      expect(rows).toHaveLength(2 * EVENTS);
      for (const row of rows) expect(row, row.name ?? "").toMatchObject({ overflows: false, nameLines: 1, nameInside: true });
      // Neither list scrolls sideways.
      const sideways = await phone.$$eval("ol.events", (lists) => lists.map((list) => list.scrollWidth - list.clientWidth));
      expect(sideways).toEqual([0, 0]);
    } finally {
      await phone.close();
    }
    expect(problems).toEqual([]);
  });
});
