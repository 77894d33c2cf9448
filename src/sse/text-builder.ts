/**
 * Text gathered from many pieces, holding memory in proportion to its length.
 *
 * Appending with `+=` makes a rope: every append is a node of about 32 bytes, whatever the piece's
 * length. An SSE event of a million empty `data:` lines then held 32 MB for a megabyte of text
 * (the issue measured 518 MB of heap for 100 MB of such lines, 16.7 MB of event), and a long
 * line delivered one byte per chunk cost the same per byte. Here pieces wait in a short array and
 * are joined into a flat block every {@link BLOCK_PIECES} pieces or {@link BLOCK_CHARS} characters,
 * so the overhead is bounded by one pending block, and the whole is joined once when taken.
 *
 * A piece sliced out of a chunk may be a view that keeps the whole chunk alive. {@link settle},
 * called when a chunk is done with, joins pending pieces that may be such views, so that no
 * more than the current chunk is kept alive by them.
 *
 * @module
 */

/** Pieces joined into one block at most. */
const BLOCK_PIECES = 1024;
/** Characters of pending pieces that make a block, so that large pieces are not held as many. */
const BLOCK_CHARS = 64 * 1024;
/**
 * Pieces at least this long may be views on the string they were sliced from (V8 copies shorter
 * slices, other engines have similar thresholds); shorter ones are flat copies or shared.
 */
const VIEW_MIN_LENGTH = 13;

/** Text built by appending pieces, joined with a fixed separator. */
export class TextBuilder {
  readonly #separator: string;
  /** The only piece, while there is one: the usual case, which then costs no array. */
  #first = "";
  /** Pieces since the last block, once there are two or more. */
  #pending: string[] | undefined;
  #pendingChars = 0;
  /** Whether a pending piece may be a view on a chunk (see {@link settle}). */
  #pendingViews = false;
  /** Joined blocks, in order; each is a flat string. */
  #blocks: string[] | undefined;
  #count = 0;
  #length = 0;

  /** @param separator - What goes between two pieces (`""` to concatenate). @throws Never. */
  constructor(separator: string) {
    this.#separator = separator;
  }

  /** The number of pieces appended since the last {@link take}. */
  get count(): number {
    return this.#count;
  }

  /** The length of the text, separators included. */
  get length(): number {
    return this.#length;
  }

  /** Appends a piece. @throws Never. */
  push(piece: string): void {
    if (this.#count === 0) {
      this.#first = piece;
      this.#count = 1;
      this.#length = piece.length;
      return;
    }
    this.#length += this.#separator.length + piece.length;
    this.#count++;
    let pending = this.#pending;
    if (pending === undefined) {
      // The second piece: the first one becomes the first pending piece.
      const first = this.#first;
      pending = [first];
      this.#first = "";
      this.#pending = pending;
      this.#pendingChars = first.length;
      this.#pendingViews = first.length >= VIEW_MIN_LENGTH;
    }
    pending.push(piece);
    this.#pendingChars += piece.length;
    if (piece.length >= VIEW_MIN_LENGTH) this.#pendingViews = true;
    if (pending.length >= BLOCK_PIECES || this.#pendingChars >= BLOCK_CHARS) this.#flush();
  }

  /**
   * Joins pending pieces that may be views on the chunk they came from, so that the builder keeps
   * the chunk's text alive no longer. Call when a chunk has been read.
   *
   * @throws Never.
   */
  settle(): void {
    if (this.#pendingViews) this.#flush();
  }

  /** Returns the text and empties the builder. @throws Never. */
  take(): string {
    let text = this.#first;
    if (this.#count > 1) {
      if (this.#pending !== undefined && this.#blocks !== undefined) this.#flush();
      text = (this.#blocks ?? this.#pending)!.join(this.#separator);
    }
    this.clear();
    return text;
  }

  /** Empties the builder. @throws Never. */
  clear(): void {
    this.#first = "";
    this.#pending = undefined;
    this.#pendingChars = 0;
    this.#pendingViews = false;
    this.#blocks = undefined;
    this.#count = 0;
    this.#length = 0;
  }

  #flush(): void {
    const pending = this.#pending;
    if (pending === undefined || pending.length === 0) return;
    (this.#blocks ??= []).push(pending.join(this.#separator));
    // A new array rather than emptying this one: V8 keeps an emptied array's backing store.
    this.#pending = [];
    this.#pendingChars = 0;
    this.#pendingViews = false;
  }
}
