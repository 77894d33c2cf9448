/**
 * Where an SSE upstream's bytes are already in the form the relay would write: each event one
 * `data: <text>\n\n`, between them nothing but what the relay drops anyway (comments, `id:` lines,
 * blank lines). Bytes of that form can go to the client as they came, so the relay need not join
 * the events' texts into a string and encode it again (a fifth of its CPU on SSE).
 *
 * @module
 */

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;

// Where the scan stands (plain numbers, not a const enum, which tsc emits as an object looked up
// at run time):
/** The start of a line between events. */
const START = 0;
/** `d` read of a data line; DATA1 + k: k more bytes of `ata: ` read (the next completes `data: `). */
const DATA1 = 1;
const DATA5 = 5;
/** The data line's text, up to its LF. */
const TEXT = 6;
/** After the data line: the LF of the blank line that ends the event. */
const BLANK = 7;
/** `i` read of an `id:` line. */
const ID1 = 8;
/** `id` read of an `id:` line. */
const ID2 = 9;
/** A comment or an `id:` line, dropped up to its LF. */
const SKIP = 10;
/** Anything else came: the stream is not canonical, from there on. */
const FAILED = 11;

/** The bytes of `data: `, which a data line starts with after its `d`. */
const DATA_PREFIX = [0x61, 0x74, 0x61, COLON, SPACE];
/** `d` and `i`. */
const D = 0x64;
const I = 0x69;

/** A chunk's bytes as they are read: one by one, and four at a time where they are aligned. */
interface Bytes {
  chunk: Uint8Array;
  /** The chunk's aligned words: word k holds bytes `head + 4k` to `head + 4k + 3`. */
  words: Int32Array;
  head: number;
}

const NO_WORDS = new Int32Array(0);

/** The chunk's bytes, with the words of its aligned part. */
function bytesOf(chunk: Uint8Array): Bytes {
  const head = (4 - (chunk.byteOffset & 3)) & 3;
  const count = chunk.length > head ? (chunk.length - head) >> 2 : 0;
  // (A view of no words may not start past its buffer's end.)
  return { chunk, words: count === 0 ? NO_WORDS : new Int32Array(chunk.buffer, chunk.byteOffset + head, count), head };
}

/**
 * The index of the first LF in the chunk from `from` on (its length when there is none), or -1
 * when a CR comes first: a CR ends a line wherever it is, and canonical text has none.
 */
function lineEnd({ chunk, words, head }: Bytes, from: number): number {
  const n = chunk.length;
  let i = from;
  for (;;) {
    // One by one up to a word's start (or through a word that holds a byte below 14).
    const to = i < head ? head : i + ((head - i) & 3);
    for (; i < to && i < n; i++) {
      const c = chunk[i]!;
      if (c < 14) {
        if (c === LF) return i;
        if (c === CR) return -1;
      }
    }
    if (i >= n) return n;
    // Four at a time: whether any byte is below 14 (both line ends are; JSON text has no byte
    // below 32 but a tab), the test of "Bit Twiddling Hacks" (hasless), exact for a bound <= 128.
    let k = (i - head) >> 2;
    const count = words.length;
    for (; k < count; k++) {
      const x = words[k]!;
      if ((((x - 0x0e0e0e0e) | 0) & ~x & 0x80808080) !== 0) break;
    }
    i = head + 4 * k;
    if (k === count) {
      // The last bytes, after the last whole word.
      for (; i < n; i++) {
        const c = chunk[i]!;
        if (c < 14) {
          if (c === LF) return i;
          if (c === CR) return -1;
        }
      }
      return n;
    }
    // The word holds a byte below 14: read it one by one.
    const end = i + 4;
    for (; i < end; i++) {
      const c = chunk[i]!;
      if (c < 14) {
        if (c === LF) return i;
        if (c === CR) return -1;
      }
    }
  }
}

/**
 * Scans an SSE stream's bytes, chunk by chunk, for the events written `data: <text>\n\n` with LF
 * line ends only, and keeps (as views, not copies) the bytes of those events, without the comments,
 * `id:` lines and blank lines between them. Once anything else comes (a CR, an `event:` or `retry:`
 * line, a data line without its space, an event of several data lines, a byte order mark), the
 * stream is not canonical from there on and every later {@link CanonicalSSE.push} says so.
 *
 * The bytes kept of an event say exactly what the SSE decoder made of the same bytes: one message
 * whose data is `<text>` (the event's relayable text, see `RelayableSSEDecoder`) and nothing else
 * any parser could read otherwise, so a client that gets them reads what it would read from
 * `data: ${text}\n\n` written anew; they are those very bytes when `<text>` is valid UTF-8.
 * Internal to the package.
 */
export class CanonicalSSE {
  #at = START;
  /** Bytes of the events completed since the last take or drop, in order. */
  #done: Uint8Array[] = [];
  #doneBytes = 0;
  /** Bytes of the event under way from the chunks before this one. */
  #open: Uint8Array[] = [];
  #openBytes = 0;
  /** The longest data line (`data: ` and its text, in bytes) among the events in {@link CanonicalSSE.take}'s hands. */
  longest = 0;

