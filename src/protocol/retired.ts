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

/** Translates one retired event; see {@link retiredShapes}. */
export type RetiredShapes = (json: Json) => Record<string, unknown> | undefined;

/**
 * The translator of one stream: THINKING_* events carry no ids, so the id made for an opener is
 * kept for the events that follow it, until its end. It returns the 1.0 replacement of `json`
 * when its type is a retired one, with a warning; `undefined` when it is not (an unknown type,
 * which the caller handles). The rest of the event (timestamp, rawEvent, metadata, and whatever
 * else it holds) is kept for validation to judge. A continuation that nothing opened gets a new
 * id, which the run's order check then refuses.
 *
 * @throws Never itself; the translator throws what `warn` throws.
 */
export function retiredShapes(warn: WarningHandler): RetiredShapes {
  const ids: { r?: string; m?: string } = {};
  return (json) => {
    const replacement = REPLACEMENTS[json.type];
    if (replacement === undefined) return undefined;
    const [to, slot, step] = replacement;
    const { type, title, ...rest } = json;
    warn({ kind: "retired_shape", type, message: `translated the retired ${type} to ${to}: upgrade the agent's AG-UI package` });
    if (title !== undefined) warn({ kind: "retired_shape", type, path: "/title", message: `dropped ${type}'s title` });
    const messageId = step === "+" ? (ids[slot] = `reasoning-${randomToken(12)}`) : (ids[slot] ?? `reasoning-${randomToken(12)}`);
    if (step === "-") ids[slot] = undefined;
    return slot === "m" && step === "+" ? { ...rest, type: to, messageId, role: "reasoning" } : { ...rest, type: to, messageId };
  };
}

/**
 * The 1.0 replacement of a legacy `{ type: "binary", mimeType, data?, url?, filename? }` content
 * part (retired in 1.0): an image, audio, video or document part (by the media type's top level)
 * whose source holds the data (preferred) or the URL, its filename kept in `metadata.filename`.
 * Anything else is returned as it is, a legacy part that cannot be converted too (no data and no
 * URL: an id alone names nothing 1.0 can carry), which enforcement then strips as a member of
 * unknown kind.
 */
function upgradedPart(part: any): unknown {
  const value = part?.data ?? part?.url;
  if (part?.type !== "binary" || typeof part.mimeType !== "string" || typeof value !== "string") return part;
  const kind = part.mimeType.split("/")[0];
  return {
    type: ["image", "audio", "video"].includes(kind) ? kind : "document",
    source: { type: value === part.data ? "data" : "url", value, mimeType: part.mimeType },
    ...(typeof part.filename === "string" && { metadata: { filename: part.filename } }),
  };
}

/** Whether a message's content holds a legacy binary part. */
const holdsLegacy = (message: any): boolean => Array.isArray(message?.content) && message.content.some((part: any) => part?.type === "binary");

/**
 * An event or run input whose messages (MESSAGES_SNAPSHOT's, RUN_STARTED's `input.messages`, a
 * RunAgentInput's) hold legacy binary content parts, with those parts in their 1.0 form (see
 * {@link upgradedPart}) and `warn` told once for the value; `value` itself when there were none.
 *
 * @throws What `warn` throws.
 */
export function upgradeLegacyContent<T>(value: T, warn: WarningHandler): T {
  const v = value as any;
  const holder = v?.type === "RUN_STARTED" ? v.input : v;
  const messages = holder?.messages;
  if (!Array.isArray(messages) || !messages.some(holdsLegacy)) return value;
  warn({ kind: "retired_shape", type: v.type, message: `translated retired "binary" content parts to 1.0 media parts: upgrade the peer's AG-UI package` });
  const upgraded = { ...holder, messages: messages.map((m) => (holdsLegacy(m) ? { ...m, content: m.content.map(upgradedPart) } : m)) };
  return holder === v ? upgraded : { ...v, input: upgraded };
}
