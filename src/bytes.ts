/**
 * Byte-array helpers shared by the codecs, the server and the decoders.
 *
 * @module
 */

/**
 * Joins `parts` into one array of `total` bytes, copying each part once. A single part is
 * returned as it is, without a copy.
 *
 * @param parts - The arrays to join, in order.
 * @param total - Their summed length, which every caller already keeps as it collects them.
 * @throws Never (a `total` shorter than the parts throws a `RangeError` from `set`).
 */
export function concatBytes(parts: readonly Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}
