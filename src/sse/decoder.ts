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
  retiredShapes,
  type RetiredShapes,
  type UnknownEventHandler,
  upgradeLegacyContent,
  type UnknownSSEEvent,
  type WarningHandler,
  warningHandlerOf,
} from "../protocol/index.js";
import { SSEMessageParser, type SSEMessage, type SSEParserOptions } from "./parser.js";

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
  readonly #parser: SSEMessageParser;
  #index = 0;
  #failure: unknown;
  #failed = false;
  readonly #onUnknownEvent: UnknownEventHandler | undefined;
  /** Where warnings go (the default one warns once a stream). */
  readonly #warning: WarningHandler;
  readonly #strict: boolean;
  readonly #enforce: boolean;
  /** The stream's compatibility boundary, made at its first retired event. */
  #retired: RetiredShapes | undefined;

  /**
   * @param options - `maxEventBytes`: see {@link SSEParserOptions.maxEventBytes};
   *   `onUnknownEvent`: see {@link SSEDecoderOptions.onUnknownEvent}.
   * @throws {RangeError} When `maxEventBytes` is not a positive integer (or `Infinity`).
   * @throws {TypeError} When `onUnknownEvent` is given and not a function.
   */
  constructor(options: SSEDecoderOptions = {}) {
    this.#parser = new SSEMessageParser(options);
    this.#onUnknownEvent = handlerOf(options.onUnknownEvent);
    this.#warning = warningHandlerOf(options.onWarning);
    this.#strict = options.strict === true;
    this.#enforce = options.enforce !== false;
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
      const messages = this.#parser.push(chunk);
      for (let i = 0; i < messages.length; i++) this.decodeMessage(messages[i]!, events);
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

  /**
   * Decodes one message's event onto `out`, or reports it to `onUnknownEvent` and skips it.
   * Returns the value its data parsed to, so that a relay can tell whether the event handed out is
   * that value itself (see `RelayableSSEDecoder`). Internal to the package.
   */
  protected decodeMessage(message: SSEMessage, out: AguiEvent[]): unknown {
    const index = this.#index++;
    let value: unknown;
    try {
      value = JSON.parse(message.data);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new AguiWireError("malformed_event", `SSE event #${index}: data is not JSON: ${reason}`, { cause: error });
    }
    if (this.#enforce) this.#judge(value, index, out, "");
    else {
      // Handed out unenforced (see SSEDecoderOptions.enforce), through the compatibility boundary.
      const type = (value as { type?: unknown } | null)?.type;
      const passed = typeof type === "string" && !isEventType(type) ? this.#unknown(value, index) : value;
      if (passed !== undefined) out.push(upgradeLegacyContent(passed, this.#warning) as AguiEvent);
    }
    return value;
  }

  /**
   * Judges `value` (strictly, or as a 1.1 consumer does) onto `out`; `note` tells, in errors, that
   * it is a retired event's replacement.
   */
  #judge(value: unknown, index: number, out: AguiEvent[], note: string): void {
    try {
      if (this.#strict) out.push(validEvent(value));
      else {
        const event = enforceEvent(value, this.#warning);
        if (event !== undefined) out.push(event);
      }
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      // parseEvent gives this code only for an object whose `type` is a string naming no event,
      // before looking at any other field: a retired event, or a newer peer's. Checked here, on
      // the error path, so that decoding costs nothing more for the events of today.
      if (error.code === "unknown_event_type") {
        const next = this.#unknown(value, index);
        if (next === undefined) return;
        if (next !== value) return this.#judge(next, index, out, " (a retired event, translated)");
        if (!this.#strict) return dropUnknown(this.#warning)(value as UnknownSSEEvent["json"]);
      }
      throw new ValidationError(error.code as ValidationCode, `SSE event #${index}${note}: ${error.message}`, error.issues, { cause: error });
    }
  }

  /**
   * What becomes of an event whose type this version does not know: its replacement when it is a
   * retired one; `undefined` once `onUnknownEvent` took it; else `value` itself.
   */
  #unknown(value: unknown, index: number): unknown {
    const json = value as UnknownSSEEvent["json"];
    const translated = (this.#retired ??= retiredShapes(this.#warning))(json);
    if (translated !== undefined) return translated;
    if (this.#onUnknownEvent === undefined) return value;
    this.#onUnknownEvent({ transport: "sse", type: json.type, index, json });
    return undefined;
  }
}
