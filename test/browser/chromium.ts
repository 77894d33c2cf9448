/**
 * Headless Chromium on a page of test/browser/agent-page.ts, served with the routes a test
 * gives, for the browser tests of HttpAgent's idle timeout and redirects.
 *
 * Needs Debian's `chromium` at /usr/bin/chromium (`apt-get install -y chromium`); `available`
 * says whether a suite can run (under CI a missing browser must fail it instead).
 */
import { existsSync } from "node:fs";
import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { chromium, type Browser } from "playwright-core";
import type { AgentPageOutcome, AgentPageRun } from "./agent-page.js";

const CHROMIUM = "/usr/bin/chromium";

/** Whether the browser suites run: Chromium is installed, or this is CI (where its absence fails). */
export const available = existsSync(CHROMIUM) || Boolean(process.env.CI);

/** A page with HttpAgent loaded, on a server of its own. */
export interface AgentPage {
  /** The page's origin, `http://127.0.0.1:<port>`. */
  origin: string;
  /** Runs an HttpAgent in the page (`url` relative to the page) and reports how it ended. */
  run(options: AgentPageRun): Promise<AgentPageOutcome>;
  close(): Promise<void>;
}

/**
 * Serves the page and `routes` (by exact path) on 127.0.0.1, and opens the page in Chromium.
 *
 * @throws When the bundle cannot be built, Chromium cannot start, or the page reports an error.
 */
export async function openAgentPage(routes: Record<string, RequestListener>): Promise<AgentPage> {
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL("./agent-page.ts", import.meta.url))],
    bundle: true,
    minify: true,
    platform: "browser",
    format: "esm",
    write: false,
  });
  const script = bundle.outputFiles[0]!.contents;
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    if (path === "/") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end('<!doctype html><meta charset="utf-8"><title>agui-wire</title><script type="module" src="/page.js"></script>');
    } else if (path === "/page.js") {
      res.writeHead(200, { "content-type": "text/javascript; charset=utf-8" });
      res.end(script);
    } else if (routes[path]) {
      routes[path]!(req, res);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const closeServer = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(origin);
    await page.waitForFunction(() => "agentPage" in globalThis);
    if (errors.length) throw new Error(`the test page failed: ${errors.join("; ")}`);
    const opened = browser;
    return {
      origin,
      run: async (options) =>
        (await page.evaluate(
          (json: string): Promise<unknown> => (globalThis as unknown as { agentPage: { run(o: unknown): Promise<unknown> } }).agentPage.run(JSON.parse(json)),
          JSON.stringify(options),
        )) as AgentPageOutcome,
      close: async () => {
        await opened.close();
        await closeServer();
      },
    };
  } catch (error) {
    await browser?.close();
    await closeServer();
    throw error;
  }
}
