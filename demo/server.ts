/**
 * The demo's HTTP server: the page, its script (bundled from `page.ts` with esbuild at startup),
 * the demo agent at `POST /agent`, served by `createNodeHandler`, and the same agent behind the
 * secure proxy at `/proxy/agents/demo` (`createNodeProxyHandler`), whose upstream answers SSE only,
 * as an agent written with another library might: a client asking for binary then sees the proxy
 * transcode.
 */
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { browserFiles } from "../scripts/browser-files.js";
import { createNodeHandler } from "../src/server/index.js";
import { createNodeProxyHandler } from "../src/proxy/index.js";
import { createDemoAgent } from "./agent.js";

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
 * script), `POST /agent` (the demo agent, both transports), `POST /sse-agent` (the same, SSE
 * only) and the proxy under `/proxy/` (`GET /proxy/agents`, `POST /proxy/agents/demo`, with the
 * bearer token {@link DEMO_TOKEN}); anything else is 404.
 *
 * @throws {Error} when the script does not build, or the port cannot be bound (`EADDRINUSE`,
 *   `EACCES`), as the underlying esbuild or node:http error.
 */
export async function startDemoServer(options: DemoServerOptions = {}): Promise<DemoServer> {
  const { port = 3000, host = "127.0.0.1", delayMs = 40 } = options;
  const [page, script] = await Promise.all([readFile(here("./index.html"), "utf8"), bundlePage()]);
  // The page says how the agent is paced, so that it can tell its reader how much of a run's
  // time is that pacing.
  const html = page.replace(/(<meta name="agent-delay-ms" content=")\d+(")/, `$1${delayMs}$2`);
  const agent = createNodeHandler(createDemoAgent(delayMs), {
    onError: (error) => console.error("demo agent failed:", error),
  });

  let proxy: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (path === "/agent") return agent(req, res);
    if (path === "/sse-agent") {
      // The proxy's upstream: the same agent, deaf to the binary transport.
      req.headers.accept = "text/event-stream";
      return agent(req, res);
    }
    if (path.startsWith("/proxy/") && proxy) {
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
    { onError: (error) => console.error("demo proxy: a run failed:", error), logger: options.logRuns ? (record) => console.log(JSON.stringify(record)) : undefined },
  );
  return {
    url: `http://${shownHost}:${bound}/`,
    port: bound,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Streams in progress would hold close() open until they end.
        server.closeAllConnections();
      }),
  };
}
