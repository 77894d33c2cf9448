/**
 * Upstream requests over node:http and node:https, for the Node handler: the answer's body is the
 * `IncomingMessage` itself, read as an async iterable, so no WHATWG stream is made per chunk, and
 * connections are kept alive between runs.
 *
 * @module
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { UpstreamSend } from "./upstream.js";

/**
 * An `UpstreamSend` over node:http(s), with one keep-alive connection pool per proxy.
 *
 * @throws Never when made.
 */
export function nodeSend(): UpstreamSend {
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  // A route's URL, parsed once into what node:http asks for: parsing it again, and turning a URL
  // into options, cost a tenth of the proxy's own time on a short run.
  const targets = new Map<string, Target>();
  return (url, { headers, body, signal }) =>
    new Promise((resolve, reject) => {
      let target = targets.get(url);
      if (target === undefined) {
        target = targetOf(url);
        // Bounded, as the URLs come from the configuration (and a fetch of another is rare).
        if (targets.size < 1024) targets.set(url, target);
      }
      const secure = target.secure;
      // The signal is handled here rather than given to node:http, whose own handling destroys the
      // request with an AbortError that, once the answer has been read, nobody can catch.
      const stop = (): void => {
        request.destroy();
        answer?.destroy();
      };
      let answer: IncomingMessage | undefined;
      const request = (secure ? httpsRequest : httpRequest)(
        {
          protocol: target.protocol,
          hostname: target.hostname,
          port: target.port,
          path: target.path,
          auth: target.auth,
          method: "POST",
          headers: { ...headers, "content-length": String(body.byteLength) },
          agent: secure ? agents.https : agents.http,
        },
        (response: IncomingMessage) => {
          answer = response;
          // Until the relay reads it, a reset would be an 'error' nobody listens to, which crashes
          // the process; the relay's iteration still sees it (the stream is left errored).
          response.on("error", () => {});
          response.once("close", () => signal.removeEventListener("abort", stop));
          resolve({
            status: response.statusCode ?? 0,
            header: (name) => {
              const value = response.headers[name];
              return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
            },
            body: response,
            cancel: () => response.destroy(),
          });
        },
      );
      // Every error, not only the first: one after the answer arrived (a reset mid-body) is the
      // body's to report, and must not go unheard.
      request.on("error", reject);
      if (signal.aborted) stop();
      else signal.addEventListener("abort", stop, { once: true });
      request.end(body);
    });
}

/** An upstream URL as node:http's request options hold it. */
interface Target {
  secure: boolean;
  protocol: string;
  hostname: string;
  port: string | undefined;
  path: string;
  auth: string | undefined;
}

/**
 * Parses `url` as node:http would (its `urlToHttpOptions`): brackets off an IPv6 host, the query
 * kept in the path, user and password decoded into `auth`.
 *
 * @throws {TypeError} When `url` is not a URL (the configuration checked it already).
 */
function targetOf(url: string): Target {
  const u = new URL(url);
  const hostname = u.hostname.startsWith("[") ? u.hostname.slice(1, -1) : u.hostname;
  return {
    secure: u.protocol === "https:",
    protocol: u.protocol,
    hostname,
    port: u.port === "" ? undefined : u.port,
    path: `${u.pathname}${u.search}`,
    auth: u.username !== "" || u.password !== "" ? `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}` : undefined,
  };
}
