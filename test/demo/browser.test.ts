/**
 * The demo page in headless Chromium (Debian's `chromium`, driven by playwright-core): it runs
 * both transports and shows every event, the bytes (binary fewer) and the time of each.
 *
 * Skipped, saying so, only when /usr/bin/chromium is missing outside CI; in CI it must run.
 */
import { existsSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDemoServer, type DemoServer } from "../../demo/server.js";
import { sampleRun } from "../../demo/sample-run.js";

const CHROMIUM = "/usr/bin/chromium";
const skip = !existsSync(CHROMIUM) && !process.env.CI;
if (skip) {
  console.warn(`test/demo/browser.test.ts: skipped, ${CHROMIUM} is missing (apt-get install -y chromium); in CI it is required.`);
}

const EVENTS = [...sampleRun({ threadId: "t", runId: "r" })].length;
const DELAY_MS = 30;

interface Shown {
  state: string | undefined;
  status: string;
  count: string;
  bytes: string;
  time: string;
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
      items: [...root.querySelectorAll("ol.events li")].map((li) => li.textContent ?? ""),
    };
  });
}

const number = (text: string): number => Number(text.replace(/[^\d]/g, ""));

describe.skipIf(skip)("the demo page in headless Chromium", () => {
  let server: DemoServer;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    server = await startDemoServer({ port: 0, delayMs: DELAY_MS });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    page = await browser.newPage();
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console error: ${message.text()}`);
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function expectCompleteRun(runId: string): Promise<void> {
    await page.waitForFunction(() => ["binary", "sse"].every((id) => document.getElementById(id)?.dataset.state === "done"), undefined, {
      timeout: 15_000,
    });
    const binary = await shown(page, "binary");
    const sse = await shown(page, "sse");
    for (const panel of [binary, sse]) {
      expect(panel.status).toBe("done");
      expect(panel.items).toHaveLength(EVENTS);
      expect(number(panel.count)).toBe(EVENTS);
      expect(panel.items[0]).toMatch(new RegExp(`^\\+\\d+ msRUN_STARTED run ${runId}$`));
      expect(panel.items.at(-1)).toMatch(/RUN_FINISHED/);
      expect(panel.time).toMatch(/^\d+ ms$/);
      // Events arrived over time, as the agent paced them, not all at once at the end.
      const first = number(panel.items[0]!.split("ms")[0]!);
      const last = number(panel.items.at(-1)!.split("ms")[0]!);
      expect(last - first).toBeGreaterThanOrEqual((EVENTS - 1) * DELAY_MS * 0.5);
      expect(number(panel.time)).toBeGreaterThanOrEqual(last);
    }
    // Both panels list the same events, in the same order.
    const strip = (item: string) => item.replace(/^\+\d+ ms/, "").replace(/"timestamp":\d+/, "");
    expect(binary.items.map(strip)).toEqual(sse.items.map(strip));
    expect(number(binary.bytes)).toBeGreaterThan(0);
    expect(number(binary.bytes)).toBeLessThan(number(sse.bytes));
    expect(await page.textContent("#comparison")).toMatch(/^Binary used [\d,]+ bytes, \d+\.\d% of SSE's [\d,]+, for the same \d+ events\.$/);
  }

  it("runs both transports on load and shows every event, the bytes and the time of each", async () => {
    await page.goto(server.url);
    await expectCompleteRun("demo-run-1");
    expect(problems).toEqual([]);
  });

  it("runs both again on a click", async () => {
    await page.click("#run");
    await page.waitForFunction(() => document.getElementById("comparison")?.textContent === "");
    await expectCompleteRun("demo-run-2");
    expect(problems).toEqual([]);
  });
});
