/**
 * The SSE decoder of a relay: one that also tells which events may go on as the text they came in.
 * A module of its own so that clients, which relay nothing, do not carry it.
 *
 * @module
 */
import type { AguiEvent } from "../model/index.js";
import { SSEDecoder } from "./decoder.js";
import type { SSEMessage } from "./parser.js";

/**
 * An {@link SSEDecoder} whose {@link RelayableSSEDecoder.pushRelayable} also tells which events
 * may be relayed as the text they came in. Internal to the package: the proxy's relay uses it.
 */
export class RelayableSSEDecoder extends SSEDecoder {
  /** While {@link RelayableSSEDecoder.pushRelayable} runs: where each event's relayable text goes. */
  #texts: (string | undefined)[] | undefined;
  /** While {@link RelayableSSEDecoder.pushRelayable} runs: whether the caller knows every message to have one data line. */
  #singleLines = false;

  /**
   * {@link SSEDecoder.push}, also telling which events may be relayed as the text they came in:
   * for each event returned, `texts` gets (in the same order) its `data` text when that text is a
   * single line and the event is exactly what it parsed to (no default filled in, nothing
   * stripped or translated), so that any reader of that text gets this very event; else
   * `undefined` (encode the event instead). `singleLines`: the caller has checked that every
   * message the chunk completes has one data line (so its data holds no line feed to look for).
   *
   * @throws As {@link SSEDecoder.push}.
   */
  pushRelayable(chunk: Uint8Array | string, texts: (string | undefined)[], singleLines = false): AguiEvent[] {
    this.#texts = texts;
    this.#singleLines = singleLines;
    try {
      return this.push(chunk);
    } finally {
      this.#texts = undefined;
    }
  }

  protected override decodeMessage(message: SSEMessage, out: AguiEvent[]): unknown {
    const before = out.length;
    const parsed = super.decodeMessage(message, out);
    const texts = this.#texts;
    if (texts === undefined) return parsed;
    // The event is the parsed value itself only when the judgement kept it whole (no default
    // filled in, nothing stripped or translated): then its text says exactly this event. A line
    // feed in the data means several data lines, which a relay would have to split again.
    for (let k = before; k < out.length; k++) {
      texts.push(k === before && out[k] === parsed && (this.#singleLines || !message.data.includes("\n")) ? message.data : undefined);
    }
    return parsed;
  }
}
