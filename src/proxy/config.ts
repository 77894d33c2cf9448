/**
 * The proxy's configuration: its zod schema, its TypeScript types, and checking it with errors
 * that name the key and say what was expected and found (`agents.echo.limits.concurrentRuns:
 * expected a positive integer, found "2"`). The same checks run on a config written in JSON for
 * the command and on one given in code.
 *
 * @module
 */
import * as z from "zod/mini";
import type * as core from "zod/v4/core";
import { finalize } from "../model/check.js";
import { int } from "../model/int.js";
import { formatIssues } from "../model/issues.js";
import { runSchema } from "../model/run-schema.js";
import { TOKEN } from "../server/cors.js";

/** An agent's name: a URL path segment of letters, digits, `.`, `_` and `-`, starting with a letter or digit. */
const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/**
 * What a Bearer token is made of here: visible ASCII, no space (a b64token, RFC 6750 §2.1, and
 * anything else an Authorization header carries as one value). The authenticator reads tokens by
 * it too, so that no configured token is one no request could present.
 */
export const BEARER_TOKEN = /^[\x21-\x7E]+$/;


const positive = int(1, "expected a positive integer");
const headerName = z.string().check(
  z.superRefine((value, ctx) => {
    if (!TOKEN.test(value)) {
      ctx.addIssue({ code: "custom", message: `expected a header name (letters, digits and !#$%&'*+-.^_\`|~), found ${JSON.stringify(value)}`, input: value });
    }
  }),
);
/**
 * A header value the proxy can send: no control character but HTAB (a CR or LF would end the
 * header, and node:http refuses them on every request). Never echoed: a route header is often a
 * credential for the upstream.
 */
