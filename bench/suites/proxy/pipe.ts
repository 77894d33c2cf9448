/**
 * The proxy suite's floor, a process of its own: a reverse proxy on node:http that pipes bytes both
 * ways and copies status and headers, as a minimal one is written; it checks nothing.
 *
 * Argument: `{"upstream": "http://127.0.0.1:<port>"}`. Prints `{"url": "http://127.0.0.1:<port>"}`
 * when listening.
 */
import { Agent as HttpPool, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { announce, argument, serve, stringField, type Handler } from "./serve.js";

/** Headers that describe one hop's connection, not the message (RFC 9110 §7.6.1): never copied. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade", "host"]);

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (!HOP_BY_HOP.has(name)) out[name] = value;
  return out;
}

/** Pipes each request to `upstream` over `pool`, and its answer back. Never throws. */
function pipeHandler(upstream: string, pool: HttpPool): Handler {
  const target = new URL(upstream);
  return (req, res) => {
    const out = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...endToEnd(req.headers), host: target.host }, agent: pool },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
        answer.pipe(res);
      },
    );
    out.on("error", () => {
      if (res.headersSent) res.destroy();
      else res.writeHead(502).end();
    });
    res.on("close", () => {
      if (!res.writableFinished) out.destroy();
    });
    req.pipe(out);
  };
}

// Pooled keep-alive connections upstream, as the proxy's fetch has.
const pool = new HttpPool({ keepAlive: true });
announce({ url: await serve(pipeHandler(stringField(argument(), "upstream"), pool)) });
