/**
 * An incremental, push-based parser of the `text/event-stream` format, following the WHATWG HTML
 * standard's "event stream interpretation" (the rules `EventSource` implements).
 *
 * It knows nothing of AG-UI: it turns bytes or text into the messages an `EventSource` would
 * dispatch. {@link SSEDecoder} adds JSON and event validation on top.
 *
 * @module
 */
import { AguiWireError } from "../util/index.js";
import { TextBuilder } from "./text-builder.js";

/** The default of {@link SSEParserOptions.maxEventBytes}: 16 MiB, the same bound as binary frames. */
export const DEFAULT_MAX_EVENT_BYTES = 16 * 1024 * 1024;

/** One dispatched message, as an `EventSource` would deliver it. */
export interface SSEMessage {
  /** The event's data: its `data` lines' values joined with `\n`. */
  data: string;
  /**
   * The value of the event's last `event` field, or `""` when it had none (where a browser's
   * `MessageEvent.type` would say `"message"`), so that "not set" stays distinguishable.
   */
  event: string;
  /** The last event ID at dispatch: the most recent valid `id` field of the stream, or `""`. */
  id: string;
}

/** Options of {@link SSEParser} (and of the decoder built on it). */
export interface SSEParserOptions {
  /**
   * The largest event accepted, counted in UTF-16 code units of decoded text (what a JS string's
   * `length` counts, and so what the buffered text costs in memory: the parser holds an event's
   * text in flat blocks, never one object per line, so memory follows this count however the text
   * is split into lines and chunks). For ASCII text, which is what
   * JSON with escaped non-ASCII is, that equals bytes on the wire; text outside ASCII may take up
   * to 3 bytes per code unit on the wire. An event's size at any moment is its data so far (each
   * `data` line's value plus the one line feed the standard appends to it) plus the length of the
   * line being read, whatever its field. Default {@link DEFAULT_MAX_EVENT_BYTES} (16 MiB).
   */
  maxEventBytes?: number;
}

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const BOM = 0xfeff;

/** `retry` values the standard accepts: ASCII digits only (an empty value is not a number). */
const DIGITS = /^[0-9]+$/;

/**
 * {@link SSEParser} without its `retry`: the parser {@link SSEDecoder} reads with, since a client
 * does nothing with the reconnection time and so need not carry its parsing. Internal to the
 * package; everything else is documented on {@link SSEParser}.
 */
export class SSEMessageParser {
  readonly #maxEventBytes: number;
  /** Created on the first byte chunk only, so that text-only use never allocates it. */
  #decoder: TextDecoder | undefined;
  /** Whether no text has been seen yet in this stream, so a leading BOM must be dropped. */
  #atStart = true;
  /** Whether the previous text ended in CR, so an LF that starts the next text is its pair. */
  #skipLF = false;
  /** The unfinished last line: text after the last line end seen, in the pieces it came in. */
  readonly #tail = new TextBuilder("");
  /**
   * The event's data lines, to be joined with LF: the data buffer without its trailing LF. It has
   * lines exactly when the standard's data buffer is non-empty.
   */
  readonly #data = new TextBuilder("\n");
  #eventType = "";
  #idBuffer = "";
  #lastEventId = "";
  #failure: AguiWireError | undefined;

  /**
   * @param options - `maxEventBytes`: see {@link SSEParserOptions.maxEventBytes}.
   * @throws {RangeError} When `maxEventBytes` is not a positive integer (or `Infinity`): a
   *   programming error, not a wire error.
   */
  constructor(options: SSEParserOptions = {}) {
    const max = options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
    if (!(max === Infinity || (Number.isInteger(max) && max > 0))) {
      throw new RangeError(`maxEventBytes: expected a positive integer, found ${String(max)}`);
    }
    this.#maxEventBytes = max;
  }

  /**
   * The last event ID string: set from the last valid `id` field each time an event is
   * dispatched (also by a blank line that dispatches nothing, as the standard says), and kept
   * across events and across {@link SSEParser.end}, so it is what a reconnection should send as
   * `Last-Event-ID`. An `id` of an event the stream never finished does not count.
   */
  get lastEventId(): string {
    return this.#lastEventId;
  }

