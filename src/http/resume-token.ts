/**
 * Resume tokens: the secret that makes a resumable run its starter's. The server answers one with
 * the run (or takes the client's own from the POST); a reattach or a cancel must present it, and a
 * store keeps only its digest.
 *
 * @module
 */
import { base64url, randomToken } from "../util/index.js";

/**
 * The header that carries a run's resume token: in the answer to a resumable run's POST (next to
 * `AG-UI-Run-Id`), and in the requests that reattach to it or cancel it. A client may choose the
 * token itself and send it with the POST, so that it can resume a run whose answer was cut before
 * its headers arrived.
 */
export const RESUME_TOKEN_HEADER = "AG-UI-Resume-Token";

/** The query parameter that carries a resume token where a header cannot (a browser's `EventSource`). */
export const RESUME_TOKEN_PARAM = "resumeToken";

/** Random bytes in a token the server makes: 256 bits, 43 base64url characters. */
const TOKEN_BYTES = 32;
/** The shortest token taken from a client: 22 base64url characters carry 128 bits. */
const MIN_TOKEN_LENGTH = 22;
/** The longest token taken from a client. */
const MAX_TOKEN_LENGTH = 128;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * A new resume token: 256 bits from the platform's CSPRNG, as 43 base64url characters.
 *
 * @throws {Error} When the platform has no `crypto.getRandomValues`.
 */
export function newResumeToken(): string {
  return randomToken(TOKEN_BYTES);
}

/**
 * Why `token` cannot be a resume token, or `undefined` when it can: 22 to 128 characters of
 * base64url (`A`–`Z`, `a`–`z`, `0`–`9`, `-`, `_`), so at least 128 bits when it is random. The
 * message never echoes the token.
 *
 * @throws Never.
 */
export function resumeTokenProblem(token: string): string | undefined {
  const expected = `expected a resume token of ${MIN_TOKEN_LENGTH} to ${MAX_TOKEN_LENGTH} base64url characters`;
  if (token.length < MIN_TOKEN_LENGTH || token.length > MAX_TOKEN_LENGTH) return `${expected}, found ${token.length} characters`;
  if (!BASE64URL.test(token)) return `${expected}, found another character`;
  return undefined;
}

/**
 * The digest a store keeps of a token: SHA-256, base64url. Through Web Crypto, so that the server's
 * handlers run wherever `fetch` handlers do.
 *
 * @throws Never itself; rejects when the platform has no `crypto.subtle`.
 */
export async function digestOf(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return base64url(new Uint8Array(digest));
}
