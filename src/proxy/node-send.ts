/**
 * Upstream requests over node:http and node:https, for the Node handler: the answer's body is read
 * straight from the `IncomingMessage` (src/node-http/incoming-body.ts: every byte arrived since the last read
 * in one chunk), so no WHATWG stream is made per chunk, and connections are kept alive between runs.
 *
 * @module
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { httpTargets, incomingBody, incomingHeader } from "../node-http/index.js";
import type { UpstreamSend } from "./upstream.js";

/**
 * An `UpstreamSend` over node:http(s), with one keep-alive connection pool per proxy.
 *
 * @throws Never when made.
 */
export function nodeSend(): UpstreamSend {
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
  // A route's URL, parsed once into what node:http asks for (the URLs come from the configuration).
  const targetOf = httpTargets();
  return (url, { method = "POST", headers, body, signal }) =>
    new Promise((resolve, reject) => {
      const target = targetOf(url);
      const secure = target.secure;
      // The signal is handled here rather than given to node:http, whose own handling destroys the
      // request with an AbortError that, once the answer has been read, nobody can catch.
      const stop = (): void => {
        request.destroy();
        answer?.destroy();
      };
      let answer: IncomingMessage | undefined;
      let request = send(true);
      if (signal.aborted) stop();
      else signal.addEventListener("abort", stop, { once: true });

      /**
       * Sends the request. A kept-alive connection that the upstream closed as idle just as it was
       * taken (its keep-alive timeout, 5 s for a Node server, met ours) fails at once with a reset
       * before any answer: the upstream never read the request, so it is sent once more on a new
       * connection, as Node's documentation advises (`request.reusedSocket`).
       */
      function send(mayRetry: boolean) {
        const sent = (secure ? httpsRequest : httpRequest)(
          {
            protocol: target.protocol,
            hostname: target.hostname,
            port: target.port,
            path: target.path,
            auth: target.auth,
            method,
            headers: body === undefined ? headers : { ...headers, "content-length": String(body.byteLength) },
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
              header: (name) => incomingHeader(response, name),
              body: incomingBody(response, () => response.destroy()),
              cancel: () => response.destroy(),
            });
          },
        );
        // Every error, not only the first: one after the answer arrived (a reset mid-body) is the
        // body's to report, and must not go unheard.
        sent.on("error", (error: NodeJS.ErrnoException) => {
          if (mayRetry && sent.reusedSocket && answer === undefined && !signal.aborted && (error.code === "ECONNRESET" || error.code === "EPIPE")) {
            request = send(false);
          } else reject(error);
        });
        sent.end(body);
        return sent;
      }
    });
}
