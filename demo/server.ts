/**
 * The demo's HTTP server: the page, its script (bundled from `page.ts` with esbuild at startup),
 * the demo agent at `/agent`, served by `createNodeHandler` with a memory store (so its runs are
 * resumable: `POST /demo/drop` cuts the connections of the runs in progress, and the page's
 * clients reattach), and the same agent behind the secure proxy at `/proxy/agents/demo`
 * (`createNodeProxyHandler`), whose upstream answers SSE only and keeps no runs, as an agent
 * written with another library might: a client asking for binary then sees the proxy transcode.
 * The proxy keeps the runs it relays in a memory store of its own, so that they are resumable
 * too: `POST /demo/drop` cuts the page's connections to the proxy (not the proxy's to its
 * upstream, whose run the proxy reads on), and the clients reattach through the proxy.
 */
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { browserFiles } from "../scripts/browser-files.js";
import { createNodeHandler, memoryStore } from "../src/server/index.js";
import { createNodeProxyHandler } from "../src/proxy/index.js";
import { createDemoAgent, type BeforeEvent } from "./agent.js";

/** Options of {@link startDemoServer}. */
export interface DemoServerOptions {
  /** Port to listen on; 0 picks a free one. Default 3000. */
  port?: number;
  /** Address to bind; default 127.0.0.1, so that the demo is not reachable from elsewhere. */
  host?: string;
  /** Milliseconds between the agent's events; default 40. */
  delayMs?: number;
  /** Print the proxy's record of each run it relays, as a JSON line; default false. */
  logRuns?: boolean;
  /** Awaited by the agent before each event (both the direct agent and the proxy's upstream); see `BeforeEvent`. */
  beforeEvent?: BeforeEvent;
}

/** The bearer token the demo page sends to the proxy (a demo's, not a secret). */
export const DEMO_TOKEN = "demo-token";

/** A running demo server. */
export interface DemoServer {
  /** The page's URL, e.g. `http://127.0.0.1:3000/`. */
  url: string;
  port: number;
  /** Stops the server, closing open connections (runs in progress are aborted). */
  close(): Promise<void>;
}

const here = (name: string): string => fileURLToPath(new URL(name, import.meta.url));

/** The page's script: `page.ts` and the parts of the library it uses, as one browser module. */
async function bundlePage(): Promise<string> {
  const result = await build({
    entryPoints: [here("./page.ts")],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    write: false,
    logLevel: "silent",
    // The library's browser build (package.json's `browser` field), as the page's bundler gets it.
    plugins: [browserFiles()],
  });
  return result.outputFiles[0]!.text;
}

const PAGE_HEADERS = { "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" };

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { ...PAGE_HEADERS, "Content-Type": type, "Content-Length": Buffer.byteLength(body) });
  res.end(body);
}

/**
 * Starts the demo: builds the page's script, then serves `GET /` (the page), `GET /page.js` (its
 * script), `/agent` (the demo agent, both transports, resumable: `POST` runs, `GET ?runId=`
 * reattaches, `DELETE ?runId=` cancels, both with the run's resume token; the page's `HttpAgent`
 * does all three), `POST /demo/drop` (cuts every connection `/agent` and `/proxy/agents/demo` are
 * streaming on, as a network would; answers `{ "dropped": n }`), `POST /sse-agent` (the agent, SSE
 * only, not resumable: the proxy's upstream) and the proxy under `/proxy/` (`GET /proxy/agents`,
 * and `/proxy/agents/demo` with the bearer token {@link DEMO_TOKEN}: `POST` runs, and from the
 * proxy's own store `GET ?runId=` reattaches and `DELETE ?runId=` cancels, with the run's resume
 * token); anything else is 404.
 *
 * @throws {Error} when the script does not build, or the port cannot be bound (`EADDRINUSE`,
 *   `EACCES`), as the underlying esbuild or node:http error.
 */
export async function startDemoServer(options: DemoServerOptions = {}): Promise<DemoServer> {
  const { port = 3000, host = "127.0.0.1", delayMs = 40, beforeEvent } = options;
  const [page, script] = await Promise.all([readFile(here("./index.html"), "utf8"), bundlePage()]);
  // The page says how the agent is paced, so that it can tell its reader how much of a run's
  // time is that pacing.
  const html = page.replace(/(<meta name="agent-delay-ms" content=")\d+(")/, `$1${delayMs}$2`);
  const onError = (error: unknown): void => console.error("demo agent failed:", error);
  const store = memoryStore();
  const agent = createNodeHandler(createDemoAgent(delayMs, beforeEvent), { store, onError });
  const upstream = createNodeHandler(createDemoAgent(delayMs, beforeEvent), { onError });
  /** The proxy's own store: the runs it relays to its upstream (which keeps none), resumable through it. */
  const proxyStore = memoryStore();
  /**
   * The responses `/agent` and the proxy's agent paths are streaming to clients, so that
   * `/demo/drop` can cut their connections (the proxy's own requests to `/sse-agent` are not
   * among them: a network between the page and the proxy fails, not the one behind it).
   */
  const streaming = new Set<ServerResponse>();
  const track = (res: ServerResponse): void => {
    streaming.add(res);
    res.on("close", () => streaming.delete(res));
  };

  let proxy: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (path === "/agent") {
      track(res);
      return agent(req, res);
    }
    if (path === "/demo/drop" && req.method === "POST") {
      // What a flaky network does: the connections go, the runs go on in the store.
      const dropped = streaming.size;
      for (const open of streaming) open.socket?.destroy();
      streaming.clear();
      return send(res, 200, "application/json", JSON.stringify({ dropped }));
    }
    if (path === "/sse-agent") {
      // The proxy's upstream: the same agent, deaf to the binary transport.
      req.headers.accept = "text/event-stream";
      return upstream(req, res);
    }
    if (path.startsWith("/proxy/") && proxy) {
      if (path.startsWith("/proxy/agents/")) track(res);
      req.url = req.url!.slice("/proxy".length);
      return proxy(req, res);
    }
    if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, "text/plain; charset=utf-8", "method not allowed\n");
    if (path === "/" || path === "/index.html") return send(res, 200, "text/html; charset=utf-8", html);
    if (path === "/page.js") return send(res, 200, "text/javascript; charset=utf-8", script);
    send(res, 404, "text/plain; charset=utf-8", "not found\n");
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  proxy = createNodeProxyHandler(
    {
      agents: { demo: { url: `http://${shownHost}:${bound}/sse-agent`, description: "The demo agent, answering SSE only" } },
      auth: { tokens: [{ token: DEMO_TOKEN, subject: "demo-page", agents: ["demo"] }] },
    },
    {
      store: proxyStore,
      onError: (error) => console.error("demo proxy: a run failed:", error),
      logger: options.logRuns ? (record) => console.log(JSON.stringify(record)) : undefined,
    },
  );
  return {
    url: `http://${shownHost}:${bound}/`,
    port: bound,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Streams in progress would hold close() open until they end.
        server.closeAllConnections();
        void store.close();
        void proxyStore.close();
      }),
  };
}
