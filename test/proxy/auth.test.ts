/**
 * The proxy's authentication: bearer header parsing, static tokens, and JWTs verified with a
 * shared secret, a PEM public key (inline or from a file) and a JSON Web Key Set served over real
 * HTTP. Time is injected through `now`, so expiry checks do not depend on the clock.
 */
import { createServer, type Server } from "node:http";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JWKS_RETRY_MS, createAuthenticator, type AuthOutcome, type Principal } from "../../src/proxy/auth.js";
import type { ProxyAuthConfig } from "../../src/proxy/config.js";

const REALM = 'Bearer realm="agui-wire"';
const INVALID_REQUEST = 'Bearer realm="agui-wire", error="invalid_request"';
/** Fixed "now" for every JWT test: 2025-01-01T00:00:00Z. */
const NOW_MS = Date.UTC(2025, 0, 1);
const NOW_S = NOW_MS / 1000;
const now = () => NOW_MS;
const SECRET = "a-shared-secret-of-at-least-32-bytes!!";

function principal(outcome: AuthOutcome): Principal {
  if (!outcome.ok) throw new Error(`expected a principal, found a ${outcome.status}: ${outcome.message}`);
  return outcome.principal;
}

function refusal(outcome: AuthOutcome): Extract<AuthOutcome, { ok: false }> {
  if (outcome.ok) throw new Error(`expected a refusal, found the principal ${outcome.principal.subject}`);
  return outcome;
}

/** A refusal's challenge must be a well-formed header value: the description a quoted string without `"` or `\` inside. */
function expectInvalidToken(outcome: AuthOutcome, reason: RegExp): void {
  const refused = refusal(outcome);
  expect(refused.status).toBe(401);
  const match = /^Bearer realm="agui-wire", error="invalid_token", error_description="([^"\\]*)"$/.exec(refused.challenge);
  expect(match, refused.challenge).not.toBeNull();
  expect(match![1]).toMatch(reason);
  expect(refused.message).toMatch(reason);
}

function expectNoLeak(outcome: AuthOutcome, ...secrets: string[]): void {
  const refused = refusal(outcome);
  for (const secret of secrets) {
    expect(refused.message).not.toContain(secret);
    expect(refused.challenge).not.toContain(secret);
  }
}

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** A signed token with `sub` and an `exp` an hour after NOW; `claims` add to or override them. */
async function hs256(claims: JWTPayload = {}, secret = SECRET, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({ sub: "ana", exp: NOW_S + 3600, ...claims })
    .setProtectedHeader({ alg: "HS256", ...header })
    .sign(new TextEncoder().encode(secret));
}

async function signed(alg: "RS256" | "ES256", key: CryptoKey, claims: JWTPayload = {}, kid?: string): Promise<string> {
  return new SignJWT({ sub: "ana", exp: NOW_S + 3600, ...claims }).setProtectedHeader(kid === undefined ? { alg } : { alg, kid }).sign(key);
}

