/**
 * Response compression's pure half: the handlers' `compression` option, checked once, and picking
 * a content coding from a request's `Accept-Encoding` (RFC 9110 §12.5.3). The compressing itself
 * is in `compress.ts`.
 *
 * @module
 */

/** The content codings a handler can compress an event stream with. */
export type ContentCoding = "gzip" | "br" | "zstd";

/** Every coding this package knows, in its default order of preference. */
export const CONTENT_CODINGS: readonly ContentCoding[] = ["gzip", "br", "zstd"];

/**
 * The `compression` option of both handlers (and of the proxy's config).
 *
 * Each batch of events is compressed and flushed on its own, so that no event waits for a later
 * one, while the compressor keeps its history across batches: a text delta repeats most of the
 * previous one's JSON, and costs a few bytes once compressed.
 */
export interface CompressionOptions {
  /**
   * The codings offered, in the server's order of preference among those the client accepts
   * equally. Default `["gzip", "br", "zstd"]`: gzip first because, flushed after each small
   * batch, it measured both smaller and cheaper than Brotli on agent streams. A coding the
   * runtime lacks (zstd before Node 22.15) is never chosen.
   */
  encodings?: readonly ContentCoding[];
  /**
   * Compression level per coding: `gzip` 1-9 (default 6), `br` 0-11 (default 5; 11 is far too
   * slow for a live stream), `zstd` 1-19 (default 3).
   */
  level?: { gzip?: number; br?: number; zstd?: number };
}

/** {@link CompressionOptions} with defaults applied and checked. */
export interface ResolvedCompression {
  encodings: readonly ContentCoding[];
  level: Readonly<Record<ContentCoding, number>>;
}

const LEVELS: Readonly<Record<ContentCoding, { min: number; max: number; default: number }>> = {
  gzip: { min: 1, max: 9, default: 6 },
  br: { min: 0, max: 11, default: 5 },
  zstd: { min: 1, max: 19, default: 3 },
};

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "string" ? JSON.stringify(value) : typeof value === "object" ? "an object" : `${typeof value} ${String(value)}`;
}

/**
 * Applies defaults to the `compression` option and checks it. `undefined` and `true` mean the
 * defaults; `false` turns compression off.
 *
 * @returns The resolved options, or `undefined` when compression is off.
 * @throws {TypeError} when the option is neither a boolean nor an object, has an unknown key, or
 *   `encodings` is not an array of known codings.
 * @throws {RangeError} when `encodings` is empty or repeats a coding, or a level is not an integer
 *   in its coding's range.
 */
export function resolveCompression(option: boolean | CompressionOptions | undefined): ResolvedCompression | undefined {
  if (option === false) return undefined;
  const given: CompressionOptions = option === undefined || option === true ? {} : option;
  if (typeof given !== "object" || given === null || Array.isArray(given)) {
    throw new TypeError(`compression must be a boolean or an object { encodings?, level? }, found ${describe(option)}`);
  }
  for (const key of Object.keys(given)) {
    if (key !== "encodings" && key !== "level") throw new TypeError(`compression has an unknown key "${key}": expected encodings or level`);
  }
  const encodings = given.encodings ?? CONTENT_CODINGS;
  if (!Array.isArray(encodings)) throw new TypeError(`compression.encodings must be an array of ${CONTENT_CODINGS.join(", ")}, found ${describe(encodings)}`);
  if (encodings.length === 0) throw new RangeError("compression.encodings is empty: to turn compression off, pass compression: false");
  for (const [i, coding] of encodings.entries()) {
    if (!CONTENT_CODINGS.includes(coding)) throw new TypeError(`compression.encodings[${i}] must be one of ${CONTENT_CODINGS.join(", ")}, found ${describe(coding)}`);
    if (encodings.indexOf(coding) !== i) throw new RangeError(`compression.encodings lists "${coding}" twice`);
  }
  const levels = given.level ?? {};
  if (typeof levels !== "object" || levels === null || Array.isArray(levels)) {
    throw new TypeError(`compression.level must be an object { gzip?, br?, zstd? }, found ${describe(levels)}`);
  }
  const level = {} as Record<ContentCoding, number>;
  for (const key of Object.keys(levels)) {
    if (!(key in LEVELS)) throw new TypeError(`compression.level has an unknown key "${key}": expected ${CONTENT_CODINGS.join(", ")}`);
  }
  for (const coding of CONTENT_CODINGS) {
    const { min, max } = LEVELS[coding];
    const value = (levels as Record<string, unknown>)[coding] ?? LEVELS[coding].default;
    if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
      throw new RangeError(`compression.level.${coding} must be an integer from ${min} to ${max}, found ${describe(value)}`);
    }
    level[coding] = value as number;
  }
  return { encodings: [...encodings], level };
}

/** One entry of Accept-Encoding: a coding (lower case) and its weight. */
interface Weighted {
  coding: string;
  q: number;
}

/** Parses Accept-Encoding; an entry with a malformed weight is dropped, as if absent. */
function parseAcceptEncoding(header: string): Weighted[] {
  const out: Weighted[] = [];
  for (const part of header.split(",")) {
    const [name, ...params] = part.split(";");
    const coding = name!.trim().toLowerCase();
    if (coding === "") continue;
    let q = 1;
    let valid = true;
    for (const param of params) {
      const eq = param.indexOf("=");
      if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== "q") continue;
      // RFC 9110 §12.4.2: "0" to "1" with at most three decimals.
      const text = param.slice(eq + 1).trim();
      if (!/^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(text)) valid = false;
      else q = Number(text);
    }
    if (valid) out.push({ coding: coding === "x-gzip" ? "gzip" : coding, q });
  }
  return out;
}

/**
 * Picks the coding for a response from the request's `Accept-Encoding`: among `offered`, the one
 * the client weighs highest (ties go to the earlier in `offered`), unless the client weighs
 * `identity` higher still. `*` stands for every coding the header does not name; a weight of 0
 * refuses a coding.
 *
 * No header, or an empty one, gets identity: the client may not be able to decode anything, and
 * RFC 9110 lets the server choose identity then.
 *
 * @returns The coding, or `undefined` for identity (no compression).
 * @throws Never.
 */
export function negotiateContentCoding(header: string | null | undefined, offered: readonly ContentCoding[]): ContentCoding | undefined {
  if (header === null || header === undefined || header.trim() === "") return undefined;
  const entries = parseAcceptEncoding(header);
  const weight = (coding: string): number | undefined => {
    let named: number | undefined;
    let star: number | undefined;
    for (const e of entries) {
      if (e.coding === coding) named = Math.max(named ?? 0, e.q);
      else if (e.coding === "*") star = Math.max(star ?? 0, e.q);
    }
    return named ?? star;
  };
  let best: ContentCoding | undefined;
  let bestQ = 0;
  for (const coding of offered) {
    const q = weight(coding) ?? 0;
    if (q > bestQ) {
      best = coding;
      bestQ = q;
    }
  }
  if (best === undefined) return undefined;
  // identity is acceptable unless named with q=0 (or refused by `*;q=0`); it wins only when the client weighs it higher.
  const identity = entries.find((e) => e.coding === "identity")?.q;
  return identity !== undefined && identity > bestQ ? undefined : best;
}
