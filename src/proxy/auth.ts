/**
 * Who a proxy request comes from: reading the bearer token of the `Authorization` header
 * (RFC 6750) and checking it against the configured static tokens, then as a JWT. The outcome is
 * a principal, or the status, message and `WWW-Authenticate` challenge of the refusal.
 *
 * Refusals never repeat the token, a secret or a claim's value: they end up in logs and in
 * responses to whoever sent the token.
 *
 * @module
 */
import * as nodeCrypto from "node:crypto";
import { createRemoteJWKSet, importSPKI, jwtVerify, type JWTPayload, type JWTVerifyGetKey, type JWTVerifyOptions } from "jose";
import { BEARER_TOKEN, type JwtConfig, type ProxyAuthConfig, type TokenConfig } from "./config.js";

/** Who a request comes from, and which agents it may use ("all" = every agent). */
export interface Principal {
  /** The token entry's `subject`, or the JWT's `sub`. */
  subject: string;
  /** How the caller proved it: a static token of the config, or a JWT. */
  via: "token" | "jwt";
  /** The agents the caller may run, or `"all"` when nothing restricts it. */
  agents: ReadonlySet<string> | "all";
}

/**
 * What authenticating a request gave: a principal, or the refusal to send (its status, a message
 * for the body and logs, and the `WWW-Authenticate` value).
 */
export type AuthOutcome =
  | { ok: true; principal: Principal }
  | { ok: false; status: 401 | 503; message: string; challenge: string };

/** What `createAuthenticator` takes besides the config; tests replace the clock and the file system. */
export interface AuthOptions {
  /** The time in ms since the epoch, for JWT expiry; `Date.now` by default. */
  now?: () => number;
  /** Reads `jwt.publicKeyFile` as UTF-8; `node:fs/promises`' `readFile` by default. */
  readFile?: (path: string) => Promise<string>;
}

/** Checks the `Authorization` header of requests against one auth config. */
export interface Authenticator {
  /**
   * Checks an `Authorization` header value (`null`/`undefined` when the request has none).
   * Never throws and never rejects: every failure is an `{ ok: false }` outcome.
   */
  authenticate(authorization: string | null | undefined): Promise<AuthOutcome>;
}

const REALM = 'Bearer realm="agui-wire"';
/** The refusal when the keys could not be loaded (unreachable key set, unreadable key file): not the caller's fault. */
function keysUnavailable(): AuthOutcome {
  return { ok: false, status: 503, message: "the proxy could not load the keys to verify tokens with", challenge: REALM };
}
/** Asymmetric algorithms accepted with a public key or a key set; HS256 is only for `secret`. */
const ASYMMETRIC = ["RS256", "ES256"] as const;
const DEFAULT_CLOCK_TOLERANCE_SECONDS = 30;

/** The verification keys could not be loaded: the proxy's (or the issuer's) problem, not the caller's. */
class KeysUnavailable extends Error {
  override readonly name = "KeysUnavailable";
}

/** A token refused for a reason found outside jose (its reason is safe to send back). */
class TokenRefused extends Error {
  override readonly name = "TokenRefused";
}

/**
 * Builds the authenticator for an auth config (checked by `parseProxyConfig` first). Nothing is
 * loaded here: the static tokens are hashed, the key file read and the key set fetched on first
 * use, so building one never fails and an unreachable key set surfaces as a 503 per request.
 *
 * @throws Nothing.
 */
export function createAuthenticator(auth: ProxyAuthConfig, options: AuthOptions = {}): Authenticator {
  const now = options.now ?? Date.now;
  const tokens = auth.tokens ?? [];
  const staticTokens = tokens.length > 0 ? staticMatcher(tokens) : undefined;
  const jwt = auth.jwt === undefined ? undefined : jwtVerifier(auth.jwt, now, options.readFile ?? readUtf8);

  async function check(authorization: string | null | undefined): Promise<AuthOutcome> {
    const header = authorization?.trim() ?? "";
    if (header === "") {
      return { ok: false, status: 401, message: "missing credentials: expected an Authorization header with a Bearer token", challenge: REALM };
    }
    const presented = bearerToken(header);
    if (!presented.ok) {
      return { ok: false, status: 401, message: `malformed credentials: ${presented.problem}`, challenge: `${REALM}, error="invalid_request"` };
    }
    const token = presented.token;
    const principal = staticTokens?.(token);
    if (principal !== undefined) return { ok: true, principal };
    // With static tokens configured, something that is not even shaped like a JWT was meant as one of them.
    if (jwt === undefined || (staticTokens !== undefined && token.split(".").length !== 3)) return invalidToken("the token is not recognised");
    return jwt(token);
  }

  return {
    async authenticate(authorization) {
      try {
        return await check(authorization);
      } catch {
        // Only a bug gets here (every expected failure is mapped above); refusing is the safe side,
        // and 503 because the caller did nothing wrong that it could fix.
        return { ok: false, status: 503, message: "the proxy could not check the credentials", challenge: REALM };
      }
    },
  };
}

