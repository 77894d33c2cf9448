/**
 * The 31 events of AG-UI 1.0: one zod schema and one TypeScript type each, and their union. They
 * accept what `@ag-ui/core/schemas` 1.0 accepts and refuse what it refuses, with one rule of ours
 * on top: a TEXT_MESSAGE_CONTENT delta is never empty.
 *
 * Schemas are `z.object`, which drops keys it does not know: a newer peer's extra fields pass
 * through as if absent instead of failing the whole event.
 *
 * @module
 */
import * as z from "zod/mini";
import { object } from "./object.js";
import { tagged } from "./tagged.js";
import { int } from "./int.js";
import { array } from "./array.js";
import { EventType } from "./event-type.js";
import { JsonObjectSchema, JsonValueSchema, NonNullJsonSchema } from "./json.js";
import { JSON_POINTER, JSON_POINTER_EXPECTED } from "./json-problem.js";
import { MessageSchema } from "./messages.js";
import { TextOrPartsSchema } from "./text-or-parts.js";
import { EchoedRunAgentInputSchema } from "./input.js";
import { RunFinishedOutcomeSchema, SubagentFinishedOutcomeSchema, TokenUsageSchema } from "./run.js";
// The types are declared (src/gen/model/types.ts, generated from these schemas): inferred ones would
// make every consumer's type checker load and instantiate zod's declarations.
export type {
  BaseEvent,
  JsonPatchOperation,
  TextMessageStartEvent,
  TextMessageContentEvent,
  TextMessageEndEvent,
  TextMessageChunkEvent,
  ToolCallStartEvent,
  ToolCallArgsEvent,
  ToolCallEndEvent,
  ToolCallChunkEvent,
  ToolCallResultEvent,
  StateSnapshotEvent,
  StateDeltaEvent,
  MessagesSnapshotEvent,
  ActivitySnapshotEvent,
  ActivityDeltaEvent,
  RawEvent,
  CustomEvent,
  RunStartedEvent,
  RunFinishedEvent,
  RunErrorEvent,
  StepStartedEvent,
  StepFinishedEvent,
  ReasoningStartEvent,
  ReasoningMessageStartEvent,
  ReasoningMessageContentEvent,
  ReasoningMessageEndEvent,
  ReasoningMessageChunkEvent,
  ReasoningEndEvent,
  ReasoningEncryptedValueEvent,
  SubagentStartedEvent,
  SubagentFinishedEvent,
  SubagentErrorEvent,
  AguiEvent,
  AguiEventInput,
  EventOf,
} from "../gen/model/types.js";

/** Fields every event has besides `type`. */
const baseFields = {
  /** Milliseconds since the Unix epoch, by convention; an integer because the wire holds int64. */
  timestamp: z.optional(int()),
  /** The event this one was converted from, as any JSON value but null. */
  rawEvent: z.optional(NonNullJsonSchema),
  /** Extra information, a JSON object; the key `ag-ui` is the protocol's own. */
  metadata: z.optional(JsonObjectSchema),
};

/** The field of events that may belong to a subagent's work. */
const attributed = {
  /** The subagent invocation (SUBAGENT_STARTED) this event belongs to; absent for the agent's own. */
  subagentRunId: z.optional(z.string()),
};

// Base fields go last so that validated events serialise in the order people usually write them
// ({ type, ...fields, timestamp }), which keeps our SSE text identical to other encoders' for the
// same object.
/* @__NO_SIDE_EFFECTS__ */
function event<T extends EventType, S extends Record<string, z.ZodMiniType>>(type: T, shape: S) {
  return object({ type: z.literal(type), ...shape, ...baseFields });
}
/** An event that may belong to a subagent's work (it carries an optional `subagentRunId`). */
/* @__NO_SIDE_EFFECTS__ */
function owned<T extends EventType, S extends Record<string, z.ZodMiniType>>(type: T, shape: S) {
  return object({ type: z.literal(type), ...shape, ...attributed, ...baseFields });
}

