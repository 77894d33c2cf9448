/**
 * Cross-origin requests (CORS) for the handlers' `cors` option: checking the option once, and
 * pure functions from request header values to the headers of a preflight answer or of a run's
 * response. Nothing here reads a request or writes a response.
 *
 * What the handler does with it (see `handle.ts`): without the option it sends no CORS header
 * and answers OPTIONS with 405, so browsers keep other origins out. With it, a preflight from a
 * listed origin gets 204 and the allow headers, one from any other origin 403, and each response
 * to a POST from a listed origin carries `Access-Control-Allow-Origin`.
 *
 * @module
 */

/**
 * The `cors` option of both handlers: which other origins' pages may run the agent.
 *
 * @example
 * createAgentHandler(agent, { cors: { origins: ["https://app.example.com"], credentials: true } });
 */
export interface CorsOptions {
  /**
   * Origins whose pages may run the agent: scheme, host and port, such as
   * `"https://app.example.com"` or `"http://localhost:5173"` (case and a trailing slash do not
   * matter; no path, query or wildcard pattern). `["*"]` allows every origin, and only without
   * `credentials`. At least one entry.
   */
  origins: readonly string[];
  /**
   * Whether pages may send credentials (cookies, HTTP authentication, client certificates) with a
   * run: answers `Access-Control-Allow-Credentials: true`. The page must also ask for them
   * (`credentials: "include"` on its fetch). Default false.
   */
  credentials?: boolean;
  /**
   * How long, in whole seconds, a browser may reuse a preflight's answer
   * (`Access-Control-Max-Age`). Browsers cap it (Chromium at 7,200, Firefox at 86,400). Default:
   * not sent, so browsers use their own default (5 s).
   */
  maxAgeSeconds?: number;
}

/** The `cors` option, checked and normalised. */
export interface ResolvedCors {
  /** `origins` was `["*"]`. */
  anyOrigin: boolean;
  /** The allowed origins, normalised (lower case, no trailing slash, no default port). */
  origins: ReadonlySet<string>;
  credentials: boolean;
  maxAgeSeconds: number | undefined;
}

/** What a CORS preflight asks, from its headers. */
export interface PreflightRequest {
  /** `Origin`. */
  origin: string;
  /** `Access-Control-Request-Method`. */
  requestMethod: string;
  /** `Access-Control-Request-Headers`, `null` or `undefined` when absent. */
  requestHeaders: string | null | undefined;
}

/** The answer to a preflight: 204 with `headers`, or 403 with `message` and `headers`. */
export type PreflightAnswer = { ok: true; headers: Record<string, string> } | { ok: false; message: string; headers: Record<string, string> };

const KEYS = new Set(["origins", "credentials", "maxAgeSeconds"]);

/**
 * An HTTP token (RFC 9110 §5.6.2): what a header name is made of. Internal to the package (the
 * proxy's configuration checks header names with it).
 */
export const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** A preflight's answer depends on these request headers, so caches must key on them. */
const PREFLIGHT_VARY = "Origin, Access-Control-Request-Method, Access-Control-Request-Headers";

const kindOf = (value: unknown): string => (value === null ? "null" : Array.isArray(value) ? "an array" : typeof value);

/**
 * Normalises one configured origin to the form browsers send in `Origin`: lower-case scheme and
 * host, no default port, no trailing slash (`"HTTPS://App.Example.com:443/"` becomes
 * `"https://app.example.com"`; an internationalised host becomes its punycode form).
 *
 * @param origin - The configured origin.
 * @param where - Where it was found, for the message (`cors.origins[0]`).
 * @throws {RangeError} when it is not an origin: not a URL with a scheme and a host, or with a
 *   path, query, fragment or user info, a pattern with `*`, or `"null"` (the origin of sandboxed frames and `file:`
 *   pages, which any site can produce, so allowing it would allow everyone).
 */
export function normalizeOrigin(origin: string, where = "origin"): string {
  const example = 'an origin such as "https://app.example.com"';
  if (origin.trim().toLowerCase() === "null") {
    throw new RangeError(`${where} must be ${example}, found "null", which any sandboxed page can send`);
  }
  // The URL parser takes "*" as part of a host name: a pattern would silently match nothing.
  if (origin.includes("*")) {
    throw new RangeError(`${where} must be ${example}, found ${JSON.stringify(origin)} (patterns are not supported: list each origin)`);
  }
  let url: URL;
  try {
    url = new URL(origin.trim());
  } catch {
    throw new RangeError(`${where} must be ${example}, found ${JSON.stringify(origin)}`);
  }
  const extra =
    url.host === "" ? "no host" :
    url.username !== "" || url.password !== "" ? "user info" :
    url.pathname !== "" && url.pathname !== "/" ? `a path (${url.pathname})` :
    url.search !== "" ? `a query (${url.search})` :
    url.hash !== "" ? `a fragment (${url.hash})` :
    undefined;
  if (extra !== undefined) throw new RangeError(`${where} must be ${example}, found ${JSON.stringify(origin)} with ${extra}`);
  // Not `url.origin`: it is "null" for schemes the URL standard does not know (an app's
  // `capacitor://localhost`), which browsers embedding those schemes do send as origins.
  return `${url.protocol}//${url.host}`.toLowerCase();
}

