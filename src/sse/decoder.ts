/**
 * Server-Sent Events text -> validated events.
 *
 * @module
 */
import { AguiWireError, ValidationError } from "../util/index.js";
import type { AguiEvent } from "../model/index.js";
import { validEvent } from "../model/exact.js";
import { isEventType } from "../model/event-type.js";
import {
  dropUnknown,
  enforceEvent,
  handlerOf,
  RetiredShapes,
  type UnknownEventHandler,
  upgradeLegacyContent,
  type UnknownSSEEvent,
  type WarningHandler,
  warningHandlerOf,
} from "../protocol/index.js";
import { SSEParser, type SSEMessage, type SSEParserOptions } from "./parser.js";

/** Options of {@link SSEDecoder}. */
export interface SSEDecoderOptions extends SSEParserOptions {
  /**
   * Told of each event skipped because its `type` names no event this version knows (a newer
   * peer's), in place of the warning. Only an event that `parseEvent` would reject as
   * `unknown_event_type` is skipped: data that is not JSON, a `type` that is missing or not a
   * string, and invalid events of known types still fail. With `strict`, setting it still skips
   * such events. See {@link UnknownEventHandler}.
   */
  onUnknownEvent?: UnknownEventHandler;
  /**
   * Told of what the decoder did that its user should know of, as AG-UI 1.1's processing model has
   * a consumer warn: a retired event (THINKING_*, from agents on AG-UI packages older than 1.0)
   * translated to its 1.0 replacement (REASONING_*); an event of an unknown type dropped (unless
   * `onUnknownEvent` is set); an unknown property or a member of unknown kind stripped, by path.
   * Default: one `console.warn` per kind, type and path for the stream. See {@link WarningHandler}.
   */
  onWarning?: WarningHandler;
  /**
   * Refuse what a newer peer may send instead of removing it, as before AG-UI 1.1: an unknown
   * event type fails with `unknown_event_type` (unless `onUnknownEvent` is set), a member of
   * unknown kind with `invalid_event`; unknown properties are still dropped, silently. Retired
   * shapes are translated either way. Default false.
   */
  strict?: boolean;
  /**
   * `false` hands events out as received, with only the compatibility boundary applied (retired
   * events and content parts translated): events of unknown types, unknown properties and members
   * of unknown kind are kept, and nothing is validated, since AG-UI 1.1's processing model puts
   * middleware before enforcement so that middleware can act on a newer peer's material. The
   * consumer must then enforce each event itself, with `enforceEvent`. Data that is not JSON
   * still fails; `onUnknownEvent`, when set, still takes events of unknown types. Default true.
   */
  enforce?: boolean;
}

type ValidationCode = ConstructorParameters<typeof ValidationError>[0];

/**
 * An incremental decoder of an AG-UI SSE stream: feed it chunks as they arrive, get back the
 * validated events they complete.
 *
 * Each SSE message's data must be one event's JSON. A message's `event` field (its SSE type) is
 * not looked at: AG-UI servers do not set it, and skipping messages of other types would drop
 * events silently, so every message with data is decoded the same way. Comments, `id` and `retry`
 * are handled by the underlying {@link SSEParser}.
 *
 * Errors are final: once a method has thrown, every later call throws the same error again,
 * since the events after the failing one in the same chunk are lost. When a chunk completes some
 * events and then fails, `push` returns those events and the next call throws. The `#index` in messages
 * counts SSE messages dispatched by this decoder, from 0.
 */
export class SSEDecoder {
  readonly #parser: SSEParser;
  #index = 0;
  #failure: unknown;
  #failed = false;
  readonly #onUnknownEvent: UnknownEventHandler | undefined;
  readonly #onWarning: WarningHandler | undefined;
  /** Where warnings go, made when first needed (the default one warns once a stream). */
  #warn: WarningHandler | undefined;
  readonly #strict: boolean;
  readonly #enforce: boolean;
  /** The stream's compatibility boundary, made at its first retired event. */
  #retired: RetiredShapes | undefined;
  /** While {@link SSEDecoder.pushRelayable} runs: where each event's relayable text goes. */
  #texts: (string | undefined)[] | undefined;
  /** The value the last message's data parsed to (for {@link SSEDecoder.pushRelayable}). */
  #parsed: unknown;