/** The default `readFile`: imported on use so that the module itself runs where `node:fs` does not. */
async function readUtf8(path: string): Promise<string> {
  const { readFile } = await import("node:fs/promises");
  return readFile(path, "utf8");
}

/** A 401 for a token that was read but is not good, with a reason safe to put in a quoted string. */
function invalidToken(reason: string): AuthOutcome {
  // RFC 6750's error_description is a quoted-string of printable ASCII without `"` and `\`.
  const safe = reason.replace(/["\\]/g, "'").replace(/[^\x20-\x7E]/g, "?");
  return { ok: false, status: 401, message: `invalid token: ${safe}`, challenge: `${REALM}, error="invalid_token", error_description="${safe}"` };
}

/**
 * The token of a `Bearer` credential (RFC 6750 §2.1; RFC 9110 §11.4 makes the scheme
 * case-insensitive and allows several spaces before the token). The problem never quotes the
 * header: a token sent without a scheme would be read as one.
 */
function bearerToken(header: string): { ok: true; token: string } | { ok: false; problem: string } {
  const space = header.indexOf(" ");
  const scheme = space === -1 ? header : header.slice(0, space);
  if (scheme.toLowerCase() !== "bearer") {
    return { ok: false, problem: "expected an Authorization header of the form 'Bearer <token>', found another scheme or no scheme" };
  }
  const token = space === -1 ? "" : header.slice(space + 1).replace(/^ +/, "");
  if (token === "") return { ok: false, problem: "expected a token after 'Bearer', found none" };
  // A space would mean a second value the scheme does not have.
  if (!BEARER_TOKEN.test(token)) {
    return { ok: false, problem: "expected a single token of visible ASCII characters after 'Bearer', found spaces or other characters" };
  }
  return { ok: true, token };
}

/**
 * SHA-256, synchronously: WebCrypto's digest is a round trip through the thread pool, which cost
 * about 0.2 ms of every request's time to first event.
 */
function sha256(text: string): Uint8Array {
  // The one-shot `hash` (Node 20.12 and later) makes no Hash object: half the cost, on every request.
  return oneShotHash !== undefined ? oneShotHash("sha256", text, "buffer") : nodeCrypto.createHash("sha256").update(text, "utf8").digest();
}

/** `crypto.hash` where the runtime has it. */
const oneShotHash = (nodeCrypto as { hash?: (algorithm: string, data: string, encoding: "buffer") => Uint8Array }).hash;

/**
 * Finds the static token entry a presented token is, in time that depends neither on the
 * token's content nor on which entry (if any) it matches: both sides are hashed to fixed-length
 * digests, and every entry's digest is compared in full, with no early exit and no branch on
 * the result.
 */
function staticMatcher(tokens: readonly TokenConfig[]): (presented: string) => Principal | undefined {
  let digests: Uint8Array[] | undefined;
  // One principal per entry, made once: a request only reads it.
  const principals = tokens.map((entry): Principal => ({ subject: entry.subject, via: "token", agents: entry.agents === undefined ? "all" : new Set(entry.agents) }));
  return (presented) => {
    const known = (digests ??= tokens.map((entry) => sha256(entry.token)));
    const mine = sha256(presented);
    let found = 0; // index + 1 of the matching entry; 0 for none
    for (let i = 0; i < known.length; i++) {
      const digest = known[i]!;
      let diff = 0;
      for (let j = 0; j < mine.length; j++) diff |= digest[j]! ^ mine[j]!;
      // diff is 0..255, so diff - 1 is negative (top bit set) exactly when the digests are equal.
      const hit = ((diff - 1) >>> 31) & 1;
      found += hit * (i + 1 - found);
    }
    return found === 0 ? undefined : principals[found - 1];
  };
}

/** Verifies a JWT against the configured key and claims, and turns its claims into a principal. */
function jwtVerifier(config: JwtConfig, now: () => number, readFile: (path: string) => Promise<string>): (token: string) => Promise<AuthOutcome> {
  const { key, algorithms } = verificationKey(config, readFile, now);
  const base: JWTVerifyOptions = {
    // Explicit, always: jose would otherwise take the header's word for it (alg "none", or HS256
    // keyed with a public key).
    algorithms: [...algorithms],
    requiredClaims: ["exp", "sub"],
    clockTolerance: config.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS,
  };
  if (config.issuer !== undefined) base.issuer = config.issuer;
  if (config.audience !== undefined) base.audience = config.audience;

  return async (token) => {
    let payload: JWTPayload;
    try {
      // Overloads of jwtVerify split on the key's type; the union needs a branch to pick one.
      const options = { ...base, currentDate: new Date(now()) };
      payload = (typeof key === "function" ? await jwtVerify(token, key, options) : await jwtVerify(token, key, options)).payload;
    } catch (error) {
      if (error instanceof KeysUnavailable) return keysUnavailable();
      return invalidToken(reasonFor(error));
    }
    const subject = payload.sub;
    if (typeof subject !== "string" || subject === "") return invalidToken("the token's subject (sub) claim is not a non-empty string");
    const claimed: unknown = payload["agents"];
    if (claimed === undefined) {
      return { ok: true, principal: { subject, via: "jwt", agents: config.agents === undefined ? "all" : new Set(config.agents) } };
    }
    if (!Array.isArray(claimed) || !claimed.every((name): name is string => typeof name === "string")) {
      return invalidToken("the token's agents claim is not an array of strings");
    }
    return { ok: true, principal: { subject, via: "jwt", agents: new Set(claimed) } };
  };
}

/**
 * The key (or key resolver) and algorithms for a JWT config. Resolvers throw `KeysUnavailable`
 * when loading keys fails for reasons the caller cannot fix, which the verifier turns into a 503.
 */
function verificationKey(
  config: JwtConfig,
  readFile: (path: string) => Promise<string>,
  now: () => number,
): { key: Uint8Array | JWTVerifyGetKey; algorithms: readonly string[] } {
  if (config.secret !== undefined) return { key: new TextEncoder().encode(config.secret), algorithms: ["HS256"] };
  if (config.jwksUrl !== undefined) return { key: remoteKeySet(config.jwksUrl, now), algorithms: ASYMMETRIC };
  const { publicKey, publicKeyFile } = config;
  if (publicKey !== undefined) return { key: spkiResolver(async () => publicKey), algorithms: ASYMMETRIC };
  if (publicKeyFile !== undefined) {
    // Read once; a failed read is not kept, so a key file put in place later is picked up.
    let pending: Promise<string> | undefined;
    const load = () => {
      pending ??= readFile(publicKeyFile).catch((error: unknown) => {
        pending = undefined;
        throw error;
      });
      return pending;
    };
    return { key: spkiResolver(load), algorithms: ASYMMETRIC };
  }
  // parseProxyConfig refuses this; a config built by hand without a key verifies nothing.
  return { key: () => Promise.reject(new KeysUnavailable("expected one of secret, publicKeyFile, publicKey and jwksUrl, found none")), algorithms: ASYMMETRIC };
}

/**
 * A resolver for a PEM SPKI public key: imported for the token's algorithm (already one of
 * `ASYMMETRIC`, jose checks that first), once per algorithm.
 */
function spkiResolver(loadPem: () => Promise<string>): JWTVerifyGetKey {
  const imported = new Map<string, Promise<CryptoKey>>();
  const importFor = async (alg: string): Promise<CryptoKey> => {
    let pem: string;
    try {
      pem = (await loadPem()).trim();
    } catch (cause) {
      throw new KeysUnavailable("the public key file could not be read", { cause });
    }
    try {
      return await importSPKI(pem, alg);
    } catch (cause) {
      // Either the token's algorithm does not fit the key's type (an RSA key, an ES256 token: the
      // caller's fault), or the PEM is no usable key at all (ours). The other algorithm tells which.
      const other = ASYMMETRIC.find((candidate) => candidate !== alg) ?? "RS256";
      const fitsOther = await importSPKI(pem, other).then(
        () => true,
        () => false,
      );
      if (fitsOther) throw new TokenRefused("the token's algorithm does not fit the configured key");
      throw new KeysUnavailable("the public key could not be imported", { cause });
    }
  };
  return (header) => {
    const alg = header.alg ?? "";
    let pending = imported.get(alg);
    if (pending === undefined) {
      pending = importFor(alg);
      imported.set(alg, pending);
      // Keep a mismatch (it will not change), but retry loading keys that could not be loaded.
      pending.catch((error: unknown) => {
        if (error instanceof KeysUnavailable) imported.delete(alg);
      });
    }
    return pending;
  };
}

/** How long a key set that could not be loaded is not asked for again, in ms. */
export const JWKS_RETRY_MS = 10_000;

/**
 * A resolver over a JSON Web Key Set fetched from a URL (jose caches and refreshes it). Failing
 * to get the set (a network error, a timeout, a non-200 answer, not a key set) becomes
 * `KeysUnavailable`; a set without the token's key is the token's problem.
 *
 * After a failure, requests get their 503 at once for {@link JWKS_RETRY_MS} instead of each
 * fetching the set again: jose retries on every call, so an unreachable key set made every request
 * wait out its fetch timeout and sent the key server one fetch per request.
 */
function remoteKeySet(url: string, now: () => number): JWTVerifyGetKey {
  const remote = createRemoteJWKSet(new URL(url));
  const tokenFaults = new Set(["ERR_JWKS_NO_MATCHING_KEY", "ERR_JWKS_MULTIPLE_MATCHING_KEYS", "ERR_JOSE_NOT_SUPPORTED"]);
  let failedAt = -Infinity;
  let failure: unknown;
  return async (header, token) => {
    if (now() - failedAt < JWKS_RETRY_MS) throw new KeysUnavailable("the JSON Web Key Set could not be loaded recently", { cause: failure });
    try {
      return await remote(header, token);
    } catch (error) {
      if (tokenFaults.has(codeOf(error))) throw error;
      failedAt = now();
      failure = error;
      throw new KeysUnavailable("the JSON Web Key Set could not be loaded", { cause: error });
    }
  };
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "";
}

/** Claim names as a reader of a refusal would know them; the value is never named. */
const CLAIM_LABELS: Readonly<Record<string, string>> = {
  iss: "issuer (iss)",
  aud: "audience (aud)",
  sub: "subject (sub)",
  exp: "expiry (exp)",
  nbf: "not-before (nbf)",
  iat: "issued-at (iat)",
  typ: "type (typ)",
};

/** A short, value-free reason for a jose (or resolver) error, for error_description. */
function reasonFor(error: unknown): string {
  if (error instanceof TokenRefused) return error.message;
  switch (codeOf(error)) {
    case "ERR_JWT_EXPIRED":
      return "the token has expired";
    case "ERR_JWT_CLAIM_VALIDATION_FAILED": {
      const { claim, reason } = error as { claim?: unknown; reason?: unknown };
      const name = typeof claim === "string" ? claim : "";
      const label = CLAIM_LABELS[name] ?? (/^[A-Za-z0-9_]{1,32}$/.test(name) ? name : "unnamed");
      if (reason === "missing") return `the token has no ${label} claim`;
      if (name === "nbf" && reason === "check_failed") return "the token is not valid yet";
      if (reason === "invalid") return `the token's ${label} claim is not valid`;
      return `the token's ${label} claim is not the one expected`;
    }
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
      return "the token's signature is not valid";
    case "ERR_JOSE_ALG_NOT_ALLOWED":
      return "the token's algorithm is not allowed";
    case "ERR_JOSE_NOT_SUPPORTED":
      return "the token's algorithm is not supported";
    case "ERR_JWS_INVALID":
    case "ERR_JWT_INVALID":
      return "the token is malformed";
    case "ERR_JWKS_NO_MATCHING_KEY":
      return "no key in the key set matches the token";
    case "ERR_JWKS_MULTIPLE_MATCHING_KEYS":
      return "several keys in the key set match the token; it needs a kid";
    default:
      return "the token could not be verified";
  }
}
