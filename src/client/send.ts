/**
 * Sending a run's requests (the POST, and a resumable run's GET and DELETE): the wait for the response headers bounded by the idle timeout,
 * redirects followed or refused by policy, and failures told by their cause.
 *
 * @module
 */
import { AguiWireError } from "../util/index.js";
import type { RunResponse, Send } from "./response.js";
import { abortedError, discard, HttpStatusError } from "./errors.js";
import { describeFailure } from "./fetch-failure.js";

/**
 * What an `HttpAgent` does when a run is answered with a redirect (301, 302, 303, 307, 308):
 *
 * - `same-origin` (the default): follows a 307 or 308 to the same origin, up to
 *   {@link MAX_REDIRECTS} times, with the same method, body and headers; refuses one to another
 *   origin, where the conversation and the custom headers would go, and a 301, 302 or 303, which
 *   would turn the run's POST into a GET without its input (a resumable run's reattaching GET
 *   follows those too: it stays a GET). In a browser, where fetch hides a
 *   redirect's target from the page, every redirect is refused.
 * - `follow`: whatever fetch does by itself (any origin; in a browser, under CORS).
 * - `error`: refuses every redirect.
 *
 * A refused redirect is an `HttpStatusError` (`http_status`) with the redirect's status (0 for a
 * browser's hidden one), and its message names the target's origin and this option.
 */
export type RedirectPolicy = "same-origin" | "follow" | "error";

/** The most redirects a run follows under `redirect: "same-origin"`, as fetch does (20). */
export const MAX_REDIRECTS = 20;

/** What {@link sendRun} needs. */
export interface SendRun {
  fetch: Send;
  url: string;
  /** Default `POST`; a resumable run also reattaches (`GET`) and cancels (`DELETE`). */
  method?: "POST" | "GET" | "DELETE";
  headers: Headers;
  /** The POST's body; none for the other methods. */
  body?: string;
  redirect: RedirectPolicy;
  /** The longest wait for each response's headers; 0 for none. */
  idleMs: number;
  /** The caller's signal: when it has fired, any failure is `aborted`. */
  signal: AbortSignal | undefined;
  /** Ends the request; the caller's signal fires it too. */
  request: AbortController;
}

/**
 * One fetch, its wait for the response headers bounded by `idleMs`.
 *
 * @throws {AguiWireError} `aborted` when the caller's signal fired, `timeout` when no headers came
 *   within `idleMs`, `network_error` (naming the cause) when the request failed.
 */
async function fetchWithin(run: SendRun, url: string, init: RequestInit): Promise<RunResponse> {
  let timedOut = false;
  const timer = run.idleMs
    ? setTimeout(() => {
        timedOut = true;
        run.request.abort();
      }, run.idleMs)
    : undefined;
  try {
    // Called unbound: a browser's fetch throws "Illegal invocation" when called as a method.
    const doFetch = run.fetch;
    const response = await doFetch(url, init);
    if (!timedOut) return response;
    // The headers came as the timer fired, and the request is aborted already.
    discard(response);
  } catch (error) {
    if (run.signal?.aborted) throw abortedError(run.signal);
    if (!timedOut) throw new AguiWireError("network_error", `${run.method ?? "POST"} ${url} failed: ${describeFailure(error)}`, { cause: error });
  } finally {
    clearTimeout(timer);
  }
  throw new AguiWireError("timeout", `${run.method ?? "POST"} ${url}: nothing received for ${run.idleMs} ms (idleTimeoutMs)`);
}

/**
 * Sends a run's request (a POST unless `run.method` says otherwise) and returns the response,
 * after the redirects that `run.redirect` allows. A GET may follow a 301, 302 or 303 too, since
 * it stays a GET with nothing lost.
 *
 * @throws {AguiWireError} As {@link fetchWithin} does.
 * @throws {HttpStatusError} `http_status` for a redirect the policy refuses (see
 *   {@link RedirectPolicy}), or more than {@link MAX_REDIRECTS} of them.
 */
export async function sendRun(run: SendRun): Promise<RunResponse> {
  const method = run.method ?? "POST";
  const init: RequestInit = {
    method,
    headers: run.headers,
    body: run.body,
    redirect: run.redirect === "follow" ? "follow" : "manual",
    signal: run.request.signal,
  };
  let url = run.url;
  for (let redirects = 0; ; redirects++) {
    const response = await fetchWithin(run, url, init);
    const { status } = response;
    const opaque = response.type === "opaqueredirect";
    const base = response.url || url;
    const location = response.headers.get("location");
    let target: URL | undefined;
    try {
      if (location) target = new URL(location, base);
    } catch {
      // Not a URL: not a redirect this can follow; the answer is reported as it is.
    }
    // The statuses that redirect: 301, 302, 303, 307, 308.
    if (run.redirect === "follow" || !(opaque || (target && /^30[12378]$/.test(String(status))))) return response;
    // A redirect's body is not worth reading; cancelling it frees the connection.
    discard(response);
    const refuse = (why: string): HttpStatusError =>
      new HttpStatusError(status, undefined, `HTTP ${status}: ${method} ${url} redirects ${why}: refused (redirect: "${run.redirect}"; "follow" allows it)`);
    if (opaque) throw refuse("where the browser does not say, so its origin is unknown");
    if (run.redirect === "error") throw refuse(`to ${target!.origin}`);
    if (target!.origin !== new URL(base).origin) throw refuse(`to another origin, ${target!.origin}`);
    if (status < 307 && method !== "GET") throw refuse(`to ${target!.href} with a ${status}, which turns the ${method} into a GET${method === "POST" ? " without the run's input" : ""}`);
    if (redirects === MAX_REDIRECTS) throw refuse(`more than ${MAX_REDIRECTS} times`);
    url = target!.href;
  }
}

/**
 * Whether `url` is of another origin than the page's (false outside a page): a run's own resume
 * token header is not sent there unasked, since a browser would ask that server first.
 *
 * @throws Never.
 */
export function crossOrigin(url: string): boolean {
  const origin = (globalThis as { location?: { origin?: string } }).location?.origin;
  if (typeof origin !== "string" || origin === "null") return false;
  try {
    return new URL(url, origin).origin !== origin;
  } catch {
    return true;
  }
}
