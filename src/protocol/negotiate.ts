/**
 * `Accept` header -> transport, per RFC 9110 §12.5.1.
 *
 * @module
 */
import { BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE } from "./media-types.js";

const TAB = 0x09;
const SPACE = 0x20;
const DQUOTE = 0x22;
const COMMA = 0x2c;
const DOT = 0x2e;
const SLASH = 0x2f;
const DIGIT_0 = 0x30;
const DIGIT_1 = 0x31;
const DIGIT_9 = 0x39;
const SEMICOLON = 0x3b;
const EQUALS = 0x3d;
const BACKSLASH = 0x5c;
const STAR = 0x2a;

/** RFC 9110 `tchar`, by char code below 128: 1 where the character may appear in a token. */
const TCHAR = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") {
  TCHAR[c.charCodeAt(0)] = 1;
}

/**
 * Every range that can admit the binary type contains `*` or the subtype's distinctive part, so a
 * header with neither (the common `text/event-stream`, or `application/json`) is SSE without
 * parsing it.
 */
const MAY_ADMIT_BINARY = /\*|event\+proto/i;

/** How specific a range is: the RFC's precedence, exact type over `type/*` over `*\/*`. */
const ANY = 1;
const TYPE_WILDCARD = 2;
const EXACT = 3;

function isTchar(c: number): boolean {
  return c < 128 && TCHAR[c] === 1;
}

/** Index of the first non-token character at or after `i`. */
function skipToken(s: string, i: number): number {
  while (i < s.length && isTchar(s.charCodeAt(i))) i++;
  return i;
}

function skipOWS(s: string, i: number): number {
  let c: number;
  while (i < s.length && ((c = s.charCodeAt(i)) === SPACE || c === TAB)) i++;
  return i;
}

/** Index just after the quoted string opening at `i`, or -1 if it never closes. */
function skipQuoted(s: string, i: number): number {
  for (i++; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === DQUOTE) return i + 1;
    if (c === BACKSLASH) i++;
  }
  return -1;
}

/** Index of the comma that ends the list element containing `i`, or the end; quotes respected. */
function skipElement(s: string, i: number): number {
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c === COMMA) return i;
    if (c === DQUOTE) {
      i = skipQuoted(s, i);
      if (i < 0) return s.length;
    } else {
      i++;
    }
  }
  return i;
}

/** Case-insensitive comparison of `s[start, end)` with `lower`, which must be lowercase ASCII. */
function equalsLower(s: string, start: number, end: number, lower: string): boolean {
  if (end - start !== lower.length) return false;
  for (let k = 0; k < lower.length; k++) {
    let c = s.charCodeAt(start + k);
    if (c >= 0x41 && c <= 0x5a) c |= 0x20;
    if (c !== lower.charCodeAt(k)) return false;
  }
  return true;
}

/**
 * A qvalue (`0`, `0.` to `0.999`, `1`, `1.` to `1.000`) in thousandths, or -1 when `s[start, end)`
 * is not one. Thousandths keep the comparisons exact.
 */
function parseQ(s: string, start: number, end: number): number {
  const len = end - start;
  if (len < 1 || len > 5) return -1;
  const first = s.charCodeAt(start);
  if (first !== DIGIT_0 && first !== DIGIT_1) return -1;
  if (len > 1 && s.charCodeAt(start + 1) !== DOT) return -1;
  let fraction = 0;
  let scale = 100;
  for (let k = start + 2; k < end; k++) {
    const c = s.charCodeAt(k);
    if (c < DIGIT_0 || c > DIGIT_9) return -1;
    fraction += (c - DIGIT_0) * scale;
    scale /= 10;
  }
  if (first === DIGIT_1) return fraction === 0 ? 1000 : -1;
  return fraction;
}

/**
 * Picks the transport for a request from its `Accept` header, per RFC 9110 §12.5.1.
 *
 * Each offered type (binary `application/vnd.ag-ui.event+proto`, SSE `text/event-stream`) takes
 * the q of the most specific range that matches it: the exact type over `type/*` over `*\/*`;
 * among ranges of the same type, one with more parameters is the more specific (the RFC's
 * `text/plain;format=flowed` over `text/plain`), and among equally specific ones the first listed
 * counts. Parameters other than `q` do not stop a range from matching: our types take no
 * parameters, and a client that names one with, say, a charset still asks for it.
 *
 * The higher q wins; on equal q the more specific match wins (by exact / `type/*` / `*\/*` only,
 * since parameter counts of different types say nothing about preference), then the one whose
 * range is listed first, then SSE. A q of 0 means "not acceptable".
 *
 * Malformed input is never an error: a list element that does not parse as a media range
 * (`text/`, `*\/json`, a parameter without `=`, an unterminated quoted string, a `q` that is not
 * an unquoted qvalue of at most 3 decimals or appears twice) is ignored on its own, and the rest of
 * the header still counts. Quoted parameter values may contain commas and semicolons. Empty list
 * elements and empty parameters (`;;`, `,,`) are allowed, as RFC 9110 allows them.
 *
 * SSE is the answer when there is no header, an empty one, or nothing acceptable, because every
 * AG-UI client can read it.
 *
 * @param accept - The `Accept` header value; `undefined`, `null` or `""` when absent.
 * @returns {@link BINARY_MEDIA_TYPE} or {@link SSE_MEDIA_TYPE}.
 * @throws Never.
 */
