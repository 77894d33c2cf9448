/**
 * The proxy suite's upstream, a process of its own: node:http with `createNodeHandler`, streaming a
 * pre-built `mixedTrace` per path (a `tokenTrace` on paths starting `/token`; binary or SSE as
 * asked), and under `/sse<path>` always SSE (the route overwrites the request's Accept before the
 * handler sees it).
 *
 * Argument: `{"paths": {"/long": 2000, ...}}`, the trace size per path. Prints
 * `{"url": "http://127.0.0.1:<port>", "events": {"/long": <events served>, ...}}` when listening.
 */
import { SSE_MEDIA_TYPE } from "../../../src/index.js";
import { createNodeHandler } from "../../../src/server/index.js";
import { mixedTrace } from "../../../test/fixtures/corpus.js";
import { tokenTrace } from "../../token-trace.js";
import { announce, argument, routes, serve, type Handler } from "./serve.js";

const paths = argument().paths;
if (typeof paths !== "object" || paths === null) throw new Error(`expected "paths" in the argument, an object of path to event count, found ${JSON.stringify(paths)}`);

const table: Record<string, Handler> = {};
const events: Record<string, number> = {};
for (const [path, size] of Object.entries(paths)) {
  if (!path.startsWith("/") || typeof size !== "number" || !(size > 0)) throw new Error(`expected a path "/..." and a positive event count, found ${JSON.stringify(path)}: ${JSON.stringify(size)}`);
  // Built once, before listening, so that no run pays for it.
  const trace = path.startsWith("/token") ? tokenTrace(size) : mixedTrace(size);
  events[path] = trace.length;
  // Identity: the proxy's fetch would ask for gzip, and this suite measures transcoding, not zlib.
  const handler = createNodeHandler(() => trace, { compression: false });
  table[path] = handler;
  table[`/sse${path}`] = (req, res) => {
    req.headers.accept = SSE_MEDIA_TYPE;
    handler(req, res);
  };
}

announce({ url: await serve(routes(table)), events });
