/**
 * The request's Content-Type: a run request must declare `application/json`.
 *
 * Why it matters: a browser sends a POST with `text/plain`, `application/x-www-form-urlencoded`
 * or `multipart/form-data` (or no Content-Type) from any web page, with the visitor's cookies and
 * without asking the server first (a CORS "simple request"). A POST declaring `application/json`
 * from another origin needs a preflight the server must approve. Refusing every other type
 * before the body is read means no page the handler's CORS settings do not allow can start a run.
 *
 * @module
 */

/** The only media type a run request may declare. */
export const JSON_MEDIA_TYPE = "application/json";

/** Longest Content-Type value quoted back in an error message, in characters. */
const QUOTED_MAX = 100;

/**
 * Checks a request's Content-Type header. Accepted: `application/json` in any case, with any
 * parameters (`Application/JSON; charset=utf-8`); the body must be UTF-8 JSON whatever the
 * parameters say (RFC 8259 §8.1). Refused: anything else, including a missing header, a
 * structured-syntax suffix such as `application/vnd.example+json` (one media type is simpler to
 * reason about, and no AG-UI client sends another), and a header repeated with different values.
 *
 * @param header - The Content-Type value, `null` or `undefined` when absent.
 * @returns `undefined` when the type is accepted, else the message of a 415 answer, naming what
 *   was expected and what was found.
 * @throws Never.
 */
export function contentTypeProblem(header: string | null | undefined): string | undefined {
  if (header === null || header === undefined) {
    return `missing Content-Type: expected ${JSON_MEDIA_TYPE}`;
  }
  const semicolon = header.indexOf(";");
  const mediaType = (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase();
  if (mediaType === JSON_MEDIA_TYPE) return undefined;
  const shown = header.length > QUOTED_MAX ? `${header.slice(0, QUOTED_MAX)}…` : header;
  return `unsupported Content-Type ${JSON.stringify(shown)}: expected ${JSON_MEDIA_TYPE}`;
}
