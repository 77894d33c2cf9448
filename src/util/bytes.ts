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
 * @param total - Their summed length, when the caller already keeps it as it collects them;
 *   summed here otherwise.
 * @throws {RangeError} When `total` is shorter than the parts.
 */
export function concatBytes(parts: readonly Uint8Array[], total = byteLengthOf(parts)): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

function byteLengthOf(parts: readonly Uint8Array[]): number {
  let n = 0;
  for (const part of parts) n += part.byteLength;
  return n;
}