describe("static tokens", () => {
  const TOKEN_A = "tok-alpha-0123456789abcdef";
  const TOKEN_B = "tok-bravo-fedcba9876543210";
  const auth = createAuthenticator({
    tokens: [
      { token: TOKEN_A, subject: "alpha", agents: ["echo", "weather"] },
      { token: TOKEN_B, subject: "bravo" },
    ],
  });

  it("admits a configured token, with its subject and agent set", async () => {
    const p = principal(await auth.authenticate(`Bearer ${TOKEN_A}`));
    expect(p.subject).toBe("alpha");
    expect(p.via).toBe("token");
    expect(p.agents).toEqual(new Set(["echo", "weather"]));
  });

  it("gives every agent to an entry without an agent list", async () => {
    const p = principal(await auth.authenticate(`Bearer ${TOKEN_B}`));
    expect(p).toEqual({ subject: "bravo", via: "token", agents: "all" });
  });

  it("refuses a wrong token without repeating it", async () => {
    const wrong = "tok-charlie-not-configured";
    const outcome = await auth.authenticate(`Bearer ${wrong}`);
    expectInvalidToken(outcome, /not recognised/);
    expectNoLeak(outcome, wrong, TOKEN_A, TOKEN_B);
  });

  it("refuses a prefix of a configured token, and the token with a suffix", async () => {
    for (const near of [TOKEN_A.slice(0, -1), TOKEN_A.slice(0, 5), `${TOKEN_A}x`]) {
      const outcome = await auth.authenticate(`Bearer ${near}`);
      expectInvalidToken(outcome, /not recognised/);
      expectNoLeak(outcome, near, TOKEN_A);
    }
  });

  it("asks for credentials when the header is missing or empty", async () => {
    for (const header of [undefined, null, "", "   "]) {
      const refused = refusal(await auth.authenticate(header));
      expect(refused.status).toBe(401);
      expect(refused.challenge).toBe(REALM);
      expect(refused.message).toBe("missing credentials: expected an Authorization header with a Bearer token");
    }
  });

  it("refuses an empty bearer token as a malformed request", async () => {
    for (const header of ["Bearer", "Bearer ", "Bearer    "]) {
      const refused = refusal(await auth.authenticate(header));
      expect(refused.status).toBe(401);
      expect(refused.challenge).toBe(INVALID_REQUEST);
      expect(refused.message).toMatch(/expected a token after 'Bearer', found none/);
    }
  });

  it("refuses another scheme, or no scheme, without repeating the credentials", async () => {
    const basic = `Basic ${Buffer.from(`alpha:${TOKEN_A}`).toString("base64")}`;
    for (const header of [basic, TOKEN_A, `Token ${TOKEN_A}`, `Bearer:${TOKEN_A}`]) {
      const outcome = await auth.authenticate(header);
      const refused = refusal(outcome);
      expect(refused.status).toBe(401);
      expect(refused.challenge).toBe(INVALID_REQUEST);
      expect(refused.message).toMatch(/expected an Authorization header of the form 'Bearer <token>'/);
      expectNoLeak(outcome, TOKEN_A, basic.slice(6));
    }
  });

  it("takes the scheme in any case", async () => {
    for (const scheme of ["bearer", "BEARER", "BeArEr"]) {
      expect(principal(await auth.authenticate(`${scheme} ${TOKEN_A}`)).subject).toBe("alpha");
    }
  });

  it("takes several spaces after the scheme, and spaces around the value", async () => {
    expect(principal(await auth.authenticate(`Bearer    ${TOKEN_A}`)).subject).toBe("alpha");
    expect(principal(await auth.authenticate(`  Bearer ${TOKEN_A}  `)).subject).toBe("alpha");
  });

  it("refuses two values after the scheme, or control characters in the token", async () => {
    for (const header of [`Bearer ${TOKEN_A} ${TOKEN_B}`, `Bearer ${TOKEN_A}\tx`, `Bearer\t${TOKEN_A}`]) {
      const outcome = await auth.authenticate(header);
      expect(refusal(outcome).challenge).toBe(INVALID_REQUEST);
      expectNoLeak(outcome, TOKEN_A, TOKEN_B);
    }
  });

  it("refuses a JWT when only static tokens are configured", async () => {
    const jwt = await hs256();
    const outcome = await auth.authenticate(`Bearer ${jwt}`);
    expectInvalidToken(outcome, /not recognised/);
    expectNoLeak(outcome, jwt);
  });
});