/** The fields of every event: `type`, optional `timestamp`, `rawEvent` and `metadata`. */
export const BaseEventSchema = object({ type: z.enum(EventType), ...baseFields });

/** The roles a streamed text message may take. */
export const TextMessageRoleSchema = z.enum(["developer", "system", "assistant", "user"]);

/** Opens a text message; `role` absent means `assistant`. */
export const TextMessageStartEventSchema = owned(EventType.TEXT_MESSAGE_START, {
  /** Identifies the message; its CONTENT and END events carry the same id. */
  messageId: z.string(),
  /** Who the message is from; absent means `assistant`. */
  role: z.optional(TextMessageRoleSchema),
  /** A display name for the author, where one role has several participants. */
  name: z.optional(z.string()),
});
const nonEmpty = z.string().check(z.minLength(1, { error: "expected a non-empty string, found an empty one" }));
/** A piece of a text message's content; `delta` is never empty. */
export const TextMessageContentEventSchema = owned(EventType.TEXT_MESSAGE_CONTENT, {
  /** The message this piece belongs to. */
  messageId: z.string(),
  /** A piece of the message's text; never empty here, though AG-UI 1.0 allows it. */
  delta: nonEmpty,
});
/** Closes a text message. */
export const TextMessageEndEventSchema = owned(EventType.TEXT_MESSAGE_END, {
  /** The message being closed. */
  messageId: z.string(),
});
/** Start, content and end of a text message in one shorthand; a continuation omits what it repeats. */
export const TextMessageChunkEventSchema = owned(EventType.TEXT_MESSAGE_CHUNK, {
  /** The message this chunk belongs to; absent continues the open one. */
  messageId: z.optional(z.string()),
  /** Who the message is from, on the chunk that opens it. */
  role: z.optional(TextMessageRoleSchema),
  /** A piece of the message's text. */
  delta: z.optional(z.string()),
  /** A display name for the author, on the chunk that opens it. */
  name: z.optional(z.string()),
});
/** Opens a tool call, optionally attached to the assistant message `parentMessageId`. */
export const ToolCallStartEventSchema = owned(EventType.TOOL_CALL_START, {
  /** Identifies the call; its ARGS, END and RESULT events carry the same id. */
  toolCallId: z.string(),
  /** The name of the tool called. */
  toolCallName: z.string(),
  /** The assistant message that holds the call, when the producer says. */
  parentMessageId: z.optional(z.string()),
});
/** A piece of a tool call's JSON-encoded arguments. */
export const ToolCallArgsEventSchema = owned(EventType.TOOL_CALL_ARGS, {
  /** The call these arguments belong to. */
  toolCallId: z.string(),
  /** A piece of the arguments' text; the pieces concatenate, by convention into JSON. */
  delta: z.string(),
});
/** Closes a tool call. */
export const ToolCallEndEventSchema = owned(EventType.TOOL_CALL_END, {
  /** The call being closed: its arguments are complete. */
  toolCallId: z.string(),
});
/** Start, arguments and end of a tool call in one shorthand. */
export const ToolCallChunkEventSchema = owned(EventType.TOOL_CALL_CHUNK, {
  /** The call this chunk belongs to; absent continues the open one. */
  toolCallId: z.optional(z.string()),
  /** The name of the tool called, on the chunk that opens the call. */
  toolCallName: z.optional(z.string()),
  /** The assistant message that holds the call. */
  parentMessageId: z.optional(z.string()),
  /** A piece of the arguments' text. */
  delta: z.optional(z.string()),
});
/** What a tool returned, as a new tool message `messageId` answering `toolCallId`. */
export const ToolCallResultEventSchema = owned(EventType.TOOL_CALL_RESULT, {
  /** The id of the tool message this result becomes. */
  messageId: z.string(),
  /** The call answered. */
  toolCallId: z.string(),
  /** What the tool returned: text, or content parts. */
  content: TextOrPartsSchema,
  /** Always `tool` when present; may be left out. */
  role: z.optional(z.literal("tool")),
});
/** The whole agent state. */
export const StateSnapshotEventSchema = owned(EventType.STATE_SNAPSHOT, {
  /** The complete new state, any JSON value. */
  snapshot: JsonValueSchema,
});

