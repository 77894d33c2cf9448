/**
 * The compatibility boundary: retired shapes translated to their 1.0 replacements before anything
 * else judges the stream, as 1.1's processing model asks (`basic/processing`: the boundary sees the
 * stream first). Agents built on the Python SDK's older releases (Pydantic AI among them) still
 * stream the THINKING_* family that 1.0 replaced with REASONING_*.
 *
 * Run on a decoder's error path only: an event of a known type never meets it.
 *
 * @module
 */
import { randomToken } from "../util/index.js";
import type { WarningHandler } from "./warnings.js";

/**
 * Each retired event type: the 1.0 type that replaces it, which id it takes (that of the
 * reasoning span, `r`, or of its message, `m`), and whether it opens (`+`) or closes (`-`) what
 * that id names.
 */
const REPLACEMENTS: Readonly<Record<string, readonly [type: string, id: "r" | "m", step: "+" | "-" | ""]>> = {
  THINKING_START: ["REASONING_START", "r", "+"],
  THINKING_END: ["REASONING_END", "r", "-"],
  THINKING_TEXT_MESSAGE_START: ["REASONING_MESSAGE_START", "m", "+"],
  THINKING_TEXT_MESSAGE_CONTENT: ["REASONING_MESSAGE_CONTENT", "m", ""],
  THINKING_TEXT_MESSAGE_END: ["REASONING_MESSAGE_END", "m", "-"],
};

/** A JSON object as a decoder parsed it. */
type Json = { readonly type: string; readonly [key: string]: unknown };

/**
 * The translator of one stream: THINKING_* events carry no ids, so the id made for an opener is
 * kept for the events that follow it, until its end.
 */
export class RetiredShapes {
  readonly #ids: { r?: string; m?: string } = {};

  constructor(private readonly warn: WarningHandler) {}

  /**
   * The 1.0 replacement of `json` when its type is a retired one, with a warning; `undefined`
   * when it is not (an unknown type, which the caller handles). The rest of the event (timestamp,
   * rawEvent, metadata, and whatever else it holds) is kept for validation to judge. A
   * continuation that nothing opened gets a new id, which the run's order check then refuses.
   *
   * @throws What the warning handler throws.
   */
  translate(json: Json): Record<string, unknown> | undefined {
    const replacement = REPLACEMENTS[json.type];
    if (replacement === undefined) return undefined;
    const [to, slot, step] = replacement;
    const { type, title, ...rest } = json;
    this.warn({ kind: "retired_shape", type, message: `translated the retired ${type} to ${to}: upgrade the agent's AG-UI package` });
    if (title !== undefined) this.warn({ kind: "retired_shape", type, path: "/title", message: `dropped ${type}'s title` });
    const ids = this.#ids;
    const messageId = step === "+" ? (ids[slot] = `reasoning-${randomToken(12)}`) : (ids[slot] ?? `reasoning-${randomToken(12)}`);
    if (step === "-") ids[slot] = undefined;
    return slot === "m" && step === "+" ? { ...rest, type: to, messageId, role: "reasoning" } : { ...rest, type: to, messageId };
  }
}

/** A legacy part's media type → the 1.0 part type that carries it. */
function partTypeOf(mimeType: string): string {
  const kind = mimeType.slice(0, mimeType.indexOf("/"));
  return kind === "image" || kind === "audio" || kind === "video" ? kind : "document";
}

/**
 * The 1.0 replacement of a legacy `{ type: "binary", mimeType, data?, url?, filename? }` content
 * part (retired in 1.0): an image, audio, video or document part (by the media type's top level)
 * whose source holds the data (preferred) or the URL, its filename kept in `metadata.filename`.
 * `undefined` when `part` is not one or cannot be converted (no data and no URL: an id alone names
 * nothing 1.0 can carry), which enforcement then strips as a member of unknown kind.
 */
function upgradedPart(part: unknown): Record<string, unknown> | undefined {
  const p = part as Record<string, unknown> | null;
  if (p?.type !== "binary" || typeof p.mimeType !== "string") return undefined;
  const value = typeof p.data === "string" ? p.data : p.url;
  if (typeof value !== "string") return undefined;
  const out: Record<string, unknown> = {
    type: partTypeOf(p.mimeType),
    source: { type: value === p.data ? "data" : "url", value, mimeType: p.mimeType },
  };
  if (typeof p.filename === "string") out.metadata = { filename: p.filename };
  return out;
}

/**
 * `messages` with every legacy binary content part replaced by its 1.0 form (see
 * {@link upgradedPart}), or `messages` itself when none was. Copies only what changes.
 *
 * @throws Never.
 */
export function upgradeLegacyParts(messages: unknown): unknown {
  if (!Array.isArray(messages)) return messages;
  let out: unknown[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as { content?: unknown } | null;
    const content = message?.content;
    if (!Array.isArray(content)) continue;
    let parts: unknown[] | undefined;
    for (let j = 0; j < content.length; j++) {
      const part = upgradedPart(content[j]);
      if (part !== undefined) (parts ??= [...content])[j] = part;
    }
    if (parts !== undefined) (out ??= [...messages])[i] = { ...message, content: parts };
  }
  return out ?? messages;
}

/**
 * An event or run input whose message lists (MESSAGES_SNAPSHOT's `messages`, RUN_STARTED's
 * `input.messages`, a RunAgentInput's `messages`) hold legacy binary content parts, with those
 * parts in their 1.0 form and `warn` told once for the value; `value` itself when there were none.
 *
 * @throws What `warn` throws.
 */
export function upgradeLegacyContent<T>(value: T, warn: WarningHandler): T {
  const v = value as { type?: unknown; messages?: unknown; input?: { messages?: unknown } } | null;
  if (typeof v !== "object" || v === null) return value;
  let out: Record<string, unknown> | undefined;
  if (v.type === "RUN_STARTED" && typeof v.input === "object" && v.input !== null) {
    const messages = upgradeLegacyParts(v.input.messages);
    if (messages !== v.input.messages) out = { ...v, input: { ...v.input, messages } };
  } else if (v.type === "MESSAGES_SNAPSHOT" || v.type === undefined) {
    const messages = upgradeLegacyParts(v.messages);
    if (messages !== v.messages) out = { ...v, messages };
  }
  if (out === undefined) return value;
  const type = typeof v.type === "string" ? v.type : undefined;
  warn({ kind: "retired_shape", type, message: `translated retired "binary" content parts to 1.0 media parts${type ? ` in ${type}` : ""}: upgrade the peer's AG-UI package` });
  return out as T;
}