describe("JWT with a shared secret (HS256)", () => {
  const config: ProxyAuthConfig = { jwt: { secret: SECRET, issuer: "https://issuer.test", audience: "agui-proxy" } };
  const auth = createAuthenticator(config, { now });
  const good = (claims: JWTPayload = {}) => hs256({ iss: "https://issuer.test", aud: "agui-proxy", ...claims });

  it("admits a valid token, as its subject, with every agent", async () => {
    const p = principal(await auth.authenticate(`Bearer ${await good()}`));
    expect(p).toEqual({ subject: "ana", via: "jwt", agents: "all" });
  });

  it("refuses a token expired beyond the 30 s default tolerance", async () => {
    const token = await good({ exp: NOW_S - 31 });
    const outcome = await auth.authenticate(`Bearer ${token}`);
    expectInvalidToken(outcome, /the token has expired/);
    expectNoLeak(outcome, token, SECRET);
  });

  it("admits a token expired within the tolerance", async () => {
    expect(principal(await auth.authenticate(`Bearer ${await good({ exp: NOW_S - 29 })}`)).subject).toBe("ana");
  });

  it("uses the configured tolerance, and the injected clock", async () => {
    const strict = createAuthenticator({ jwt: { secret: SECRET, clockToleranceSeconds: 0 } }, { now });
    const token = await hs256({ exp: NOW_S - 1 });
    expectInvalidToken(await strict.authenticate(`Bearer ${token}`), /expired/);
    const earlier = createAuthenticator({ jwt: { secret: SECRET, clockToleranceSeconds: 0 } }, { now: () => NOW_MS - 2000 });
    expect(principal(await earlier.authenticate(`Bearer ${token}`)).subject).toBe("ana");
  });

  it("refuses a token that is not valid yet (nbf beyond the tolerance), admits one within it", async () => {
    expectInvalidToken(await auth.authenticate(`Bearer ${await good({ nbf: NOW_S + 60 })}`), /not valid yet/);
    expect(principal(await auth.authenticate(`Bearer ${await good({ nbf: NOW_S + 20 })}`)).subject).toBe("ana");
  });

  it("refuses a wrong issuer, naming the claim but not its value", async () => {
    const outcome = await auth.authenticate(`Bearer ${await good({ iss: "https://evil.test" })}`);
    expectInvalidToken(outcome, /issuer \(iss\)/);
    expectNoLeak(outcome, "evil.test", "issuer.test");
  });

  it("refuses a wrong audience, naming the claim but not its value", async () => {
    const outcome = await auth.authenticate(`Bearer ${await good({ aud: "someone-else" })}`);
    expectInvalidToken(outcome, /audience \(aud\)/);
    expectNoLeak(outcome, "someone-else", "agui-proxy");
  });

  it("refuses a token without the configured issuer or audience", async () => {
    expectInvalidToken(await auth.authenticate(`Bearer ${await hs256({ aud: "agui-proxy" })}`), /no issuer \(iss\) claim/);
    expectInvalidToken(await auth.authenticate(`Bearer ${await hs256({ iss: "https://issuer.test" })}`), /no audience \(aud\) claim/);
  });

  it("refuses a token signed with another secret", async () => {
    const other = "another-secret-of-at-least-32-bytes!!!";
    const token = await hs256({ iss: "https://issuer.test", aud: "agui-proxy" }, other);
    const outcome = await auth.authenticate(`Bearer ${token}`);
    expectInvalidToken(outcome, /signature is not valid/);
    expectNoLeak(outcome, token, other, SECRET);
  });

  it("refuses a token without sub, and one without exp", async () => {
    expectInvalidToken(await auth.authenticate(`Bearer ${await good({ sub: undefined })}`), /no subject \(sub\) claim/);
    expectInvalidToken(await auth.authenticate(`Bearer ${await good({ exp: undefined })}`), /no expiry \(exp\) claim/);
  });

  it("refuses a sub that is not a non-empty string, and an exp that is not a number", async () => {
    const plain = createAuthenticator({ jwt: { secret: SECRET } }, { now });
    expectInvalidToken(await plain.authenticate(`Bearer ${await hs256({ sub: "" })}`), /subject \(sub\) claim is not a non-empty string/);
    // SignJWT checks claim types, so these payloads are signed by hand.
    for (const payload of [{ sub: 42, exp: NOW_S + 60 }, { sub: "ana", exp: "tomorrow" }]) {
      const head = `${base64url({ alg: "HS256" })}.${base64url(payload)}`;
      const { createHmac } = await import("node:crypto");
      const signature = createHmac("sha256", SECRET).update(head).digest("base64url");
      expectInvalidToken(await plain.authenticate(`Bearer ${head}.${signature}`), /(sub|exp)\) claim is not/);
    }
  });

  it("refuses an unsecured token (alg none)", async () => {
    const token = `${base64url({ alg: "none" })}.${base64url({ sub: "ana", exp: NOW_S + 3600, iss: "https://issuer.test", aud: "agui-proxy" })}.`;
    expectInvalidToken(await auth.authenticate(`Bearer ${token}`), /algorithm is not allowed/);
  });

  it("refuses a token signed with an asymmetric algorithm", async () => {
    const { privateKey } = await generateKeyPair("ES256");
    expectInvalidToken(await auth.authenticate(`Bearer ${await signed("ES256", privateKey, { iss: "https://issuer.test", aud: "agui-proxy" })}`), /algorithm is not allowed/);
  });

  it("refuses malformed tokens", async () => {
    for (const token of ["not-a-jwt", "a.b.c", `${base64url({ alg: "HS256" })}.%%%.x`]) {
      expectInvalidToken(await auth.authenticate(`Bearer ${token}`), /malformed/);
    }
  });

  it("gives the agents of the token's agents claim", async () => {
    const p = principal(await auth.authenticate(`Bearer ${await good({ agents: ["echo"] })}`));
    expect(p.agents).toEqual(new Set(["echo"]));
  });

  it("gives the config's agents when the token has no agents claim, and every agent when neither does", async () => {
    const scoped = createAuthenticator({ jwt: { secret: SECRET, agents: ["weather", "echo"] } }, { now });
    expect(principal(await scoped.authenticate(`Bearer ${await hs256()}`)).agents).toEqual(new Set(["weather", "echo"]));
    // The token's claim wins over the config's list.
    expect(principal(await scoped.authenticate(`Bearer ${await hs256({ agents: [] })}`)).agents).toEqual(new Set());
    const open = createAuthenticator({ jwt: { secret: SECRET } }, { now });
    expect(principal(await open.authenticate(`Bearer ${await hs256()}`)).agents).toBe("all");
  });

  it("refuses an agents claim that is not an array of strings", async () => {
    for (const agents of ["echo", ["echo", 3], { echo: true }, null]) {
      expectInvalidToken(await auth.authenticate(`Bearer ${await good({ agents })}`), /agents claim is not an array of strings/);
    }
  });

  it("prefers a matching static token, and falls back to the JWT", async () => {
    const both = createAuthenticator({ tokens: [{ token: "static-token-1234567890", subject: "static" }], jwt: { secret: SECRET } }, { now });
    expect(principal(await both.authenticate("Bearer static-token-1234567890"))).toEqual({ subject: "static", via: "token", agents: "all" });
    expect(principal(await both.authenticate(`Bearer ${await hs256()}`)).via).toBe("jwt");
    expectInvalidToken(await both.authenticate("Bearer static-token-wrong"), /not recognised/);
  });
});