/** A JSON Pointer (RFC 6901): empty, or `/`-separated tokens where `~` only starts `~0` or `~1`. */
export const JsonPointerSchema = z.string().check(
  // The issue z.regex would raise, from a refinement zod's bundle already has: its regex check
  // would bring two more check classes into a browser bundle.
  z.superRefine((value, ctx) => {
    if (!JSON_POINTER.test(value)) {
      ctx.addIssue({ code: "invalid_format", format: "regex", pattern: JSON_POINTER.source, message: JSON_POINTER_EXPECTED, input: value });
    }
  }),
);

// Operations are open objects (RFC 6902 §4: members an operation does not define are ignored), so
// a member another operation defines (a `remove`'s leftover `value`, an `add`'s `from`) is kept as
// sent rather than stripped (AG-UI 1.1, basic/processing). Both transports can carry it.
const valueOp = <T extends "add" | "replace" | "test">(op: T) =>
  object({
    op: z.literal(op),
    /** Where to add, what to replace, or what to test. */
    path: JsonPointerSchema,
    /** The value to add, the replacement, or the value to compare with; `null` included. */
    value: JsonValueSchema,
    /** Not a member of this operation; kept as sent. */
    from: z.optional(z.string()),
  });
const fromOp = <T extends "move" | "copy">(op: T) =>
  object({
    op: z.literal(op),
    /** Where the value is moved or copied from. */
    from: JsonPointerSchema,
    /** Where the value is moved or copied to. */
    path: JsonPointerSchema,
    /** Not a member of this operation; kept as sent. */
    value: z.optional(JsonValueSchema),
  });

/** One JSON Patch (RFC 6902) operation: a union on `op`. */
export const JsonPatchOperationSchema = tagged("op", [
  valueOp("add"),
  object({
    op: z.literal("remove"),
    /** What to remove. */
    path: JsonPointerSchema,
    /** Not a member of remove; kept as sent. */
    value: z.optional(JsonValueSchema),
    /** Not a member of remove; kept as sent. */
    from: z.optional(z.string()),
  }),
  valueOp("replace"),
  fromOp("move"),
  fromOp("copy"),
  valueOp("test"),
]);