export function negotiate(accept?: string | null): typeof BINARY_MEDIA_TYPE | typeof SSE_MEDIA_TYPE {
  // Headers from untyped callers may be arrays or anything else; those get the safe default.
  if (typeof accept !== "string" || !MAY_ADMIT_BINARY.test(accept)) return SSE_MEDIA_TYPE;
  const s = accept;
  const n = s.length;
  // Per offered type: q (thousandths; -1 = no range matched), its range's specificity as
  // rank * 65536 + parameter count (to pick among ranges), and its position in the list.
  let binaryQ = -1;
  let binarySpecificity = 0;
  let binaryIndex = 0;
  let sseQ = -1;
  let sseSpecificity = 0;
  let sseIndex = 0;
  let index = 0;
  let i = 0;
  elements: while (i < n) {
    const first = s.charCodeAt(i);
    if (first === COMMA || first === SPACE || first === TAB) {
      i++;
      continue;
    }
    const position = index++;
    const typeStart = i;
    const typeEnd = skipToken(s, i);
    if (typeEnd === typeStart || s.charCodeAt(typeEnd) !== SLASH) {
      i = skipElement(s, typeEnd);
      continue;
    }
    const subtypeStart = typeEnd + 1;
    const subtypeEnd = skipToken(s, subtypeStart);
    i = subtypeEnd;
    if (subtypeEnd === subtypeStart) {
      i = skipElement(s, i);
      continue;
    }
    let q = 1000;
    let sawQ = false;
    let parameters = 0;
    for (;;) {
      i = skipOWS(s, i);
      if (i >= n) break;
      let c = s.charCodeAt(i);
      if (c === COMMA) break;
      if (c !== SEMICOLON) {
        i = skipElement(s, i);
        continue elements;
      }
      i = skipOWS(s, i + 1);
      if (i >= n) break;
      c = s.charCodeAt(i);
      if (c === SEMICOLON || c === COMMA) continue;
      const nameStart = i;
      const nameEnd = skipToken(s, i);
      if (nameEnd === nameStart || s.charCodeAt(nameEnd) !== EQUALS) {
        i = skipElement(s, nameEnd);
        continue elements;
      }
      const valueStart = nameEnd + 1;
      const isQ = nameEnd - nameStart === 1 && (s.charCodeAt(nameStart) | 0x20) === 0x71;
      if (s.charCodeAt(valueStart) === DQUOTE) {
        const valueEnd = skipQuoted(s, valueStart);
        if (valueEnd < 0 || isQ) {
          i = valueEnd < 0 ? n : skipElement(s, valueEnd);
          continue elements;
        }
        i = valueEnd;
        parameters++;
        continue;
      }
      const valueEnd = skipToken(s, valueStart);
      if (valueEnd === valueStart) {
        i = skipElement(s, valueEnd);
        continue elements;
      }
      i = valueEnd;
      if (!isQ) {
        parameters++;
        continue;
      }
      const weight = sawQ ? -1 : parseQ(s, valueStart, valueEnd);
      if (weight < 0) {
        i = skipElement(s, i);
        continue elements;
      }
      q = weight;
      sawQ = true;
    }
    // A well-formed range: see which offered type it matches, and how specifically.
    let matchesBinary = false;
    let matchesSSE = false;
    let rank: number;
    const subtypeIsStar = subtypeEnd - subtypeStart === 1 && s.charCodeAt(subtypeStart) === STAR;
    if (typeEnd - typeStart === 1 && s.charCodeAt(typeStart) === STAR) {
      if (!subtypeIsStar) continue; // `*/json` is not a media range
      matchesBinary = matchesSSE = true;
      rank = ANY;
    } else if (equalsLower(s, typeStart, typeEnd, "application")) {
      rank = subtypeIsStar ? TYPE_WILDCARD : EXACT;
      matchesBinary = subtypeIsStar || equalsLower(s, subtypeStart, subtypeEnd, "vnd.ag-ui.event+proto");
    } else if (equalsLower(s, typeStart, typeEnd, "text")) {
      rank = subtypeIsStar ? TYPE_WILDCARD : EXACT;
      matchesSSE = subtypeIsStar || equalsLower(s, subtypeStart, subtypeEnd, "event-stream");
    } else {
      continue;
    }
    const specificity = rank * 65536 + Math.min(parameters, 65535);
    // Strictly greater, so that among equally specific ranges the first listed keeps its place.
    if (matchesBinary && specificity > binarySpecificity) {
      binaryQ = q;
      binarySpecificity = specificity;
      binaryIndex = position;
    }
    if (matchesSSE && specificity > sseSpecificity) {
      sseQ = q;
      sseSpecificity = specificity;
      sseIndex = position;
    }
  }
  if (binaryQ <= 0) return SSE_MEDIA_TYPE;
  if (binaryQ !== sseQ) return binaryQ > sseQ ? BINARY_MEDIA_TYPE : SSE_MEDIA_TYPE;
  const binaryRank = binarySpecificity >>> 16;
  const sseRank = sseSpecificity >>> 16;
  if (binaryRank !== sseRank) return binaryRank > sseRank ? BINARY_MEDIA_TYPE : SSE_MEDIA_TYPE;
  return binaryIndex < sseIndex ? BINARY_MEDIA_TYPE : SSE_MEDIA_TYPE;
}
