/**
 * Secrets: random tokens from the platform's CSPRNG, and their comparison in constant time.
 *
 * @module
 */

/** Bytes as base64url without padding (RFC 4648 §5). */
export function base64url(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i++) text += String.fromCharCode(bytes[i]!);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * `bytes` random bytes as base64url, from Web Crypto's `getRandomValues` (global in Node 20,
 * browsers, Deno, Bun and Workers): never `Math.random`, since these guard runs.
 *
 * @throws {Error} When the platform has no `crypto.getRandomValues`.
 */
export function randomToken(bytes: number): string {
  if (typeof globalThis.crypto?.getRandomValues !== "function") throw new Error("a secure random source is needed: expected crypto.getRandomValues, found none");
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/**
 * Whether two strings are equal, in a time that depends on their lengths only, not on where they
 * first differ: for comparing a secret's digest with one presented.
 *
 * @throws Never.
 */
export function sameSecret(a: string, b: string): boolean {
  let diff = a.length ^ b.length;
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) diff |= (a.charCodeAt(i % (a.length || 1)) | 0) ^ (b.charCodeAt(i % (b.length || 1)) | 0);
  return diff === 0;
}
