/**
 * Cross-origin runs in headless Chromium: a page served from one origin (http://127.0.0.1:A)
 * runs agents served from another (http://127.0.0.1:B; the port alone makes it another origin).
 * With `cors` allowing the page's origin the run streams; with `cors` off, or allowing another
 * origin, or without `credentials` when the page sends cookies, the browser blocks the run at
 * its preflight and the agent never runs; and the requests a page can send without a preflight
 * (text/plain, forms) get 415 and never run it either.
 *
 * Needs Debian's `chromium` at /usr/bin/chromium (`apt-get install -y chromium`). Without it the
 * suite is skipped, except under CI, where a missing browser must fail the run.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Transport } from "../../src/client/index.js";
import { BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE, type RunAgentInput } from "../../src/index.js";
import { createAgentHandler, createNodeHandler, type AgentHandlerOptions } from "../../src/server/index.js";
import { fetchBridge, shortRun } from "../server/helpers.js";
import { available, bundlePage, closeServer, launchChromium, listen, pageServer, warnIfUnavailable } from "./chromium.js";
import type { CorsRunOutcome, SimpleBody } from "./cors-page.js";

warnIfUnavailable("test/browser/cors.test.ts");

/** One request the agents' server received, as it answered it. */
interface Seen {
  method: string;
  route: string;
  /** The unique query each test adds, so that no preflight answer is reused from the cache. */
  query: string;
  contentType: string | undefined;
  cookie: string | undefined;
  status?: number;
}