  /**
   * @param options - `maxEventBytes`: see {@link SSEParserOptions.maxEventBytes};
   *   `onUnknownEvent`: see {@link SSEDecoderOptions.onUnknownEvent}.
   * @throws {RangeError} When `maxEventBytes` is not a positive integer (or `Infinity`).
   * @throws {TypeError} When `onUnknownEvent` is given and not a function.
   */
  constructor(options: SSEDecoderOptions = {}) {
    this.#parser = new SSEParser(options);
    this.#onUnknownEvent = handlerOf(options.onUnknownEvent);
    if (options.onWarning !== undefined) warningHandlerOf(options.onWarning);
    this.#onWarning = options.onWarning;
    this.#strict = options.strict === true;
    this.#enforce = options.enforce !== false;
  }

  get #warning(): WarningHandler {
    return (this.#warn ??= warningHandlerOf(this.#onWarning));
  }

  /**
   * Number of SSE messages decoded so far: events handed out, and those dropped (an unknown type,
   * or stripped whole) or skipped, as a server that numbers its events counts them.
   */
  get count(): number {
    return this.#index;
  }

  /** The stream's last event ID, to send as `Last-Event-ID` on reconnection; see {@link SSEParser.lastEventId}. */
  get lastEventId(): string {
    return this.#parser.lastEventId;
  }

