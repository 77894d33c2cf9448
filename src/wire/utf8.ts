/**
 * UTF-8 bytes to strings for the protobuf reader ({@link Reader}), as Node runs it: short strings
 * (ids, deltas, object keys) are decoded here rather than by `TextDecoder`, whose call and view
 * cost more than the decoding itself at these lengths, and object keys go through a small cache.
 * Browsers get utf8.browser.ts instead (package.json's `browser` field), which leaves both to the
 * native decoder: the same strings and the same refusals, in less code.
 *
 * @module
 */

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Strings up to this many bytes are decoded by {@link decodeShort}. */
const SHORT_STRING = 64;

// The key cache: direct-mapped by a hash of the bytes, shared by all readers (it holds no state
// that a reader could observe other than which string object comes back).
const KEY_CACHE_SIZE = 512;
const KEY_CACHE_MAX_LENGTH = 32;
const keyBytes: Uint8Array[] = new Array<Uint8Array>(KEY_CACHE_SIZE).fill(new Uint8Array(0));
const keyStrings: string[] = new Array<string>(KEY_CACHE_SIZE).fill("");

/**
 * Decodes `buf[pos..end)` as UTF-8, or returns undefined when the bytes are not UTF-8 (a stray or
 * missing continuation byte, an overlong form, a surrogate, a code point past U+10FFFF): exactly
 * the bytes that the native decoder refuses in fatal mode.
 */
function decodeShort(buf: Uint8Array, pos: number, end: number): string | undefined {
  let s = "";
  // ASCII four bytes at a time: one call and one concatenation per four characters instead of
  // per character (1.5x the speed on ids and deltas). A block with another byte falls through.
  while (pos + 4 <= end) {
    const a = buf[pos]!;
    const b = buf[pos + 1]!;
    const c = buf[pos + 2]!;
    const d = buf[pos + 3]!;
    if ((a | b | c | d) >= 0x80) break;
    s += String.fromCharCode(a, b, c, d);
    pos += 4;
  }
  while (pos < end) {
    const b0 = buf[pos++]!;
    if (b0 < 0x80) {
      s += String.fromCharCode(b0);
    } else if (b0 < 0xc2 || b0 > 0xf4) {
      return undefined;
    } else if (b0 < 0xe0) {
      if (pos >= end) return undefined;
      const b1 = buf[pos++]!;
      if ((b1 & 0xc0) !== 0x80) return undefined;
      s += String.fromCharCode(((b0 & 0x1f) << 6) | (b1 & 0x3f));
    } else if (b0 < 0xf0) {
      if (pos + 2 > end) return undefined;
      const b1 = buf[pos]!;
      const b2 = buf[pos + 1]!;
      pos += 2;
      // After E0 the next byte is A0..BF (no overlong form); after ED, 80..9F (no surrogate).
      if ((b1 & 0xc0) !== 0x80 || (b2 & 0xc0) !== 0x80 || (b0 === 0xe0 && b1 < 0xa0) || (b0 === 0xed && b1 > 0x9f)) {
        return undefined;
      }
      s += String.fromCharCode(((b0 & 0x0f) << 12) | ((b1 & 0x3f) << 6) | (b2 & 0x3f));
    } else {
      if (pos + 3 > end) return undefined;
      const b1 = buf[pos]!;
      const b2 = buf[pos + 1]!;
      const b3 = buf[pos + 2]!;
      pos += 3;
      // After F0 the next byte is 90..BF (no overlong form); after F4, 80..8F (at most U+10FFFF).
      if (
        (b1 & 0xc0) !== 0x80 ||
        (b2 & 0xc0) !== 0x80 ||
        (b3 & 0xc0) !== 0x80 ||
        (b0 === 0xf0 && b1 < 0x90) ||
        (b0 === 0xf4 && b1 > 0x8f)
      ) {
        return undefined;
      }
      const cp = (((b0 & 0x07) << 18) | ((b1 & 0x3f) << 12) | ((b2 & 0x3f) << 6) | (b3 & 0x3f)) - 0x10000;
      s += String.fromCharCode(0xd800 | (cp >> 10), 0xdc00 | (cp & 0x3ff));
    }
  }
  return s;
}

/**
 * Decodes `buf[start..end)` as UTF-8, as `TextDecoder` in fatal mode does.
 *
 * @throws {TypeError} The native decoder's error, when the bytes are not UTF-8.
 */
export function decodeUtf8(buf: Uint8Array, start: number, end: number): string {
  if (end - start <= SHORT_STRING) {
    const s = decodeShort(buf, start, end);
    if (s !== undefined) return s;
    // Not valid UTF-8: the native decoder below refuses it too, and its error is the one thrown.
  }
  return decoder.decode(buf.subarray(start, end));
}

/**
 * {@link decodeUtf8} for a string that is likely to repeat, such as an object key: short ASCII
 * strings are looked up in a small cache first, so a key seen before comes back as the same string
 * without building it again (and, used as a property key, without interning it again).
 *
 * @throws {TypeError} As {@link decodeUtf8} does.
 */
export function decodeKey(buf: Uint8Array, start: number, end: number): string {
  const len = end - start;
  if (len > KEY_CACHE_MAX_LENGTH) return decodeUtf8(buf, start, end);
  let hash = len;
  for (let i = start; i < end; i++) {
    const b = buf[i]!;
    if (b >= 0x80) return decodeUtf8(buf, start, end);
    hash = (Math.imul(hash, 31) + b) | 0;
  }
  const slot = hash & (KEY_CACHE_SIZE - 1);
  const bytes = keyBytes[slot]!;
  if (bytes.length === len) {
    let i = 0;
    while (i < len && bytes[i] === buf[start + i]) i++;
    if (i === len) return keyStrings[slot]!;
  }
  const s = decodeUtf8(buf, start, end);
  keyBytes[slot] = buf.slice(start, end);
  keyStrings[slot] = s;
  return s;
}
