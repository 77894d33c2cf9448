/**
 * The 16 events of the protocol: one zod schema and one TypeScript type each, and their union.
 *
 * Schemas are `z.object`, which drops keys it does not know: a newer peer's extra fields pass
 * through as if absent instead of failing the whole event.
 *
 * @module
 */
import * as z from "zod/mini";
import { object } from "./object.js";
import { array } from "./array.js";
import { EventType } from "./event-type.js";
import { JsonValueSchema } from "./json.js";
import { MessageSchema } from "./messages.js";

/** Fields every event has besides `type`. */
const baseFields = {
  /** Milliseconds since the Unix epoch, by convention; an integer because the wire holds int64. */
  timestamp: z.optional(z.int()),
  /** The event this one was converted from, as any JSON value. */
  rawEvent: z.optional(JsonValueSchema),
};

// Base fields go last so that validated events serialise in the order people usually write them
// ({ type, ...fields, timestamp }), which keeps our SSE text identical to other encoders' for the
// same object.
function event<T extends EventType, S extends Record<string, z.ZodMiniType>>(type: T, shape: S) {
  return object({ type: z.literal(type), ...shape, ...baseFields });
}

/** The fields of every event: `type`, optional `timestamp`, optional `rawEvent`. */
export const BaseEventSchema = object({ type: z.enum(EventType), ...baseFields });
/** The fields of every event. */
export type BaseEvent = z.infer<typeof BaseEventSchema>;

/** Opens an assistant text message. `role` is always `assistant` (filled in when absent). */
export const TextMessageStartEventSchema = event(EventType.TEXT_MESSAGE_START, {
  messageId: z.string(),
  role: z._default(z.literal("assistant"), "assistant"),
});
/** A piece of a text message's content; `delta` is never empty. */
export const TextMessageContentEventSchema = event(EventType.TEXT_MESSAGE_CONTENT, {
  messageId: z.string(),
  delta: z.string().check(z.minLength(1, { error: "expected a non-empty string, found an empty one" })),
});
/** Closes a text message. */
export const TextMessageEndEventSchema = event(EventType.TEXT_MESSAGE_END, {
  messageId: z.string(),
});
/** Opens a tool call, optionally attached to the assistant message `parentMessageId`. */
export const ToolCallStartEventSchema = event(EventType.TOOL_CALL_START, {
  toolCallId: z.string(),
  toolCallName: z.string(),
  parentMessageId: z.optional(z.string()),
});
/** A piece of a tool call's JSON-encoded arguments. */
export const ToolCallArgsEventSchema = event(EventType.TOOL_CALL_ARGS, {
  toolCallId: z.string(),
  delta: z.string(),
});
/** Closes a tool call. */
export const ToolCallEndEventSchema = event(EventType.TOOL_CALL_END, {
  toolCallId: z.string(),
});
/** The whole agent state. */
export const StateSnapshotEventSchema = event(EventType.STATE_SNAPSHOT, {
  snapshot: JsonValueSchema,
});

/** A JSON Pointer (RFC 6901): empty, or `/`-separated tokens where `~` only starts `~0` or `~1`. */
export const JsonPointerSchema = z
  .string()
  .check(z.regex(/^(\/([^/~]|~[01])*)*$/, { error: "expected a JSON Pointer (RFC 6901) such as /a/0" }));

const valueOp = <T extends "add" | "replace" | "test">(op: T) =>
  object({ op: z.literal(op), path: JsonPointerSchema, value: JsonValueSchema });
const fromOp = <T extends "move" | "copy">(op: T) =>
  object({ op: z.literal(op), from: JsonPointerSchema, path: JsonPointerSchema });

/** One JSON Patch (RFC 6902) operation: a union on `op`. */
export const JsonPatchOperationSchema = z.discriminatedUnion("op", [
  valueOp("add"),
  object({ op: z.literal("remove"), path: JsonPointerSchema }),
  valueOp("replace"),
  fromOp("move"),
  fromOp("copy"),
  valueOp("test"),
]);
/** One JSON Patch (RFC 6902) operation. */
export type JsonPatchOperation = z.infer<typeof JsonPatchOperationSchema>;