  /**
   * Feeds the next chunk of the stream.
   *
   * @param chunk - The next bytes (UTF-8) or text of the stream; may be empty.
   * @returns The events this chunk completed, validated, in order; often empty. Dropped and
   *   skipped events are not among them.
   * @throws {AguiWireError} `frame_too_large` when an event passes `maxEventBytes`;
   *   `malformed_event` when a message's data is not JSON ("SSE event #i: data is not JSON: …",
   *   with the `JSON.parse` error as `cause`).
   * @throws {ValidationError} `invalid_event` or `unknown_event_type` when the JSON is not a valid
   *   event: the code and `issues` of {@link parseEvent}'s error, its message prefixed with
   *   "SSE event #i: ", and that error as `cause`; `unknown_event_type` only when `strict` and
   *   `onUnknownEvent` is not set (otherwise such an event is dropped or skipped).
   * @throws Whatever `onUnknownEvent` or `onWarning` threw.
   * @throws Whatever an earlier call threw, since errors are final.
   */
  push(chunk: Uint8Array | string): AguiEvent[] {
    if (this.#failed) throw this.#failure;
    const events: AguiEvent[] = [];
    try {
      const texts = this.#texts;
      const messages = this.#parser.push(chunk);
      if (texts === undefined) {
        for (let i = 0; i < messages.length; i++) this.#decode(messages[i]!, events);
        return events;
      }
      for (let i = 0; i < messages.length; i++) {
        const message = messages[i]!;
        const before = events.length;
        this.#parsed = undefined;
        this.#decode(message, events);
        // The event is the parsed value itself only when the judgement kept it whole (no default
        // filled in, nothing stripped or translated): then its text says exactly this event. A line
        // feed in the data means several data lines, which a relay would have to split again.
        for (let k = before; k < events.length; k++) {
          texts.push(k === before && events[k] === this.#parsed && !message.data.includes("\n") ? message.data : undefined);
        }
      }
      return events;
    } catch (error) {
      this.#failed = true;
      this.#failure = error;
      // Events completed before the failure are handed out first, so what a caller receives does
      // not depend on how the bytes were split; the failure is thrown by the next call.
      if (events.length > 0) return events;
      throw error;
    }
  }

  /**
   * {@link SSEDecoder.push}, also telling which events may be relayed as the text they came in:
   * for each event returned, `texts` gets (in the same order) its `data` text when that text is a
   * single line and the event is exactly what it parsed to (no default filled in, nothing
   * stripped or translated), so that any reader of that text gets this very event; else
   * `undefined` (encode the event instead). Internal to the package: the proxy's relay uses it.
   *
   * @throws As {@link SSEDecoder.push}.
   */
  pushRelayable(chunk: Uint8Array | string, texts: (string | undefined)[]): AguiEvent[] {
    this.#texts = texts;
    try {
      return this.push(chunk);
    } finally {
      this.#texts = undefined;
      this.#parsed = undefined;
    }
  }

  /**
   * Ends the stream. Afterwards the decoder is ready for another stream (a reconnection), keeping
   * {@link SSEDecoder.lastEventId} and its message count.
   *
   * @throws {AguiWireError} `truncated_stream` when the stream ended inside an event that holds
   *   data; `frame_too_large` if the decoder's held-back bytes push an event over the bound;
   *   or whatever an earlier call threw.
   */
  end(): void {
    if (this.#failed) throw this.#failure;
    try {
      this.#parser.end();
    } catch (error) {
      this.#failed = true;
      this.#failure = error;
      throw error;
    }
  }

  /** Decodes one message's event onto `out`, or reports it to `onUnknownEvent` and skips it. */
  #decode(message: SSEMessage, out: AguiEvent[]): void {
    const index = this.#index++;
    let value: unknown;
    try {
      value = JSON.parse(message.data);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new AguiWireError("malformed_event", `SSE event #${index}: data is not JSON: ${reason}`, { cause: error });
    }
    if (!this.#enforce) return this.#pass(value, index, out);
    this.#parsed = value;
    try {
      this.#accept(value, out);
    } catch (error) {
      if (error instanceof ValidationError) {
        // parseEvent gives this code only for an object whose `type` is a string naming no event,
        // before looking at any other field: a retired event, or a newer peer's. Checked here, on
        // the error path, so that decoding costs nothing more for the events of today.
        if (error.code === "unknown_event_type") {
          const json = value as UnknownSSEEvent["json"];
          const translated = (this.#retired ??= new RetiredShapes(this.#warning)).translate(json);
          if (translated !== undefined) return this.#decodeTranslated(translated, index, out);
          if (this.#onUnknownEvent) {
            this.#onUnknownEvent({ transport: "sse", type: json.type, index, json });
            return;
          }
          if (!this.#strict) {
            dropUnknown(this.#warning)(json);
            return;
          }
        }
        throw new ValidationError(error.code as ValidationCode, `SSE event #${index}: ${error.message}`, error.issues, {
          cause: error,
        });
      }
      throw error;
    }
  }

  /** Hands `value` out unenforced (see {@link SSEDecoderOptions.enforce}), through the compatibility boundary. */
  #pass(value: unknown, index: number, out: AguiEvent[]): void {
    const type = (value as { type?: unknown } | null)?.type;
    if (typeof type === "string" && !isEventType(type)) {
      const json = value as UnknownSSEEvent["json"];
      const translated = (this.#retired ??= new RetiredShapes(this.#warning)).translate(json);
      if (translated !== undefined) value = translated;
      else if (this.#onUnknownEvent) return this.#onUnknownEvent({ transport: "sse", type, index, json });
    }
    out.push(upgradeLegacyContent(value, this.#warning) as AguiEvent);
  }

  /** Judges `value` (strictly, or as a 1.1 consumer does) onto `out`. */
  #accept(value: unknown, out: AguiEvent[]): void {
    if (this.#strict) out.push(validEvent(value));
    else {
      const event = enforceEvent(value, this.#warning);
      if (event !== undefined) out.push(event);
    }
  }

  /** A retired event's replacement, judged as any event is. */
  #decodeTranslated(value: Record<string, unknown>, index: number, out: AguiEvent[]): void {
    try {
      this.#accept(value, out);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      throw new ValidationError(error.code as ValidationCode, `SSE event #${index} (a retired event, translated): ${error.message}`, error.issues, { cause: error });
    }
  }
}