/** A change to the agent state, as JSON Patch (RFC 6902) operations. */
export const StateDeltaEventSchema = owned(EventType.STATE_DELTA, {
  /** Operations applied in order to the current state. */
  delta: array(JsonPatchOperationSchema),
});
/** The whole conversation. */
export const MessagesSnapshotEventSchema = event(EventType.MESSAGES_SNAPSHOT, {
  /** Every message the producer holds, in order. */
  messages: array(MessageSchema),
});
/** Structured progress for activity message `messageId`; `replace: false` keeps an existing one. */
export const ActivitySnapshotEventSchema = owned(EventType.ACTIVITY_SNAPSHOT, {
  /** The activity message this describes. */
  messageId: z.string(),
  /** What kind of activity, a name the producer chooses. */
  activityType: z.string(),
  /** The activity's payload. */
  content: JsonObjectSchema,
  /** Whether the snapshot overwrites existing content: absent means it does, `false` keeps what is there. */
  replace: z.optional(z.boolean()),
});
/** A change to an activity message's content, as JSON Patch (RFC 6902) operations. */
export const ActivityDeltaEventSchema = owned(EventType.ACTIVITY_DELTA, {
  /** The activity message changed. */
  messageId: z.string(),
  /** What kind of activity, a name the producer chooses. */
  activityType: z.string(),
  /** Operations applied in order to the activity's content. */
  patch: array(JsonPatchOperationSchema),
});
/** An event from another system, passed through as JSON; `source` names that system. */
export const RawEventSchema = owned(EventType.RAW, {
  /** The other system's event, as it was. */
  event: JsonValueSchema,
  /** The system it came from. */
  source: z.optional(z.string()),
});
/** An application-defined event; `value` is any JSON value, `null` included. */
export const CustomEventSchema = owned(EventType.CUSTOM, {
  /** What the event is, for the application to route it by. */
  name: z.string(),
  /** The payload. */
  value: JsonValueSchema,
});
/** A run has started; `input` echoes the request. */
export const RunStartedEventSchema = event(EventType.RUN_STARTED, {
  /** The conversation the run belongs to. */
  threadId: z.string(),
  /** Identifies the run. */
  runId: z.string(),
  /** The AG-UI version the producer speaks, such as "1.1". */
  protocolVersion: z.optional(z.string()),
  /** The run that started this one as a separate run (not as a subagent). */
  parentRunId: z.optional(z.string()),
  /** The request the run started from, echoed. */
  input: z.optional(EchoedRunAgentInputSchema),
});
/** A run has finished without failing; nothing follows it in that run. */
export const RunFinishedEventSchema = event(EventType.RUN_FINISHED, {
  /** The conversation the run belongs to. */
  threadId: z.string(),
  /** The run being closed. */
  runId: z.string(),
  /** What the run produced, any JSON value but null. */
  result: z.optional(NonNullJsonSchema),
  /** Success (also when absent), interrupt or cancelled. */
  outcome: z.optional(RunFinishedOutcomeSchema),
  /** Token usage of the run, its subagents' included: one entry per provider and model. */
  usage: z.optional(array(TokenUsageSchema)),
});
/** A run has failed; nothing follows it in that run. */
export const RunErrorEventSchema = event(EventType.RUN_ERROR, {
  /** What went wrong, for a person to read. */
  message: z.string(),
  /** A machine-readable error code, of the producer's choosing. */
  code: z.optional(z.string()),
  /** Token usage before the failure, counted as on RUN_FINISHED. */
  usage: z.optional(array(TokenUsageSchema)),
});
/** A named step of the run has started. */
export const StepStartedEventSchema = owned(EventType.STEP_STARTED, {
  /** The step's name; its STEP_FINISHED carries the same. */
  stepName: z.string(),
});
/** A named step of the run has finished. */
export const StepFinishedEventSchema = owned(EventType.STEP_FINISHED, {
  /** The step being closed. */
  stepName: z.string(),
});
/** Opens a span of reasoning, which may hold several reasoning messages. */
export const ReasoningStartEventSchema = owned(EventType.REASONING_START, {
  /** Identifies the span; its REASONING_END carries the same id. */
  messageId: z.string(),
});
/** Opens a reasoning message. */
export const ReasoningMessageStartEventSchema = owned(EventType.REASONING_MESSAGE_START, {
  /** Identifies the reasoning message; its CONTENT and END events carry the same id. */
  messageId: z.string(),
  /** Always `reasoning`. */
  role: z.literal("reasoning"),
});
/** A piece of a reasoning message's content. */
export const ReasoningMessageContentEventSchema = owned(EventType.REASONING_MESSAGE_CONTENT, {
  /** The reasoning message this piece belongs to. */
  messageId: z.string(),
  /** A piece of the reasoning text. */
  delta: z.string(),
});
/** Closes a reasoning message. */
export const ReasoningMessageEndEventSchema = owned(EventType.REASONING_MESSAGE_END, {
  /** The reasoning message being closed. */
  messageId: z.string(),
});
/** Start, content and end of a reasoning message in one shorthand. */
export const ReasoningMessageChunkEventSchema = owned(EventType.REASONING_MESSAGE_CHUNK, {
  /** The reasoning message this chunk belongs to; absent continues the open one. */
  messageId: z.optional(z.string()),
  /** A piece of the reasoning text. */
  delta: z.optional(z.string()),
});
/** Closes a span of reasoning. */
export const ReasoningEndEventSchema = owned(EventType.REASONING_END, {
  /** The span being closed. */
  messageId: z.string(),
});
/**
 * What an encrypted reasoning artefact belongs to. AG-UI 1.1 (`basic/processing`) counts its values
 * as union members, which a newer version may add to: a tolerant reader strips a `subtype` of
 * unknown kind, and, as the field is required, the event with it.
 */