const headerValue = z.string().check(
  z.superRefine((value, ctx) => {
    const bad = /[\x00-\x08\x0A-\x1F\x7F]/.exec(value);
    if (bad) {
      const code = bad[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
      ctx.addIssue({ code: "custom", message: `expected a header value without control characters, found U+${code} at index ${bad.index}`, input: "(a header value)" });
    }
  }),
);
const agentNames = z.array(z.string());

const LimitsSchema = z.strictObject({
  maxBodyBytes: z.optional(positive),
  concurrentRuns: z.optional(positive),
  runsPerMinute: z.optional(positive),
  runTimeoutMs: z.optional(positive),
  firstByteTimeoutMs: z.optional(positive),
  idleTimeoutMs: z.optional(positive),
});

/**
 * A URL as an error may show it: credentials (`user:password@`) masked, so that a config error
 * written to a log does not carry them.
 */
function redactUrl(text: string): string {
  return text.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/*)[^/?#@]*@/, "$1***@");
}

/** A URL of one of `protocols` (`"http:"`, …), named `kind` in the message, which never shows its credentials. */
const urlOf = (protocols: readonly string[], kind: string) =>
  z.string().check(
    z.superRefine((value, ctx) => {
      let url: URL | undefined;
      try {
        url = new URL(value);
      } catch {
        // reported below
      }
      if (url === undefined || !protocols.includes(url.protocol)) {
        ctx.addIssue({ code: "custom", message: `expected ${kind} URL, found ${JSON.stringify(redactUrl(value))}`, input: "(a URL)" });
      }
    }),
  );

const httpUrl = urlOf(["http:", "https:"], "an http: or https:");
const redisUrl = urlOf(["redis:", "rediss:"], "a redis: or rediss:");

/**
 * Where the proxy keeps the runs it relays, which makes them resumable: in this process, or in
 * Redis (shared by every proxy instance on it). The bounds are the stores' options.
 */
const StoreSchema = z.union([
  z.strictObject({
    type: z.literal("memory"),
    ttlMs: z.optional(positive),
    maxRuns: z.optional(positive),
    maxLiveRunsPerOwner: z.optional(positive),
    maxBytesPerRun: z.optional(positive),
    detachedTimeoutMs: z.optional(positive),
  }),
  z.strictObject({
    type: z.literal("redis"),
    url: redisUrl,
    keyPrefix: z.optional(z.string()),
    ttlMs: z.optional(positive),
    maxLiveRuns: z.optional(positive),
    maxLiveRunsPerOwner: z.optional(positive),
    maxEventsPerRun: z.optional(positive),
    detachedTimeoutMs: z.optional(positive),
  }),
]);

const AgentSchema = z.strictObject({
  url: z.optional(httpUrl),
  description: z.optional(z.string()),
  headers: z.optional(z.record(headerName, headerValue)),
  forwardHeaders: z.optional(z.array(headerName)),
  limits: z.optional(LimitsSchema),
});

const TokenSchema = z.strictObject({
  // Never echoed in an error: the message would put a secret in a log.
  token: z.string().check(
    z.superRefine((value, ctx) => {
      if (!BEARER_TOKEN.test(value)) ctx.addIssue({ code: "custom", message: "expected a token of visible ASCII characters without spaces, found another", input: "(a token)" });
    }),
  ),
  subject: z.string().check(z.minLength(1, { error: "expected a non-empty subject, found an empty one" })),
  agents: z.optional(agentNames),
});

const JwtSchema = z
  .strictObject({
    secret: z.optional(z.string()),
    publicKeyFile: z.optional(z.string()),
    publicKey: z.optional(z.string()),
    jwksUrl: z.optional(httpUrl),
    issuer: z.optional(z.string()),
    audience: z.optional(z.union([z.string(), z.array(z.string())])),
    acceptAnyAudience: z.optional(z.boolean()),
    agents: z.optional(agentNames),
    clockToleranceSeconds: z.optional(int(0, "expected a number of seconds, 0 or more")),
  })
  .check(
    z.superRefine((jwt, ctx) => {
      const keys = (["secret", "publicKeyFile", "publicKey", "jwksUrl"] as const).filter((key) => jwt[key] !== undefined);
      if (keys.length !== 1) {
        ctx.addIssue({
          code: "custom",
          message: `expected exactly one of secret, publicKeyFile, publicKey and jwksUrl, found ${keys.length === 0 ? "none" : keys.join(" and ")}`,
          input: jwt,
        });
      }
      // A public key or a JWKS is an issuer's, whose tokens for every other audience it serves
      // would open this proxy too: name the audience, or say that any will do.
      const issuerKey = (["publicKeyFile", "publicKey", "jwksUrl"] as const).find((key) => jwt[key] !== undefined);
      if (issuerKey !== undefined && jwt.audience === undefined && jwt.acceptAnyAudience !== true) {
        ctx.addIssue({
          code: "custom",
          path: ["audience"],
          message: `expected the audience this proxy's tokens are issued for (with ${issuerKey}, a token for any other audience of the same issuer would pass), found none; set "acceptAnyAudience": true to accept any`,
          input: jwt,
        });
      }
      if (jwt.audience !== undefined && jwt.acceptAnyAudience === true) {
        ctx.addIssue({ code: "custom", path: ["acceptAnyAudience"], message: "expected audience or acceptAnyAudience, found both", input: jwt });
      }
      // HS256 keys shorter than the hash are guessable (RFC 7518 §3.2).
      if (jwt.secret !== undefined && new TextEncoder().encode(jwt.secret).length < 32) {
        ctx.addIssue({ code: "custom", path: ["secret"], message: "expected a secret of at least 32 bytes (HS256), found a shorter one", input: "(a secret)" });
      }
    }),
  );

const AuthSchema = z.strictObject({ tokens: z.optional(z.array(TokenSchema)), jwt: z.optional(JwtSchema) }).check(
  z.superRefine((auth, ctx) => {
    if (auth.tokens === undefined && auth.jwt === undefined) {
      ctx.addIssue({ code: "custom", message: "expected tokens, jwt or both, found neither (the proxy admits no anonymous caller)", input: auth });
    }
  }),
);

const CorsSchema = z.strictObject({
  origins: z.array(z.string()).check(z.minLength(1, { error: "expected at least one origin" })),
  credentials: z.optional(z.boolean()),
  maxAgeSeconds: z.optional(int(0, "expected a number of seconds, 0 or more")),
});

const CompressionSchema = z.union([
  z.boolean(),
  z.strictObject({
    encodings: z.optional(z.array(z.enum(["gzip", "br", "zstd"]))),
    level: z.optional(z.strictObject({ gzip: z.optional(z.number()), br: z.optional(z.number()), zstd: z.optional(z.number()) })),
  }),
]);

/** The proxy's configuration, as `proxy.json` holds it (see the README's proxy section). */
export const ProxyConfigSchema = z
  .strictObject({
    agents: z.record(z.string(), AgentSchema),
    auth: AuthSchema,
    limits: z.optional(LimitsSchema),
    cors: z.optional(CorsSchema),
    metrics: z.optional(z.boolean()),
    compression: z.optional(CompressionSchema),
    store: z.optional(StoreSchema),
  })
  .check(
    z.superRefine((config, ctx) => {
      const names = Object.keys(config.agents);
      for (const name of names) {
        if (!AGENT_NAME.test(name)) {
          ctx.addIssue({ code: "custom", path: ["agents", name], message: `expected a name of letters, digits, '.', '_' and '-', starting with a letter or digit, at most 64 long, found ${JSON.stringify(name)}`, input: name });
        }
      }
      // A principal allowed an agent that does not exist is a typo that would surface as a 404.
      const check = (list: readonly string[] | undefined, path: (string | number)[]) =>
        list?.forEach((name, i) => {
          if (!names.includes(name)) ctx.addIssue({ code: "custom", path: [...path, i], message: `expected the name of an agent (${names.join(", ")}), found ${JSON.stringify(name)}`, input: name });
        });
      config.auth.tokens?.forEach((token, i) => check(token.agents, ["auth", "tokens", i, "agents"]));
      check(config.auth.jwt?.agents, ["auth", "jwt", "agents"]);
      const tokens = config.auth.tokens?.map((t) => t.token) ?? [];
      tokens.forEach((token, i) => {
        if (tokens.indexOf(token) !== i) ctx.addIssue({ code: "custom", path: ["auth", "tokens", i, "token"], message: "expected a token no other entry has", input: "(a token)" });
      });
    }),
  );

/** The proxy's configuration. */
export type ProxyConfig = z.infer<typeof ProxyConfigSchema>;
/** One agent of the configuration. */
export type ProxyAgentConfig = z.infer<typeof AgentSchema>;
/** Limits, at the top level (defaults for every agent) or an agent's own. */
export type ProxyLimits = z.infer<typeof LimitsSchema>;
/** How callers prove who they are. */
export type ProxyAuthConfig = z.infer<typeof AuthSchema>;
/** One static bearer token and the principal it stands for. */
export type TokenConfig = z.infer<typeof TokenSchema>;
/** Where the proxy keeps the runs it relays. */
export type ProxyStoreConfig = z.infer<typeof StoreSchema>;
/** How JWTs are verified. */
export type JwtConfig = z.infer<typeof JwtSchema>;

/** A configuration that is not one, with every problem found named in the message. */
export class ProxyConfigError extends TypeError {
  override readonly name = "ProxyConfigError";
}

/** Words an issue zod/mini leaves without an English message (no locale is loaded). */
function reword(raw: core.$ZodRawIssue): core.$ZodRawIssue {
  if (raw.code !== "unrecognized_keys") return raw;
  const known = Object.keys((raw.inst?._zod.def as { shape?: object } | undefined)?.shape ?? {});
  const keys = (raw as { keys: string[] }).keys.map((k) => JSON.stringify(k)).join(", ");
  return { ...raw, code: "custom", message: `expected only the keys ${known.join(", ")}, found ${keys}` } as core.$ZodRawIssue;
}

/**
 * Checks a proxy configuration (parsed JSON, or an object built in code).
 *
 * @returns The configuration as validated.
 * @throws {ProxyConfigError} Naming, for each problem, the key and what was expected and found.
 */
export function parseProxyConfig(value: unknown): ProxyConfig {
  const result = runSchema(ProxyConfigSchema, value);
  const issues = [...prototypeKeys(value, []), ...result.issues];
  if (issues.length === 0) return result.value as ProxyConfig;
  throw new ProxyConfigError(`invalid proxy config: ${formatIssues(issues.map((raw) => finalize(reword(raw))))}`);
}

/**
 * The `__proto__` keys of a parsed JSON value, each as an issue at its path. JSON.parse makes such
 * a key an own property, but copying it into a new object (as a schema's output is made) sets the
 * copy's prototype instead: an agent or header of that name would vanish without a word.
 */
function prototypeKeys(value: unknown, path: PropertyKey[]): core.$ZodRawIssue[] {
  if (typeof value !== "object" || value === null) return [];
  const issues: core.$ZodRawIssue[] = [];
  if (!Array.isArray(value) && Object.hasOwn(value, "__proto__")) {
    issues.push({ code: "custom", path: [...path, "__proto__"], message: 'expected a name other than "__proto__", which a JavaScript object cannot hold as a key', input: "__proto__" });
  }
  for (const [key, inner] of Object.entries(value)) issues.push(...prototypeKeys(inner, [...path, Array.isArray(value) ? Number(key) : key]));
  return issues;
}