/** A change to the agent state, as JSON Patch (RFC 6902) operations. */
export const StateDeltaEventSchema = event(EventType.STATE_DELTA, {
  delta: array(JsonPatchOperationSchema),
});
/** The whole conversation. */
export const MessagesSnapshotEventSchema = event(EventType.MESSAGES_SNAPSHOT, {
  messages: array(MessageSchema),
});
/** An event from another system, passed through as JSON; `source` names that system. */
export const RawEventSchema = event(EventType.RAW, {
  event: JsonValueSchema,
  source: z.optional(z.string()),
});
/** An application-defined event; `value` is any JSON value, or absent. */
export const CustomEventSchema = event(EventType.CUSTOM, {
  name: z.string(),
  value: z.optional(JsonValueSchema),
});
/** A run has started. */
export const RunStartedEventSchema = event(EventType.RUN_STARTED, {
  threadId: z.string(),
  runId: z.string(),
});
/** A run has finished successfully; nothing follows it in that run. */
export const RunFinishedEventSchema = event(EventType.RUN_FINISHED, {
  threadId: z.string(),
  runId: z.string(),
});
/** A run has failed; nothing follows it in that run. */
export const RunErrorEventSchema = event(EventType.RUN_ERROR, {
  message: z.string(),
  code: z.optional(z.string()),
});
/** A named step of the run has started. */
export const StepStartedEventSchema = event(EventType.STEP_STARTED, {
  stepName: z.string(),
});
/** A named step of the run has finished. */
export const StepFinishedEventSchema = event(EventType.STEP_FINISHED, {
  stepName: z.string(),
});

export type TextMessageStartEvent = z.infer<typeof TextMessageStartEventSchema>;
export type TextMessageContentEvent = z.infer<typeof TextMessageContentEventSchema>;
export type TextMessageEndEvent = z.infer<typeof TextMessageEndEventSchema>;
export type ToolCallStartEvent = z.infer<typeof ToolCallStartEventSchema>;
export type ToolCallArgsEvent = z.infer<typeof ToolCallArgsEventSchema>;
export type ToolCallEndEvent = z.infer<typeof ToolCallEndEventSchema>;
export type StateSnapshotEvent = z.infer<typeof StateSnapshotEventSchema>;
export type StateDeltaEvent = z.infer<typeof StateDeltaEventSchema>;
export type MessagesSnapshotEvent = z.infer<typeof MessagesSnapshotEventSchema>;
export type RawEvent = z.infer<typeof RawEventSchema>;
export type CustomEvent = z.infer<typeof CustomEventSchema>;
export type RunStartedEvent = z.infer<typeof RunStartedEventSchema>;
export type RunFinishedEvent = z.infer<typeof RunFinishedEventSchema>;
export type RunErrorEvent = z.infer<typeof RunErrorEventSchema>;
export type StepStartedEvent = z.infer<typeof StepStartedEventSchema>;
export type StepFinishedEvent = z.infer<typeof StepFinishedEventSchema>;

/** The schema of each event type, by its `type` string. */
export const EVENT_SCHEMAS = {
  TEXT_MESSAGE_START: TextMessageStartEventSchema,
  TEXT_MESSAGE_CONTENT: TextMessageContentEventSchema,
  TEXT_MESSAGE_END: TextMessageEndEventSchema,
  TOOL_CALL_START: ToolCallStartEventSchema,
  TOOL_CALL_ARGS: ToolCallArgsEventSchema,
  TOOL_CALL_END: ToolCallEndEventSchema,
  STATE_SNAPSHOT: StateSnapshotEventSchema,
  STATE_DELTA: StateDeltaEventSchema,
  MESSAGES_SNAPSHOT: MessagesSnapshotEventSchema,
  RAW: RawEventSchema,
  CUSTOM: CustomEventSchema,
  RUN_STARTED: RunStartedEventSchema,
  RUN_FINISHED: RunFinishedEventSchema,
  RUN_ERROR: RunErrorEventSchema,
  STEP_STARTED: StepStartedEventSchema,
  STEP_FINISHED: StepFinishedEventSchema,
} as const satisfies { [T in EventType]: z.ZodMiniType<{ type: T }> };

/** Any event: a union on `type`. */
export const EventSchema = z.discriminatedUnion("type", Object.values(EVENT_SCHEMAS) as unknown as [
  typeof TextMessageStartEventSchema,
  ...(typeof EVENT_SCHEMAS)[Exclude<EventType, "TEXT_MESSAGE_START">][],
]);

/** Any event: a union on `type`. */
export type AguiEvent = z.infer<(typeof EVENT_SCHEMAS)[EventType]>;

/** The event type whose `type` is `T`. */
export type EventOf<T extends EventType> = Extract<AguiEvent, { type: T }>;

/** What an event looks like before validation fills in defaults (TEXT_MESSAGE_START's role). */
export type AguiEventInput = z.input<(typeof EVENT_SCHEMAS)[EventType]>;
