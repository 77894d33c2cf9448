/**
 * The 16 event types of the protocol, as the string values carried in each event's `type`.
 *
 * A frozen object rather than a TypeScript `enum`, so that it tree-shakes and can be compared with
 * plain strings: `event.type === EventType.RUN_STARTED` and `event.type === "RUN_STARTED"` agree.
 */
export const EventType = Object.freeze({
  TEXT_MESSAGE_START: "TEXT_MESSAGE_START",
  TEXT_MESSAGE_CONTENT: "TEXT_MESSAGE_CONTENT",
  TEXT_MESSAGE_END: "TEXT_MESSAGE_END",
  TOOL_CALL_START: "TOOL_CALL_START",
  TOOL_CALL_ARGS: "TOOL_CALL_ARGS",
  TOOL_CALL_END: "TOOL_CALL_END",
  STATE_SNAPSHOT: "STATE_SNAPSHOT",
  STATE_DELTA: "STATE_DELTA",
  MESSAGES_SNAPSHOT: "MESSAGES_SNAPSHOT",
  RAW: "RAW",
  CUSTOM: "CUSTOM",
  RUN_STARTED: "RUN_STARTED",
  RUN_FINISHED: "RUN_FINISHED",
  RUN_ERROR: "RUN_ERROR",
  STEP_STARTED: "STEP_STARTED",
  STEP_FINISHED: "STEP_FINISHED",
} as const);

/** One of the 16 event type strings. */
export type EventType = (typeof EventType)[keyof typeof EventType];

/** Every event type, in the order of their protobuf enum numbers (0 to 15). */
export const EVENT_TYPES: readonly EventType[] = Object.freeze(Object.values(EventType));

// A Set lookup: this runs for every event decoded or encoded, and `hasOwnProperty.call` on the
// frozen object measured several times slower in the decoders' profiles.
const EVENT_TYPE_SET: ReadonlySet<unknown> = new Set<unknown>(EVENT_TYPES);

/** Tells whether `value` is one of the 16 event type strings. */
export function isEventType(value: unknown): value is EventType {
  return EVENT_TYPE_SET.has(value);
}