describe.skipIf(!available)("cross-origin runs in headless Chromium", () => {
  let pageHost: Server;
  let agentServer: Server;
  let pageOrigin: string;
  let agentOrigin: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const seen: Seen[] = [];
  const runs: { route: string; input: RunAgentInput }[] = [];
  let unique = 0;

  beforeAll(async () => {
    pageHost = pageServer(await bundlePage("cors-page.ts"));
    pageOrigin = await listen(pageHost);

    const agentFor = (route: string) => (input: RunAgentInput) => {
      runs.push({ route, input });
      return shortRun(input);
    };
    const node = (route: string, options: AgentHandlerOptions<IncomingMessage>) => createNodeHandler(agentFor(route), options);
    const fetchStyle = (route: string, options: AgentHandlerOptions<Request>) => fetchBridge(createAgentHandler(agentFor(route), options));
    const allowPage = { origins: [pageOrigin], credentials: true, maxAgeSeconds: 0 };
    const routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
      "/node": node("/node", { cors: allowPage }),
      "/fetch": fetchStyle("/fetch", { cors: allowPage }),
      "/closed": node("/closed", {}),
      "/closed-fetch": fetchStyle("/closed-fetch", {}),
      "/elsewhere": node("/elsewhere", { cors: { origins: ["https://app.example.com"], credentials: true } }),
      "/no-credentials": node("/no-credentials", { cors: { origins: [pageOrigin] } }),
    };
    agentServer = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://agent");
      const entry: Seen = {
        method: req.method ?? "",
        route: url.pathname,
        query: url.search,
        contentType: req.headers["content-type"],
        cookie: req.headers.cookie,
      };
      seen.push(entry);
      // Noted when the head is written, so before the browser can have the answer.
      const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
      res.writeHead = ((...args: unknown[]) => {
        entry.status = args[0] as number;
        return writeHead(...args);
      }) as typeof res.writeHead;
      const route = routes[url.pathname];
      if (route) route(req, res);
      else res.writeHead(404).end();
    });
    agentOrigin = await listen(agentServer);
    expect(agentOrigin).not.toBe(pageOrigin);

    browser = await launchChromium();
    context = await browser.newContext();
    // A session cookie of the agents' host: a page of another origin on the same host makes a
    // same-site request, so the browser sends it whenever the page asks for credentials.
    await context.addCookies([{ name: "session", value: "s3cret", url: agentOrigin }]);
    page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(pageOrigin);
    await page.waitForFunction(() => "corsPage" in globalThis);
    expect(errors).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await closeServer(pageHost);
    await closeServer(agentServer);
  });

  /** A URL of the agents' server no earlier test used, so no cached preflight answer applies. */
  const agentUrl = (route: string): { url: string; query: string } => {
    const query = `?t=${++unique}`;
    return { url: `${agentOrigin}${route}${query}`, query };
  };

  const seenFor = (query: string) => seen.filter((s) => s.query === query).map(({ method, status }) => `${method} ${status}`);

  const run = async (url: string, transport: Transport, credentials: RequestCredentials): Promise<CorsRunOutcome> =>
    (await page.evaluate(
      ([u, t, c]: [string, Transport, RequestCredentials]) =>
        (globalThis as unknown as { corsPage: { run(u: string, t: Transport, c: RequestCredentials): Promise<unknown> } }).corsPage.run(u, t, c),
      [url, transport, credentials] as [string, Transport, RequestCredentials],
    )) as CorsRunOutcome;

  const simplePost = async (url: string, kind: SimpleBody): Promise<string> =>
    (await page.evaluate(
      ([u, k]: [string, SimpleBody]) =>
        (globalThis as unknown as { corsPage: { simplePost(u: string, k: SimpleBody): Promise<string> } }).corsPage.simplePost(u, k),
      [url, kind] as [string, SimpleBody],
    )) as string;

  const SHORT_RUN = shortRun({ threadId: "t", runId: "r" }).map((e) => e.type);

  for (const route of ["/node", "/fetch"]) {
    for (const [transport, mediaType] of [["binary", BINARY_MEDIA_TYPE], ["sse", SSE_MEDIA_TYPE]] as const) {
      it(`streams a run to a page of an allowed origin, with its cookies (${route}, ${transport})`, async () => {
        const { url, query } = agentUrl(route);
        const before = runs.length;
        const outcome = await run(url, transport, "include");
        expect(outcome.error).toBeUndefined();
        expect(outcome.completed).toBe(true);
        expect(outcome.eventTypes).toEqual(SHORT_RUN);
        expect(outcome.contentTypes).toEqual([mediaType]);
        // The browser asked first, then sent the run with the page's credentials.
        expect(seenFor(query)).toEqual(["OPTIONS 204", "POST 200"]);
        expect(seen.find((s) => s.query === query && s.method === "POST")).toMatchObject({ contentType: "application/json", cookie: "session=s3cret" });
        expect(runs.slice(before).map((r) => r.route)).toEqual([route]);
      });
    }
  }

  it("streams a run without credentials to an allowed origin too", async () => {
    const { url, query } = agentUrl("/no-credentials");
    const outcome = await run(url, "auto", "same-origin");
    expect(outcome.completed).toBe(true);
    expect(outcome.eventTypes).toEqual(SHORT_RUN);
    expect(seenFor(query)).toEqual(["OPTIONS 204", "POST 200"]);
    expect(seen.find((s) => s.query === query && s.method === "POST")?.cookie).toBeUndefined();
  });

  for (const [route, why, preflightStatus] of [
    ["/closed", "cors is off (node handler)", 405],
    ["/closed-fetch", "cors is off (fetch handler)", 405],
    ["/elsewhere", "cors allows another origin", 403],
    ["/no-credentials", "the page sends credentials and cors does not allow them", 204],
  ] as const) {
    it(`blocks the run at its preflight when ${why}: the agent never runs`, async () => {
      const { url, query } = agentUrl(route);
      const before = runs.length;
      const outcome = await run(url, "auto", "include");
      expect(outcome.completed).toBe(false);
      expect(outcome.error).toMatchObject({ code: "network_error" });
      expect(outcome.eventTypes).toEqual([]);
      // The browser rejects only after the preflight's answer, and then sends no POST at all.
      expect(seenFor(query)).toEqual([`OPTIONS ${preflightStatus}`]);
      expect(runs.length).toBe(before);
    });
  }

  for (const route of ["/closed", "/node", "/fetch"]) {
    for (const kind of ["text", "form", "multipart"] as const) {
      it(`answers a ${kind} POST a page sends without a preflight with 415, and the agent never runs (${route})`, async () => {
        const { url, query } = agentUrl(route);
        const before = runs.length;
        // The answer is opaque to the page: only the server side tells what happened.
        expect(await simplePost(url, kind)).toBe("opaque");
        expect(seenFor(query)).toEqual(["POST 415"]);
        const request = seen.find((s) => s.query === query)!;
        expect(request.cookie).toBe("session=s3cret");
        expect(request.contentType).toMatch({ text: /^text\/plain/, form: /^application\/x-www-form-urlencoded/, multipart: /^multipart\/form-data/ }[kind]);
        expect(runs.length).toBe(before);
      });
    }
  }
});