  /**
   * Feeds the next chunk of the stream.
   *
   * Byte chunks are decoded as UTF-8, statefully across calls. A string chunk is taken as
   * already-decoded text; if it follows byte chunks that ended inside a UTF-8 sequence, that
   * unfinished sequence becomes U+FFFD first.
   *
   * @param chunk - The next bytes or text of the stream; may be empty.
   * @returns The messages this chunk completed, in order; often empty.
   * @throws {AguiWireError} `frame_too_large` as soon as an event's size (see
   *   {@link SSEParserOptions.maxEventBytes}) would pass the bound, before the excess is
   *   buffered; or whatever an earlier call threw, since errors are final.
   */
  push(chunk: Uint8Array | string): SSEMessage[] {
    if (this.#failure) throw this.#failure;
    let text: string;
    if (typeof chunk === "string") {
      text = this.#decoder ? this.#decoder.decode() + chunk : chunk;
    } else {
      // ignoreBOM keeps the BOM in the text: the stream-start rule strips exactly one, and a
      // decoder that also stripped one would remove two from a stream starting with a doubled BOM.
      this.#decoder ??= new TextDecoder("utf-8", { ignoreBOM: true });
      text = this.#decoder.decode(chunk, { stream: true });
    }
    const out: SSEMessage[] = [];
    if (text.length > 0) {
      try {
        this.#feed(text, out);
      } catch (error) {
        // Messages completed before the failure in this chunk are handed out first, so what a
        // caller receives does not depend on how the bytes were split; the failure (kept in
        // #failure) is thrown by the next call.
        if (out.length === 0) throw error;
      }
    }
    return out;
  }

  /**
   * Ends the stream.
   *
   * A stream may end between events, after an event with no data (such as a lone `id` or
   * `retry`), or inside a comment or a non-data field line: those leftovers are discarded, as the
   * standard says. Afterwards the parser is ready for another stream (a reconnection): the next
   * push starts fresh (BOM handling included), while {@link SSEParser.lastEventId} and
   * {@link SSEParser.retry} are kept.
   *
   * @throws {AguiWireError} `truncated_stream` when the stream ended inside an event that holds
   *   data (a `data` line was read but the blank line that dispatches it never came, or the
   *   unfinished last line is a `data` field), because dropping it silently would lose an event;
   *   `frame_too_large` if bytes held back by the UTF-8 decoder push the event over the bound;
   *   or whatever an earlier call threw, since errors are final.
   */
  end(): void {
    if (this.#failure) throw this.#failure;
    if (this.#decoder) {
      // An unfinished UTF-8 sequence at the end of the bytes becomes U+FFFD; it holds no line end.
      const rest = this.#decoder.decode();
      if (rest.length > 0) this.#feed(rest, []);
    }
    const dataSize = this.#dataSize();
    const tail = this.#tail.take();
    // A partial last line that is, or could have become, a data field ("d", "dat", "data: {…")
    // means an event was cut; a partial comment or other field carries no data and is dropped.
    // (A tail that starts "data" is that field only when a colon, or nothing, follows the name.)
    if (dataSize > 0 || (tail.length > 0 && "data".startsWith(tail.slice(0, 4)) && (tail.length <= 4 || tail.charCodeAt(4) === COLON))) {
      this.#fail(
        "truncated_stream",
        `SSE stream ended inside an event: expected a blank line to end it, found the end after ${dataSize + tail.length} characters`,
      );
    }
    this.#atStart = true;
    this.#skipLF = false;
    this.#eventType = "";
  }

  #fail(code: "frame_too_large" | "truncated_stream", message: string): never {
    this.#tail.clear();
    this.#data.clear();
    this.#failure = new AguiWireError(code, message);
    throw this.#failure;
  }