/**
 * Checks the `cors` option and normalises its origins; runs once, when a handler is made.
 *
 * @param value - The option as given; `undefined` leaves CORS off.
 * @returns `undefined` when CORS is off, else the checked option.
 * @throws {TypeError} when `cors` is not an object, has a key other than `origins`,
 *   `credentials` and `maxAgeSeconds`, or one of those has the wrong type.
 * @throws {RangeError} when `origins` is empty, holds something that is not an origin (see
 *   {@link normalizeOrigin}), or holds `"*"` along with other origins or with `credentials: true`
 *   (browsers refuse credentials with a wildcard), or `maxAgeSeconds` is not a whole number of
 *   seconds, 0 or more.
 */
export function resolveCors(value: unknown): ResolvedCors | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(`cors must be an object { origins, credentials?, maxAgeSeconds? }, found ${kindOf(value)}`);
  }
  for (const key of Object.keys(value)) {
    if (!KEYS.has(key)) throw new TypeError(`cors has no option ${JSON.stringify(key)}: expected origins, credentials or maxAgeSeconds`);
  }
  const { origins, credentials = false, maxAgeSeconds } = value as Partial<CorsOptions>;
  if (!Array.isArray(origins)) throw new TypeError(`cors.origins must be an array of origins, found ${kindOf(origins)}`);
  if (origins.length === 0) throw new RangeError("cors.origins must list at least one origin (leave cors out to turn CORS off)");
  if (typeof credentials !== "boolean") throw new TypeError(`cors.credentials must be a boolean, found ${kindOf(credentials)}`);
  if (maxAgeSeconds !== undefined) {
    if (typeof maxAgeSeconds !== "number") throw new TypeError(`cors.maxAgeSeconds must be a number, found ${kindOf(maxAgeSeconds)}`);
    if (!Number.isSafeInteger(maxAgeSeconds) || maxAgeSeconds < 0) {
      throw new RangeError(`cors.maxAgeSeconds must be a whole number of seconds, 0 or more, found ${String(maxAgeSeconds)}`);
    }
  }
  const normalized = new Set<string>();
  let anyOrigin = false;
  origins.forEach((origin: unknown, i) => {
    const where = `cors.origins[${i}]`;
    if (typeof origin !== "string") throw new TypeError(`${where} must be a string, found ${kindOf(origin)}`);
    if (origin.trim() === "*") anyOrigin = true;
    else normalized.add(normalizeOrigin(origin, where));
  });
  if (anyOrigin && origins.length > 1) throw new RangeError('cors.origins: "*" allows every origin and must be the only entry');
  if (anyOrigin && credentials) {
    throw new RangeError('cors.origins ["*"] cannot be combined with credentials: true (browsers refuse credentials with a wildcard): list the origins');
  }
  return { anyOrigin, origins: normalized, credentials, maxAgeSeconds };
}

/**
 * The `Access-Control-Allow-Origin` value for a request's `Origin`, if that origin is allowed.
 *
 * @param origin - The request's `Origin` header, `null` or `undefined` when absent.
 * @returns `"*"` when every origin is allowed, the origin as the request sent it when it is
 *   listed (compared case-insensitively: hosts and schemes are), else `undefined`. A request
 *   without `Origin` is never given one, nor one with `Origin: null` unless every origin is.
 * @throws Never.
 */
export function allowedOrigin(cors: ResolvedCors, origin: string | null | undefined): string | undefined {
  if (origin === null || origin === undefined || origin === "") return undefined;
  if (cors.anyOrigin) return "*";
  return origin !== "null" && cors.origins.has(origin.toLowerCase()) ? origin : undefined;
}

/**
 * Whether a request is a CORS preflight: `OPTIONS` with `Origin` and
 * `Access-Control-Request-Method` (the Fetch standard's definition). Any other OPTIONS is an
 * ordinary request, answered 405.
 *
 * @throws Never.
 */
export function isPreflight(method: string, origin: string | null | undefined, requestMethod: string | null | undefined): boolean {
  return method === "OPTIONS" && origin != null && requestMethod != null;
}

/**
 * Parses `Access-Control-Request-Headers`: a comma-separated list of header names.
 *
 * @returns The names, lower case, without duplicates, in order; `undefined` when an entry is not
 *   a header name.
 * @throws Never.
 */
