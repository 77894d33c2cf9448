/** The names, in number order: each is its own value in {@link EventType}. */
const NAMES = [
  "TEXT_MESSAGE_START",
  "TEXT_MESSAGE_CONTENT",
  "TEXT_MESSAGE_END",
  "TOOL_CALL_START",
  "TOOL_CALL_ARGS",
  "TOOL_CALL_END",
  "STATE_SNAPSHOT",
  "STATE_DELTA",
  "MESSAGES_SNAPSHOT",
  "RAW",
  "CUSTOM",
  "RUN_STARTED",
  "RUN_FINISHED",
  "RUN_ERROR",
  "STEP_STARTED",
  "STEP_FINISHED",
  "SUBAGENT_STARTED",
  "SUBAGENT_FINISHED",
  "SUBAGENT_ERROR",
  "TEXT_MESSAGE_CHUNK",
  "TOOL_CALL_CHUNK",
  "TOOL_CALL_RESULT",
  "ACTIVITY_SNAPSHOT",
  "ACTIVITY_DELTA",
  "REASONING_START",
  "REASONING_MESSAGE_START",
  "REASONING_MESSAGE_CONTENT",
  "REASONING_MESSAGE_END",
  "REASONING_MESSAGE_CHUNK",
  "REASONING_END",
  "REASONING_ENCRYPTED_VALUE",
] as const;

/**
 * The 31 event types of AG-UI 1.0, as the string values carried in each event's `type`, in the
 * order of their protobuf enum numbers (0 to 30).
 *
 * A frozen object rather than a TypeScript `enum`, so that it tree-shakes and can be compared with
 * plain strings: `event.type === EventType.RUN_STARTED` and `event.type === "RUN_STARTED"` agree.
 * Built from the list of names, so that a bundle holds each name once rather than twice.
 */
export const EventType = /* @__PURE__ */ byName(NAMES);

/**
 * The object whose keys and values are `names`, frozen. A function marked free of side effects, so
 * that a bundle that never reads {@link EventType} drops it (a pure call's arguments would stay).
 *
 * @throws Never.
 */
/* @__NO_SIDE_EFFECTS__ */
function byName<const N extends string>(names: readonly N[]): { readonly [Name in N]: Name } {
  return Object.freeze(Object.fromEntries(names.map((name) => [name, name]))) as { readonly [Name in N]: Name };
}

/** One of the 31 event type strings. */
export type EventType = (typeof EventType)[keyof typeof EventType];

/** Every event type, in the order of their protobuf enum numbers (0 to 30). */
export const EVENT_TYPES: readonly EventType[] = /* @__PURE__ */ Object.freeze(NAMES);

// A Set lookup: this runs for every event decoded or encoded, and `hasOwnProperty.call` on the
// frozen object measured several times slower in the decoders' profiles.
const EVENT_TYPE_SET: ReadonlySet<unknown> = new Set<unknown>(EVENT_TYPES);

/** Tells whether `value` is one of the 31 event type strings. */
export function isEventType(value: unknown): value is EventType {
  return EVENT_TYPE_SET.has(value);
}
