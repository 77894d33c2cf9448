/**
 * UTF-8 bytes to strings for the protobuf reader, as browsers get it (package.json's `browser`
 * field maps utf8.js here): every string goes to the native decoder. Node's utf8.ts decodes short
 * strings itself and caches object keys, for speed on a server's hot path; the strings and the
 * refusals are the same (test/binary/utf8-browser.test.ts holds the two to that).
 *
 * @module
 */

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Decodes `buf[start..end)` as UTF-8, as `TextDecoder` in fatal mode does.
 *
 * @throws {TypeError} The native decoder's error, when the bytes are not UTF-8.
 */
export function decodeUtf8(buf: Uint8Array, start: number, end: number): string {
  return decoder.decode(buf.subarray(start, end));
}

/**
 * {@link decodeUtf8}, for a string that is likely to repeat (an object key); no cache here.
 *
 * @throws {TypeError} As {@link decodeUtf8} does.
 */
export const decodeKey = decodeUtf8;
