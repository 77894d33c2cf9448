/**
 * Warnings as data: what a reader of a stream tells its user when it translates a retired shape,
 * drops or strips what it does not know, or meets a peer of another protocol version. The spec
 * (1.1, `basic/processing` and `basic/versioning`) has a reader proceed in each case, and warn;
 * never silently by default where something was lost.
 *
 * @module
 */

/** What a warning is about. */
export type ProtocolWarningKind =
  /** A retired shape (THINKING_*, a `binary` content part) was translated to its replacement. */
  | "retired_shape"
  /** An event of a type this version does not know was dropped. */
  | "unknown_event"
  /** A key a closed object does not define was stripped (`path` names it). */
  | "unknown_property"
  /** A union member of a kind this version does not know was stripped where it sat (`path`). */
  | "unknown_member"
  /** The peer declared a newer protocol version than this one speaks. */
  | "newer_version"
  /** The peer declared a protocol version this one cannot read (not `MAJOR.MINOR`). */
  | "uninterpretable_version"
  /** Something was dropped or left as it was for a peer older than the current protocol (its `maxProtocolVersion`). */
  | "downgrade";

/** One warning. */
export interface ProtocolWarning {
  readonly kind: ProtocolWarningKind;
  /** The event type it concerns, when it concerns one (`"THINKING_START"`). */
  readonly type?: string;
  /** Where in the event it applies, as a JSON Pointer (`/title`), when it is a part of one. */
  readonly path?: string;
  /** For people: what was found and what was done. */
  readonly message: string;
}

/** Told of each warning; see {@link ProtocolWarning}. What it throws ends the decoding. */
export type WarningHandler = (warning: ProtocolWarning) => void;

/**
 * The default handler: one `console.warn` per kind, type and path (list indices aside) for each
 * handler made (a decoder's, so one per stream), prefixed `[agui-wire]`, so that a long run of
 * retired events, or of events with the same unknown key, warns once rather than once an event.
 *
 * @throws Never.
 */
export function warnOnce(): WarningHandler {
  const seen = new Set<string>();
  return (warning) => {
    // List indices are left out, so that a list of unknown members warns once, not per element.
    const key = `${warning.kind}\u0000${warning.type ?? ""}\u0000${warning.path?.replace(/\/\d+(?=\/|$)/g, "/-") ?? ""}`;
    if (seen.has(key)) return;
    seen.add(key);
    console.warn(`[agui-wire] ${warning.message}`);
  };
}

/**
 * `handler` checked, or the default ({@link warnOnce}) when it is undefined.
 *
 * @throws {TypeError} When it is given and not a function.
 */
export function warningHandlerOf(handler: WarningHandler | undefined): WarningHandler {
  if (handler === undefined) return warnOnce();
  if (typeof handler !== "function") throw new TypeError(`onWarning must be a function, found ${handler === null ? "null" : typeof handler}`);
  return handler;
}

/**
 * An `onUnknownEvent` for a reader that follows 1.1 (`basic/processing`): the event is dropped and
 * the warning names its type (or, on the binary transport, the field number of its envelope arm).
 *
 * @throws Never itself; what `warn` throws.
 */
export function dropUnknown(warn: WarningHandler): (event: { readonly type?: string; readonly field?: number }) => void {
  return (event) => {
    const type = event.type ?? `field ${event.field}`;
    warn({ kind: "unknown_event", type, message: `dropped an event of a type this version does not know (${type}): the peer speaks a newer protocol` });
  };
}