  /** The standard's data buffer length: each data line's value plus its appended LF. */
  #dataSize(): number {
    return this.#data.count > 0 ? this.#data.length + 1 : 0;
  }

  #tooLarge(size: number): never {
    return this.#fail(
      "frame_too_large",
      `SSE event too large: expected at most ${this.#maxEventBytes} UTF-16 units (maxEventBytes), found at least ${size}`,
    );
  }

  /** Splits non-empty decoded text into lines, processing each complete one. */
  #feed(text: string, out: SSEMessage[]): void {
    const n = text.length;
    let pos = 0;
    if (this.#atStart) {
      this.#atStart = false;
      if (text.charCodeAt(0) === BOM) pos = 1;
    }
    if (this.#skipLF) {
      this.#skipLF = false;
      if (text.charCodeAt(pos) === LF) pos++;
    }
    const max = this.#maxEventBytes;
    // Where the next CR and LF are, or n when there is none. Each is searched for again only
    // once the scan has passed it, so every character is looked at once; most streams have no CR
    // at all, which then costs a single search per chunk.
    let nextCR = text.indexOf("\r", pos);
    if (nextCR < 0) nextCR = n;
    let nextLF = text.indexOf("\n", pos);
    if (nextLF < 0) nextLF = n;
    for (;;) {
      const end = nextCR < nextLF ? nextCR : nextLF;
      if (end === n) break;
      const tail = this.#tail;
      const size = this.#dataSize() + tail.length + (end - pos);
      if (size > max) this.#tooLarge(size);
      if (tail.length > 0) {
        const line = tail.take() + text.slice(pos, end);
        this.#line(line, 0, line.length, out);
      } else {
        // The usual case: the line lies within this chunk and is read in place, so the only
        // string made from it is its value.
        this.#line(text, pos, end, out);
      }
      if (end === nextCR) {
        if (end + 1 < n) {
          pos = text.charCodeAt(end + 1) === LF ? end + 2 : end + 1;
        } else {
          // The LF that may pair with this CR is in the next chunk.
          pos = n;
          this.#skipLF = true;
        }
        nextCR = text.indexOf("\r", pos);
        if (nextCR < 0) nextCR = n;
        if (nextLF < pos) {
          nextLF = text.indexOf("\n", pos);
          if (nextLF < 0) nextLF = n;
        }
      } else {
        pos = end + 1;
        nextLF = text.indexOf("\n", pos);
        if (nextLF < 0) nextLF = n;
      }
    }
    if (pos < n) {
      const size = this.#dataSize() + this.#tail.length + (n - pos);
      if (size > max) this.#tooLarge(size);
      // Kept as a piece: a long line growing chunk by chunk is not copied until it completes.
      this.#tail.push(pos === 0 ? text : text.slice(pos));
    }
    // Data lines still pending may be views on this chunk's text; the chunk is done with.
    this.#data.settle();
  }

  /** Interprets one complete line, `text[start..end)` (without its line end). */
  #line(text: string, start: number, end: number, out: SSEMessage[]): void {
    if (start === end) {
      this.#dispatch(out);
      return;
    }
    // Only the fields data, event, retry and id mean anything, so a colon matters only within the
    // first six characters: a longer name is ignored either way. The bounded search also keeps a
    // long line from being scanned twice.
    let colon = -1;
    const limit = end - start > 6 ? start + 6 : end;
    for (let i = start; i < limit; i++) {
      if (text.charCodeAt(i) === COLON) {
        colon = i;
        break;
      }
    }
    if (colon === start) return;
    const nameLength = (colon < 0 ? end : colon) - start;
    if (nameLength > 5) return;
    let value = "";
    if (colon >= 0) {
      const from = text.charCodeAt(colon + 1) === SPACE && colon + 1 < end ? colon + 2 : colon + 1;
      value = text.slice(from, end);
    }
    // Compared by length first so that no field name is sliced out of the line.
    switch (nameLength) {
      case 4:
        if (text.startsWith("data", start)) this.#data.push(value);
        return;
      case 5:
        if (text.startsWith("event", start)) this.#eventType = value;
        else if (text.startsWith("retry", start)) this.retryField(value);
        return;
      case 2:
        if (text.startsWith("id", start) && !value.includes("\0")) this.#idBuffer = value;
        return;
      default:
        return;
    }
  }

  /** Takes a `retry` field's value; this one ignores it (see {@link SSEParser.retry}). @throws Never. */
  protected retryField(_value: string): void {}

  #dispatch(out: SSEMessage[]): void {
    this.#lastEventId = this.#idBuffer;
    if (this.#data.count > 0) {
      out.push({ data: this.#data.take(), event: this.#eventType, id: this.#lastEventId });
    }
    this.#eventType = "";
  }
}

/**
 * An incremental parser of the SSE wire format: feed it chunks as they arrive, get back the
 * messages they complete.
 *
 * What it does, per the WHATWG "event stream interpretation":
 * - decodes UTF-8 with a streaming decoder, so characters split across chunks are kept whole and
 *   invalid bytes become U+FFFD; strips one U+FEFF at the start of the stream;
 * - splits lines on LF, CRLF or a lone CR, including a CR that ends one chunk whose LF starts the
 *   next (that pair is one line end, not two);
 * - ignores comment lines (starting with `:`) and unknown fields; removes one space after the
 *   colon; reads a line without a colon as a field with an empty value;
 * - `data` appends to the event's data, `event` sets its type, `id` sets the last event ID (unless
 *   the value contains U+0000), `retry` of ASCII digits sets {@link SSEParser.retry};
 * - a blank line dispatches the event if it has data, and otherwise only resets the event type.
 *
 * Work is linear in the input: each chunk is scanned once, and only the unfinished last line is
 * kept between chunks. Memory held for an event follows its length, not its number of lines or
 * chunks: data lines and the pieces of a long line are gathered in flat blocks (see
 * `TextBuilder`), not chained one small string per line.
 *
 * Errors are final: once a method has thrown, every later call throws the same error again, since
 * the parser no longer knows where it is. Messages a chunk completed before its failure are
 * returned by that `push`, and the next call throws.
 */
export class SSEParser extends SSEMessageParser {
  #retry: number | undefined;

  /**
   * The reconnection time in milliseconds from the last `retry` field made of ASCII digits only,
   * or `undefined` if none came. The parser itself does nothing with it. Values beyond
   * `Number.MAX_SAFE_INTEGER` lose precision (and very long ones become `Infinity`).
   */
  get retry(): number | undefined {
    return this.#retry;
  }

  /** Keeps a `retry` value of ASCII digits. @throws Never. */
  protected override retryField(value: string): void {
    if (DIGITS.test(value)) this.#retry = Number(value);
  }
}