export function parseHeaderNames(value: string | null | undefined): string[] | undefined {
  const names: string[] = [];
  if (value === null || value === undefined) return names;
  for (const part of value.split(",")) {
    const name = part.trim().toLowerCase();
    if (name === "") continue;
    if (!TOKEN.test(name)) return undefined;
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

/**
 * Answers a preflight. Allowed when the origin is allowed and the method asked for is one of
 * `methods` (POST, or with a run store "POST, GET, DELETE"): then 204 headers allowing them and
 * exactly the request headers the browser asked for. Echoing them, rather than a fixed list, keeps working whatever headers a page adds (an
 * `Authorization`, an API key) and grants nothing the origin itself was not granted: the origin
 * is the gate. Otherwise a refusal, which the handler sends as 403 with a JSON `{ error }`
 * rather than a 204 without allow headers: the browser blocks either way, and a 403 tells whoever
 * reads the network log why.
 *
 * Every answer carries `Vary: Origin, Access-Control-Request-Method,
 * Access-Control-Request-Headers`, since each of them shapes it.
 *
 * @throws Never.
 */
export function preflight(cors: ResolvedCors, request: PreflightRequest, methods = "POST"): PreflightAnswer {
  const vary = { Vary: PREFLIGHT_VARY };
  const allowOrigin = allowedOrigin(cors, request.origin);
  if (allowOrigin === undefined) {
    return { ok: false, message: `CORS preflight refused: origin ${JSON.stringify(request.origin)} is not allowed`, headers: vary };
  }
  const allowed = methods.split(", ");
  if (!allowed.includes(request.requestMethod)) {
    return { ok: false, message: `CORS preflight refused: method ${JSON.stringify(request.requestMethod)} is not allowed: expected ${allowed.join(" or ")}`, headers: vary };
  }
  const names = parseHeaderNames(request.requestHeaders);
  if (names === undefined) {
    return {
      ok: false,
      message: `CORS preflight refused: Access-Control-Request-Headers ${JSON.stringify(request.requestHeaders)} is not a list of header names`,
      headers: vary,
    };
  }
  const headers: Record<string, string> = {
    "Access-Control-Allow-Origin": allowOrigin,
    "Access-Control-Allow-Methods": methods,
  };
  if (names.length > 0) headers["Access-Control-Allow-Headers"] = names.join(", ");
  if (cors.credentials) headers["Access-Control-Allow-Credentials"] = "true";
  if (cors.maxAgeSeconds !== undefined) headers["Access-Control-Max-Age"] = String(cors.maxAgeSeconds);
  headers.Vary = PREFLIGHT_VARY;
  return { ok: true, headers };
}

/**
 * The CORS headers of the response to an actual request (the run's stream or an error): always
 * `Vary: Origin`, since the answer depends on it; for an allowed origin also
 * `Access-Control-Allow-Origin` and, with `credentials`, `Access-Control-Allow-Credentials`.
 *
 * `Access-Control-Expose-Headers` only for `expose`: a client otherwise reads only the status,
 * the body and `Content-Type`, which browsers always expose; a resumable run's client also reads
 * `AG-UI-Run-Id`.
 *
 * @param origin - The request's `Origin` header, `null` or `undefined` when absent.
 * @param expose - Response headers a page of that origin may read, comma-separated.
 * @throws Never.
 */
export function responseCorsHeaders(cors: ResolvedCors, origin: string | null | undefined, expose?: string): Record<string, string> {
  const allowOrigin = allowedOrigin(cors, origin);
  if (allowOrigin === undefined) return { Vary: "Origin" };
  const headers: Record<string, string> = { "Access-Control-Allow-Origin": allowOrigin };
  if (cors.credentials) headers["Access-Control-Allow-Credentials"] = "true";
  if (expose !== undefined) headers["Access-Control-Expose-Headers"] = expose;
  headers.Vary = "Origin";
  return headers;
}

/**
 * Adds `extra` headers to `headers`, merging `Vary` lists (`Vary: Accept` and `Vary: Origin`
 * make `Vary: Accept, Origin`) and replacing any other header of the same name, whatever the case.
 *
 * @returns A new record; neither argument is changed.
 * @throws Never.
 */
export function withHeaders(headers: Record<string, string>, extra: Record<string, string>): Record<string, string> {
  const merged: Record<string, string> = { ...headers };
  for (const [name, value] of Object.entries(extra)) {
    const existing = Object.keys(merged).find((key) => key.toLowerCase() === name.toLowerCase());
    if (existing === undefined) {
      merged[name] = value;
      continue;
    }
    if (name.toLowerCase() === "vary") {
      const have = merged[existing]!.split(",").map((v) => v.trim()).filter((v) => v !== "");
      for (const item of value.split(",").map((v) => v.trim())) {
        if (item !== "" && !have.some((v) => v.toLowerCase() === item.toLowerCase())) have.push(item);
      }
      merged[existing] = have.join(", ");
    } else {
      delete merged[existing];
      merged[name] = value;
    }
  }
  return merged;
}