export const EncryptedValueSubtypeSchema = z.enum(["tool-call", "message"]);
/** A provider's encrypted reasoning artefact for a message or a tool call (`entityId`). */
export const ReasoningEncryptedValueEventSchema = owned(EventType.REASONING_ENCRYPTED_VALUE, {
  /** What `entityId` names: a message or a tool call. */
  subtype: EncryptedValueSubtypeSchema,
  /** The id of the message or tool call the value belongs to. */
  entityId: z.string(),
  /** The provider's opaque artefact, stored and sent back on a later turn. */
  encryptedValue: z.string(),
  /** AG-UI 1.1: what kind of value `encryptedValue` is, as its producer names it; kept with the value. */
  encryptedValueType: z.optional(z.string()),
});
/** A subagent invocation `subagentRunId` has begun; what it produces carries that id. */
export const SubagentStartedEventSchema = event(EventType.SUBAGENT_STARTED, {
  /** Identifies this invocation; what the subagent produces carries it. */
  subagentRunId: z.string(),
  /** The subagent's name, the same across its invocations. */
  name: z.string(),
  /** What the subagent is for, to display. */
  description: z.optional(z.string()),
  /** The invocation that started this one, for nested subagents; absent when the agent did. */
  parentSubagentRunId: z.optional(z.string()),
  /** The tool call that started the subagent, where agents are offered as tools. */
  parentToolCallId: z.optional(z.string()),
  /** The message that holds that tool call. */
  parentMessageId: z.optional(z.string()),
});
/** A subagent invocation's part of the run has ended: done, or suspended on interrupts. */
export const SubagentFinishedEventSchema = event(EventType.SUBAGENT_FINISHED, {
  /** The invocation whose part of the run ended. */
  subagentRunId: z.string(),
  /** The subagent's return value, any JSON value but null. */
  result: z.optional(NonNullJsonSchema),
  /** Success (also when absent), or suspended on interrupts. */
  outcome: z.optional(SubagentFinishedOutcomeSchema),
});
/** A subagent invocation has failed; the run may go on. */
export const SubagentErrorEventSchema = event(EventType.SUBAGENT_ERROR, {
  /** The invocation that failed. */
  subagentRunId: z.string(),
  /** What went wrong, for a person to read. */
  message: z.string(),
  /** A machine-readable error code, of the producer's choosing. */
  code: z.optional(z.string()),
});

/**
 * The type of {@link EVENT_SCHEMAS}, written out with each schema by name: inferred, the published
 * declarations would spell every schema out again here and in {@link EventSchema} (a third of
 * their size), and a consumer's type checker would build and check each copy.
 */