  /**
   * Scans the stream's next chunk.
   *
   * @returns How many events the chunk completed, all canonical; -1 when the stream is not
   *   canonical (from this chunk on: then nothing is kept, and every later call returns -1).
   * @throws Never.
   */
  push(chunk: Uint8Array): number {
    if (this.#at === FAILED) return -1;
    const n = chunk.length;
    const bytes = bytesOf(chunk);
    let at = this.#at;
    let pos = 0;
    let completed = 0;
    /** Where the kept run of this chunk began (-1: none under way). */
    let runFrom = at === START || at === ID1 || at === ID2 || at === SKIP ? -1 : 0;
    /** Where the event under way began in this chunk (0 when it began in an earlier one). */
    let openFrom = 0;
    /** Where the chunk's last completed event ended. */
    let lastEnd = -1;
    while (pos < n) {
      if (at === TEXT || at === SKIP) {
        const lf = lineEnd(bytes, pos);
        if (lf < 0) return this.#fail();
        if (lf === n) {
          pos = n;
          break;
        }
        pos = lf + 1;
        at = at === TEXT ? BLANK : START;
        continue;
      }
      const c = chunk[pos++]!;
      switch (at) {
        case START:
          if (c === D) {
            openFrom = pos - 1;
            if (runFrom < 0) runFrom = openFrom;
            if (pos + 5 < n && chunk[pos] === DATA_PREFIX[0] && chunk[pos + 1] === DATA_PREFIX[1] && chunk[pos + 2] === DATA_PREFIX[2] && chunk[pos + 3] === COLON && chunk[pos + 4] === SPACE) {
              // The usual case, `data: ` whole in this chunk: straight to its text's end.
              const lf = lineEnd(bytes, pos + 5);
              if (lf < 0) return this.#fail();
              if (lf + 1 < n) {
                if (chunk[lf + 1] !== LF) return this.#fail();
                pos = lf + 2;
                // The event began in this chunk: nothing of it is in #open.
                if (pos - openFrom - 2 > this.longest) this.longest = pos - openFrom - 2;
                completed++;
                lastEnd = pos;
                continue;
              }
              pos = lf === n ? n : lf + 1;
              at = lf === n ? TEXT : BLANK;
              continue;
            }
            at = DATA1;
            continue;
          }
          // What lies between events is dropped: the run kept so far ends here.
          if (runFrom >= 0) {
            if (lastEnd > runFrom) this.#keep(chunk.subarray(runFrom, lastEnd));
            runFrom = -1;
          }
          if (c === LF) continue;
          if (c === COLON) at = SKIP;
          else if (c === I) at = ID1;
          else return this.#fail();
          continue;
        case DATA1:
        case DATA1 + 1:
        case DATA1 + 2:
        case DATA1 + 3:
        case DATA5:
          if (c !== DATA_PREFIX[at - DATA1]) return this.#fail();
          at = at === DATA5 ? TEXT : at + 1;
          continue;
        case BLANK: {
          if (c !== LF) return this.#fail();
          // The event began in this chunk, or in earlier ones whose bytes are kept in #open.
          const size = this.#openBytes + pos - openFrom;
          if (this.#openBytes > 0) {
            for (const piece of this.#open) this.#keep(piece);
            this.#open = [];
            this.#openBytes = 0;
          }
          // Without its blank line's two LFs.
          if (size - 2 > this.longest) this.longest = size - 2;
          completed++;
          lastEnd = pos;
          at = START;
          continue;
        }
        case ID1:
          if (c !== D) return this.#fail();
          at = ID2;
          continue;
        case ID2:
          if (c !== COLON) return this.#fail();
          at = SKIP;
          continue;
        default:
          return this.#fail();
      }
    }
    if (runFrom >= 0) {
      if (lastEnd > runFrom) this.#keep(chunk.subarray(runFrom, lastEnd));
      if (at !== START) {
        const from = Math.max(runFrom, openFrom);
        this.#open.push(chunk.subarray(from));
        this.#openBytes += n - from;
      }
    }
    this.#at = at;
    return completed;
  }

  /**
   * The bytes of the events completed since the last take or drop, as one copy (the chunks belong
   * to the upstream's reader), or `undefined` when there are none.
   *
   * @throws Never.
   */
  take(): Uint8Array | undefined {
    const done = this.#done;
    if (done.length === 0) return undefined;
    const out = new Uint8Array(this.#doneBytes);
    let at = 0;
    for (const piece of done) {
      out.set(piece, at);
      at += piece.byteLength;
    }
    this.drop();
    return out;
  }

  /** Forgets the events completed since the last take or drop (they go to the client otherwise). */
  drop(): void {
    if (this.#done.length > 0) this.#done = [];
    this.#doneBytes = 0;
    this.longest = 0;
  }

  #keep(piece: Uint8Array): void {
    this.#done.push(piece);
    this.#doneBytes += piece.byteLength;
  }

  #fail(): -1 {
    this.#at = FAILED;
    this.#done = [];
    this.#open = [];
    this.#doneBytes = this.#openBytes = 0;
    return -1;
  }
}