describe("JWT with a public key (RS256, ES256)", () => {
  let rsa: CryptoKeyPair;
  let ec: CryptoKeyPair;
  let rsaPem: string;
  let ecPem: string;
  let dir: string;

  beforeAll(async () => {
    rsa = await generateKeyPair("RS256");
    ec = await generateKeyPair("ES256");
    rsaPem = await exportSPKI(rsa.publicKey);
    ecPem = await exportSPKI(ec.publicKey);
    dir = await mkdtemp(join(tmpdir(), "agui-auth-"));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each(["RS256", "ES256"] as const)("verifies %s with an inline PEM", async (alg) => {
    const pair = alg === "RS256" ? rsa : ec;
    const auth = createAuthenticator({ jwt: { publicKey: alg === "RS256" ? rsaPem : ecPem, audience: ["a", "agui-proxy"] } }, { now });
    const p = principal(await auth.authenticate(`Bearer ${await signed(alg, pair.privateKey, { aud: "agui-proxy", agents: ["echo"] })}`));
    expect(p).toEqual({ subject: "ana", via: "jwt", agents: new Set(["echo"]) });
    const other = await generateKeyPair(alg);
    expectInvalidToken(await auth.authenticate(`Bearer ${await signed(alg, other.privateKey, { aud: "agui-proxy" })}`), /signature is not valid/);
  });

  it.each(["RS256", "ES256"] as const)("verifies %s with a PEM file, read once", async (alg) => {
    const pair = alg === "RS256" ? rsa : ec;
    const path = join(dir, `${alg}.pem`);
    await writeFile(path, alg === "RS256" ? rsaPem : ecPem);
    const { readFile } = await import("node:fs/promises");
    const reads: string[] = [];
    const auth = createAuthenticator({ jwt: { publicKeyFile: path } }, { now, readFile: (p) => (reads.push(p), readFile(p, "utf8")) });
    expect(reads).toEqual([]); // lazily
    for (let i = 0; i < 3; i++) {
      expect(principal(await auth.authenticate(`Bearer ${await signed(alg, pair.privateKey)}`)).subject).toBe("ana");
    }
    expect(reads).toEqual([path]);
  });

  it("reads the PEM file with node:fs by default", async () => {
    const path = join(dir, "default.pem");
    await writeFile(path, `${ecPem}\n`);
    const auth = createAuthenticator({ jwt: { publicKeyFile: path } }, { now });
    expect(principal(await auth.authenticate(`Bearer ${await signed("ES256", ec.privateKey)}`)).subject).toBe("ana");
  });

  it("refuses an HS256 token keyed with the public key's text (algorithm confusion)", async () => {
    const auth = createAuthenticator({ jwt: { publicKey: rsaPem } }, { now });
    for (const secret of [rsaPem, SECRET]) {
      const token = await hs256({}, secret);
      const outcome = await auth.authenticate(`Bearer ${token}`);
      expectInvalidToken(outcome, /algorithm is not allowed/);
      expectNoLeak(outcome, token);
    }
  });

  it("refuses an ES256 token when the key is an RSA key, as the token's fault", async () => {
    const auth = createAuthenticator({ jwt: { publicKey: rsaPem } }, { now });
    const outcome = await auth.authenticate(`Bearer ${await signed("ES256", ec.privateKey)}`);
    expectInvalidToken(outcome, /algorithm does not fit the configured key/);
  });

  it("refuses an unsecured token (alg none)", async () => {
    const auth = createAuthenticator({ jwt: { publicKey: ecPem } }, { now });
    const token = `${base64url({ alg: "none" })}.${base64url({ sub: "ana", exp: NOW_S + 3600 })}.`;
    expectInvalidToken(await auth.authenticate(`Bearer ${token}`), /algorithm is not allowed/);
  });

  it("answers 503 when the key file cannot be read, and recovers once it can", async () => {
    const path = join(dir, "later.pem");
    const auth = createAuthenticator({ jwt: { publicKeyFile: path } }, { now });
    const token = await signed("ES256", ec.privateKey);
    const outcome = await auth.authenticate(`Bearer ${token}`);
    expect(outcome).toEqual({ ok: false, status: 503, message: "the proxy could not load the keys to verify tokens with", challenge: REALM });
    await writeFile(path, ecPem);
    expect(principal(await auth.authenticate(`Bearer ${token}`)).subject).toBe("ana");
  });

  it("answers 503 when the configured PEM is not a key", async () => {
    const auth = createAuthenticator({ jwt: { publicKey: "-----BEGIN PUBLIC KEY-----\nbm90IGEga2V5\n-----END PUBLIC KEY-----" } }, { now });
    expect(refusal(await auth.authenticate(`Bearer ${await signed("ES256", ec.privateKey)}`)).status).toBe(503);
  });
});

describe("JWT with a JSON Web Key Set over HTTP", () => {
  const servers: Server[] = [];
  let rsa: CryptoKeyPair;
  let ec: CryptoKeyPair;
  let jwksUrl: string;
  let failingUrl: string;
  let stoppedUrl: string;
  let fetches = 0;

  async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
    const server = createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("expected a TCP address");
    return { server, url: `http://127.0.0.1:${address.port}/.well-known/jwks.json` };
  }

  beforeAll(async () => {
    rsa = await generateKeyPair("RS256");
    ec = await generateKeyPair("ES256");
    const keys = [
      { ...(await exportJWK(rsa.publicKey)), kid: "rsa-1", alg: "RS256", use: "sig" },
      { ...(await exportJWK(ec.publicKey)), kid: "ec-1", alg: "ES256", use: "sig" },
    ];
    const good = await listen((_req, res) => {
      fetches++;
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys }));
    });
    const failing = await listen((_req, res) => {
      res.writeHead(500, { "content-type": "text/plain" }).end("boom");
    });
    const stopped = await listen((_req, res) => res.end());
    await new Promise<void>((resolve, reject) => stopped.server.close((error) => (error ? reject(error) : resolve())));
    servers.push(good.server, failing.server);
    jwksUrl = good.url;
    failingUrl = failing.url;
    stoppedUrl = stopped.url;
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  });

  it("verifies RS256 and ES256 tokens by kid, fetching the set once", async () => {
    const auth = createAuthenticator({ jwt: { jwksUrl, issuer: "https://issuer.test" } }, { now });
    const before = fetches;
    const r = principal(await auth.authenticate(`Bearer ${await signed("RS256", rsa.privateKey, { iss: "https://issuer.test" }, "rsa-1")}`));
    const e = principal(await auth.authenticate(`Bearer ${await signed("ES256", ec.privateKey, { iss: "https://issuer.test", sub: "bo" }, "ec-1")}`));
    expect([r.subject, e.subject]).toEqual(["ana", "bo"]);
    expect(fetches - before).toBe(1);
  });

  it("refuses a token whose kid is not in the set, or signed by another key", async () => {
    const auth = createAuthenticator({ jwt: { jwksUrl } }, { now });
    expectInvalidToken(await auth.authenticate(`Bearer ${await signed("ES256", ec.privateKey, {}, "unknown")}`), /no key in the key set matches/);
    const other = await generateKeyPair("ES256");
    expectInvalidToken(await auth.authenticate(`Bearer ${await signed("ES256", other.privateKey, {}, "ec-1")}`), /signature is not valid/);
  });

  it("refuses HS256 and alg none before looking at the set", async () => {
    const auth = createAuthenticator({ jwt: { jwksUrl } }, { now });
    expectInvalidToken(await auth.authenticate(`Bearer ${await hs256({}, SECRET, { kid: "ec-1" })}`), /algorithm is not allowed/);
    const none = `${base64url({ alg: "none", kid: "ec-1" })}.${base64url({ sub: "ana", exp: NOW_S + 3600 })}.`;
    expectInvalidToken(await auth.authenticate(`Bearer ${none}`), /algorithm is not allowed/);
  });

  it("answers 503 when the key set server answers 500", async () => {
    const auth = createAuthenticator({ jwt: { jwksUrl: failingUrl } }, { now });
    const outcome = await auth.authenticate(`Bearer ${await signed("ES256", ec.privateKey, {}, "ec-1")}`);
    expect(outcome).toEqual({ ok: false, status: 503, message: "the proxy could not load the keys to verify tokens with", challenge: REALM });
  });

  it("after a key set failed to load, answers 503 at once until JWKS_RETRY_MS has passed, then asks again", async () => {
    let healthy = false;
    let asked = 0;
    const flaky = await listen((_req, res) => {
      asked++;
      if (!healthy) return void res.writeHead(500).end("down");
      void exportJWK(ec.publicKey).then((jwk) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [{ ...jwk, kid: "ec-1", alg: "ES256" }] })));
    });
    servers.push(flaky.server);
    let clock = NOW_S * 1000;
    const auth = createAuthenticator({ jwt: { jwksUrl: flaky.url } }, { now: () => clock });
    const token = `Bearer ${await signed("ES256", ec.privateKey, {}, "ec-1")}`;
    expect((await auth.authenticate(token)).ok).toBe(false);
    expect(asked).toBe(1);
    healthy = true;
    clock += JWKS_RETRY_MS - 1;
    expect(await auth.authenticate(token)).toMatchObject({ ok: false, status: 503 });
    expect(asked).toBe(1);
    clock += 1;
    expect(principal(await auth.authenticate(token)).subject).toBe("ana");
    expect(asked).toBe(2);
  });

  it("answers 503 when the key set server is not there", async () => {
    const auth = createAuthenticator({ jwt: { jwksUrl: stoppedUrl } }, { now });
    const outcome = await auth.authenticate(`Bearer ${await signed("RS256", rsa.privateKey, {}, "rsa-1")}`);
    expect(outcome).toEqual({ ok: false, status: 503, message: "the proxy could not load the keys to verify tokens with", challenge: REALM });
  });
});