export type EventSchemas = {
  readonly TEXT_MESSAGE_START: typeof TextMessageStartEventSchema;
  readonly TEXT_MESSAGE_CONTENT: typeof TextMessageContentEventSchema;
  readonly TEXT_MESSAGE_END: typeof TextMessageEndEventSchema;
  readonly TOOL_CALL_START: typeof ToolCallStartEventSchema;
  readonly TOOL_CALL_ARGS: typeof ToolCallArgsEventSchema;
  readonly TOOL_CALL_END: typeof ToolCallEndEventSchema;
  readonly STATE_SNAPSHOT: typeof StateSnapshotEventSchema;
  readonly STATE_DELTA: typeof StateDeltaEventSchema;
  readonly MESSAGES_SNAPSHOT: typeof MessagesSnapshotEventSchema;
  readonly RAW: typeof RawEventSchema;
  readonly CUSTOM: typeof CustomEventSchema;
  readonly RUN_STARTED: typeof RunStartedEventSchema;
  readonly RUN_FINISHED: typeof RunFinishedEventSchema;
  readonly RUN_ERROR: typeof RunErrorEventSchema;
  readonly STEP_STARTED: typeof StepStartedEventSchema;
  readonly STEP_FINISHED: typeof StepFinishedEventSchema;
  readonly SUBAGENT_STARTED: typeof SubagentStartedEventSchema;
  readonly SUBAGENT_FINISHED: typeof SubagentFinishedEventSchema;
  readonly SUBAGENT_ERROR: typeof SubagentErrorEventSchema;
  readonly TEXT_MESSAGE_CHUNK: typeof TextMessageChunkEventSchema;
  readonly TOOL_CALL_CHUNK: typeof ToolCallChunkEventSchema;
  readonly TOOL_CALL_RESULT: typeof ToolCallResultEventSchema;
  readonly ACTIVITY_SNAPSHOT: typeof ActivitySnapshotEventSchema;
  readonly ACTIVITY_DELTA: typeof ActivityDeltaEventSchema;
  readonly REASONING_START: typeof ReasoningStartEventSchema;
  readonly REASONING_MESSAGE_START: typeof ReasoningMessageStartEventSchema;
  readonly REASONING_MESSAGE_CONTENT: typeof ReasoningMessageContentEventSchema;
  readonly REASONING_MESSAGE_END: typeof ReasoningMessageEndEventSchema;
  readonly REASONING_MESSAGE_CHUNK: typeof ReasoningMessageChunkEventSchema;
  readonly REASONING_END: typeof ReasoningEndEventSchema;
  readonly REASONING_ENCRYPTED_VALUE: typeof ReasoningEncryptedValueEventSchema;
};

/** The schema of each event type, by its `type` string. */
export const EVENT_SCHEMAS: EventSchemas = {
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
  SUBAGENT_STARTED: SubagentStartedEventSchema,
  SUBAGENT_FINISHED: SubagentFinishedEventSchema,
  SUBAGENT_ERROR: SubagentErrorEventSchema,
  TEXT_MESSAGE_CHUNK: TextMessageChunkEventSchema,
  TOOL_CALL_CHUNK: ToolCallChunkEventSchema,
  TOOL_CALL_RESULT: ToolCallResultEventSchema,
  ACTIVITY_SNAPSHOT: ActivitySnapshotEventSchema,
  ACTIVITY_DELTA: ActivityDeltaEventSchema,
  REASONING_START: ReasoningStartEventSchema,
  REASONING_MESSAGE_START: ReasoningMessageStartEventSchema,
  REASONING_MESSAGE_CONTENT: ReasoningMessageContentEventSchema,
  REASONING_MESSAGE_END: ReasoningMessageEndEventSchema,
  REASONING_MESSAGE_CHUNK: ReasoningMessageChunkEventSchema,
  REASONING_END: ReasoningEndEventSchema,
  REASONING_ENCRYPTED_VALUE: ReasoningEncryptedValueEventSchema,
} as const satisfies { [T in EventType]: z.ZodMiniType<{ type: T }> };

/** Any event: a union on `type`. */
export const EventSchema: z.ZodMiniDiscriminatedUnion<[typeof TextMessageStartEventSchema, ...EventSchemas[Exclude<EventType, "TEXT_MESSAGE_START">][]], "type"> = tagged(
  "type",
  Object.values(EVENT_SCHEMAS) as unknown as [typeof TextMessageStartEventSchema, ...EventSchemas[Exclude<EventType, "TEXT_MESSAGE_START">][]],
);
