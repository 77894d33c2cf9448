/**
 * Headless Chromium for the browser tests: the shared parts (a bundled test page, a loopback
 * server for it, the browser itself), and a ready page of test/browser/agent-page.ts for the tests
 * of HttpAgent's idle timeout and redirects.
 *
 * Needs Debian's `chromium` at /usr/bin/chromium (`apt-get install -y chromium`); `available`
 * says whether a suite can run (under CI a missing browser must fail it instead).
 */
import { existsSync } from "node:fs";
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { browserFiles } from "../../scripts/browser-files.js";
import { chromium, type Browser } from "playwright-core";
import type { AgentPageOutcome, AgentPageRun } from "./agent-page.js";

const CHROMIUM = "/usr/bin/chromium";

/** Whether the browser suites run: Chromium is installed, or this is CI (where its absence fails). */
export const available = existsSync(CHROMIUM) || Boolean(process.env.CI);

/** Says, once per suite file, why it is skipped. */
export function warnIfUnavailable(suite: string): void {
  if (!available) console.warn(`${suite} skipped: ${CHROMIUM} is missing (install it with: apt-get install -y chromium)`);
}

/** Bundles a test page's script (a file beside this one) for the browser. */
export async function bundlePage(file: string): Promise<Uint8Array> {
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL(`./${file}`, import.meta.url))],
    bundle: true,
    minify: true,
    platform: "browser",
    format: "esm",
    write: false,
    // The browser build of the library, as package.json's `browser` field gives it to bundlers.
    plugins: [browserFiles()],
  });
  return bundle.outputFiles[0]!.contents;
}

/**
 * A server of the page (`/`, loading `/page.js`, which is `script`) and of `routes` (by exact
 * path, the query left out); anything else is a 404. Not listening yet: see {@link listen}.
 */
export function pageServer(script: Uint8Array, routes: Record<string, RequestListener> = {}): Server {
  return createServer((req, res) => {
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
}

/** Listens on a free port of 127.0.0.1 and returns the origin, `http://127.0.0.1:<port>`. */
export async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes a server and every connection it still has; a missing one is fine. */
export async function closeServer(server: Server | undefined): Promise<void> {
  if (!server) return;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/** Starts Debian's Chromium, headless, without the background traffic of a desktop browser. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

/** A page with HttpAgent loaded, on a server of its own. */
export interface AgentPage {
  /** The page's origin, `http://127.0.0.1:<port>`. */
  origin: string;
  /** Runs an HttpAgent in the page (`url` relative to the page) and reports how it ended. */
  run(options: AgentPageRun): Promise<AgentPageOutcome>;
  close(): Promise<void>;
}

/** A test page opened in Chromium, on a server of its own, whose script exposes `globalThis[name].run`. */
export interface TestPage<Run, Outcome> {
  /** The page's origin, `http://127.0.0.1:<port>`. */
  origin: string;
  /** Calls the page's `run(options)` and returns what it reported. */
  run(options: Run): Promise<Outcome>;
  close(): Promise<void>;
}

/**
 * Bundles `file` (a script of test/browser/), serves it as a page with `routes` (by exact path) on
 * 127.0.0.1, and opens it in Chromium, once its script has defined `globalThis[name]`.
 *
 * @throws When the bundle cannot be built, Chromium cannot start, or the page reports an error.
 */
export async function openTestPage<Run, Outcome>(file: string, name: string, routes: Record<string, RequestListener>): Promise<TestPage<Run, Outcome>> {
  const server = pageServer(await bundlePage(file), routes);
  const origin = await listen(server);
  let browser: Browser | undefined;
  try {
    browser = await launchChromium();
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(origin);
    await page.waitForFunction((global) => global in globalThis, name);
    if (errors.length) throw new Error(`the test page failed: ${errors.join("; ")}`);
    const opened = browser;
    return {
      origin,
      // Typed loosely on purpose: Playwright's serialisability check of the event and message
      // unions' types is too deep for the compiler.
      run: async (options) =>
        (await page.evaluate(
          ([global, json]: [string, string]): Promise<unknown> =>
            (globalThis as unknown as Record<string, { run(o: unknown): Promise<unknown> }>)[global]!.run(JSON.parse(json)),
          [name, JSON.stringify(options)] as [string, string],
        )) as Outcome,
      close: async () => {
        await opened.close();
        await closeServer(server);
      },
    };
  } catch (error) {
    await browser?.close();
    await closeServer(server);
    throw error;
  }
}

/**
 * Serves the page and `routes` (by exact path) on 127.0.0.1, and opens the page in Chromium.
 *
 * @throws When the bundle cannot be built, Chromium cannot start, or the page reports an error.
 */
export function openAgentPage(routes: Record<string, RequestListener>): Promise<AgentPage> {
  return openTestPage<AgentPageRun, AgentPageOutcome>("agent-page.ts", "agentPage", routes);
}
