/**
 * Protobuf wire writer used by the generated encoders.
 *
 * Events are written into a shared, growing pool and handed out as views (`subarray`), the way
 * Node's `Buffer` pool works: a small event costs no `ArrayBuffer` allocation and no copy. The
 * price is that views of different events share an `ArrayBuffer`, so callers must not transfer or
 * detach `view.buffer`.
 *
 * @module
 */

const POOL_SIZE = 64 * 1024;
// A pool grown past this by one large event is dropped afterwards, so a single huge event does not
// keep megabytes alive behind every later small one.
const POOL_KEEP_LIMIT = 1024 * 1024;
// Below this much room a new pool is started rather than growing mid-event.
const POOL_MIN_FREE = 512;

/** Sequential protobuf writer. Create one with {@link beginWrite}, finish it with {@link Writer.finish}. */
export class Writer {
  /** The buffer being written; replaced when it grows. */
  buf: Uint8Array;
  /** Next write position in {@link buf}. */
  pos: number;
  /** Where this writer's output starts in {@link buf}. */
  start: number;

  constructor(buf: Uint8Array, start: number) {
    this.buf = buf;
    this.pos = start;
    this.start = start;
  }

  /** Makes room for `n` more bytes, moving the output to a larger buffer if needed. */
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const used = this.pos - this.start;
    const grown = new Uint8Array(Math.max(POOL_SIZE, 2 * (used + n)));
    grown.set(this.buf.subarray(this.start, this.pos));
    this.buf = grown;
    this.start = 0;
    this.pos = used;
  }

  /** Writes one byte. The caller has ensured room. */
  byte(b: number): void {
    this.buf[this.pos++] = b;
  }

  /** Writes an unsigned 32-bit varint. */
  uint32(v: number): void {
    this.ensure(5);
    const buf = this.buf;
    let pos = this.pos;
    while (v > 0x7f) {
      buf[pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[pos++] = v;
    this.pos = pos;
  }

  /**
   * Writes an int64 varint from a safe integer (negative values take ten bytes, as protobuf's
   * two's-complement encoding requires).
   */
  int64(v: number): void {
    this.ensure(10);
    let lo = v >>> 0;
    let hi = Math.floor(v / 4294967296) >>> 0;
    if (v < 0) {
      // Two's complement of the 64-bit magnitude, done on the two 32-bit halves.
      const mag = -v;
      lo = mag >>> 0;
      hi = Math.floor(mag / 4294967296) >>> 0;
      lo = ~lo >>> 0;
      hi = ~hi >>> 0;
      lo = (lo + 1) >>> 0;
      if (lo === 0) hi = (hi + 1) >>> 0;
    }
    const buf = this.buf;
    let pos = this.pos;
    while (hi !== 0 || lo > 0x7f) {
      buf[pos++] = (lo & 0x7f) | 0x80;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    buf[pos++] = lo;
    this.pos = pos;
  }

  /** Writes a little-endian IEEE 754 double. */
  double(v: number): void {
    this.ensure(8);
    f64[0] = v;
    // Byte by byte: a call to set() costs more than copying eight bytes.
    const buf = this.buf;
    const pos = this.pos;
    buf[pos] = f64bytes[0]!;
    buf[pos + 1] = f64bytes[1]!;
    buf[pos + 2] = f64bytes[2]!;
    buf[pos + 3] = f64bytes[3]!;
    buf[pos + 4] = f64bytes[4]!;
    buf[pos + 5] = f64bytes[5]!;
    buf[pos + 6] = f64bytes[6]!;
    buf[pos + 7] = f64bytes[7]!;
    this.pos = pos + 8;
  }

  /** Writes a length-prefixed UTF-8 string. Lone surrogates become U+FFFD, as `TextEncoder` does. */
  string(s: string): void {
    const n = s.length;
    if (n < 43) {
      // At most 3 bytes per UTF-16 unit, so 42 units fit in 126 bytes: a one-byte length prefix.
      this.ensure(1 + 3 * n);
      const buf = this.buf;
      const lenPos = this.pos;
      let pos = lenPos + 1;
      // Ids and text deltas are mostly ASCII: a tight loop copies those, and the first other
      // character hands the rest to the general one.
      let i = 0;
      for (; i < n; i++) {
        const c = codeAt.call(s, i);
        if (c >= 0x80) break;
        buf[pos++] = c;
      }
      if (i < n) pos = writeUtf8(s, i, buf, pos);
      buf[lenPos] = pos - lenPos - 1;
      this.pos = pos;
      return;
    }
    // Long strings: reserve the prefix for the worst case, let the native encoder write the bytes
    // in place, then close the gap if the prefix turned out shorter.
    const max = 3 * n;
    const reserve = varintSize(max);
    this.ensure(reserve + max);
    const at = this.pos + reserve;
    const written = encoder.encodeInto(s, this.buf.subarray(at, at + max)).written;
    const size = varintSize(written);
    if (size < reserve) this.buf.copyWithin(this.pos + size, at, at + written);
    this.uint32(written);
    this.pos += written;
  }

  /**
   * Writes a length-prefixed string that is likely to be the one written last by this method: an
   * id, which every delta of a message or tool call repeats. The last id's bytes are kept, and
   * the same id again is a copy of them rather than an encoding (about half the time of an
   * encoding for a 36-character UUID).
   */
  id(s: string): void {
    if (s === lastId) {
      const bytes = lastIdBytes;
      const n = bytes.length;
      this.ensure(n);
      const buf = this.buf;
      let pos = this.pos;
      for (let i = 0; i < n; i++) buf[pos++] = bytes[i]!;
      this.pos = pos;
      return;
    }
    const start = this.pos - this.start;
    this.string(s);
    // Only short ids: a long string would cost a copy each time it changes.
    if (s.length <= ID_CACHE_MAX_LENGTH) {
      lastId = s;
      lastIdBytes = this.buf.slice(this.start + start, this.pos);
    }
  }

  /**
   * Starts a length-delimited field's body; pass the result to {@link join} when it is written.
   * One byte is reserved for the length, which covers the common short body without moving bytes.
   */
  fork(): number {
    this.ensure(1);
    return this.pos++ - this.start;
  }

  /** Ends a body started by {@link fork}: writes its length, moving the body if it needs more bytes. */
  join(mark: number): void {
    const at = this.start + mark;
    const len = this.pos - at - 1;
    if (len < 0x80) {
      this.buf[at] = len;
      return;
    }
    const size = varintSize(len);
    this.ensure(size - 1);
    const buf = this.buf;
    const from = this.start + mark;
    buf.copyWithin(from + size, from + 1, this.pos);
    let v = len;
    let pos = from;
    while (v > 0x7f) {
      buf[pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[pos] = v;
    this.pos += size - 1;
  }

  /** Returns what was written, as a view on the pool, and hands the rest of the pool on. */
  finish(): Uint8Array {
    // A view made by the constructor rather than subarray(), which also looks up the species
    // constructor (up to 1.1x the events/s on one-token deltas, measured in one process). Every
    // buffer here is a whole ArrayBuffer (byteOffset 0), so the offsets are the same.
    const out = new Uint8Array(this.buf.buffer, this.start, this.pos - this.start);
    if (this.buf.length > POOL_KEEP_LIMIT) {
      pool = new Uint8Array(POOL_SIZE);
      poolPos = 0;
    } else {
      pool = this.buf;
      // Keep the next event 8-byte aligned; nothing needs it, but it keeps views tidy for readers.
      poolPos = (this.pos + 7) & ~7;
    }
    return out;
  }
}

/**
 * Writes `s` from index `i` up to index `n` (its end unless given) as UTF-8 at `pos` and returns
 * the position after it. Lone surrogates become U+FFFD, as `TextEncoder` does. The caller has
 * ensured 3 bytes per unit written.
 */
export function writeUtf8(s: string, i: number, buf: Uint8Array, pos: number, n = s.length): number {
  for (; i < n; i++) {
    let c = codeAt.call(s, i);
    if (c < 0x80) {
      buf[pos++] = c;
    } else if (c < 0x800) {
      buf[pos++] = 0xc0 | (c >> 6);
      buf[pos++] = 0x80 | (c & 0x3f);
    } else if (c >= 0xd800 && c <= 0xdfff) {
      const next = i + 1 < n ? codeAt.call(s, i + 1) : 0;
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        i++;
        buf[pos++] = 0xf0 | (c >> 18);
        buf[pos++] = 0x80 | ((c >> 12) & 0x3f);
        buf[pos++] = 0x80 | ((c >> 6) & 0x3f);
        buf[pos++] = 0x80 | (c & 0x3f);
      } else {
        buf[pos++] = 0xef;
        buf[pos++] = 0xbf;
        buf[pos++] = 0xbd;
      }
    } else {
      buf[pos++] = 0xe0 | (c >> 12);
      buf[pos++] = 0x80 | ((c >> 6) & 0x3f);
      buf[pos++] = 0x80 | (c & 0x3f);
    }
  }
  return pos;
}

/**
 * `String.prototype.charCodeAt`, called as `codeAt.call(s, i)` by the loops that write strings.
 * `s.charCodeAt(i)` looks the method up on the string, and that lookup's inline cache is keyed by
 * the string's representation (flat or concatenated, sliced, one or two bytes a unit, internalized
 * or not): a server meets more than four of them, the cache goes megamorphic, the optimizing
 * compiler no longer inlines the call, and every character costs a call (measured: 7x slower per
 * character after a warm-up with six kinds of strings). A fixed function is inlined whatever the
 * string.
 */
const codeAt = String.prototype.charCodeAt;

const encoder = new TextEncoder();
// The id Writer.id wrote last, and its bytes with their length prefix.
const ID_CACHE_MAX_LENGTH = 64;
let lastId = "";
let lastIdBytes = new Uint8Array([0]);
const f64 = new Float64Array(1);
const f64bytes = new Uint8Array(f64.buffer);

let pool: Uint8Array = new Uint8Array(POOL_SIZE);
let poolPos = 0;

/** Bytes a varint of the unsigned 32-bit `v` takes. */
export function varintSize(v: number): number {
  return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5;
}

// Encoding is synchronous and never re-entered, so one writer serves every event.
const shared = new Writer(pool, 0);

/** Starts writing one event into the shared pool, with the shared writer. */
export function beginWrite(): Writer {
  if (pool.length - poolPos < POOL_MIN_FREE) {
    pool = new Uint8Array(POOL_SIZE);
    poolPos = 0;
  }
  shared.buf = pool;
  shared.pos = poolPos;
  shared.start = poolPos;
  return shared;
}
