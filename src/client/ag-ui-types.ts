/**
 * The type names `@ag-ui/core` 1.0 and `@ag-ui/client` 1.0 export that our model spells otherwise,
 * as aliases of our model's types, so that 1.0 code keeps its annotations when it changes the
 * import to `agui-wire/client`. Each alias means what theirs means (checked against their
 * declarations); where ours differs, its comment says how.
 *
 * Types only: nothing here reaches a bundle.
 *
 * @module
 */
import type {
  ActivityDeltaEvent,
  ActivitySnapshotEvent,
  AguiEvent,
  BaseEvent,
  ContentPart,
  CustomEvent,
  EventOf,
  EventType,
  JsonObject,
  JsonPatchOperation,
  MessagesSnapshotEvent,
  PartSource,
  RawEvent,
  ReasoningEncryptedValueEvent,
  ReasoningEndEvent,
  ReasoningMessageChunkEvent,
  ReasoningMessageContentEvent,
  ReasoningMessageEndEvent,
  ReasoningMessageStartEvent,
  ReasoningStartEvent,
  ResumeEntry,
  RunErrorEvent,
  RunFinishedEvent,
  RunFinishedOutcome,
  RunStartedEvent,
  StateDeltaEvent,
  StateSnapshotEvent,
  StepFinishedEvent,
  StepStartedEvent,
  SubagentErrorEvent,
  SubagentFinishedEvent,
  SubagentFinishedOutcome,
  SubagentStartedEvent,
  TextMessageChunkEvent,
  TextMessageContentEvent,
  TextMessageEndEvent,
  TextMessageStartEvent,
  ToolCallArgsEvent,
  ToolCallChunkEvent,
  ToolCallEndEvent,
  ToolCallResultEvent,
  ToolCallStartEvent,
} from "../model/index.js";

// --- Events -------------------------------------------------------------------------------------

/** Any of the 31 events (their historic name for the union; ours is `AguiEvent`). */
export type AGUIEvent = AguiEvent;
/** Any of the 31 events (`@ag-ui/core`'s generated name for the union). */
export type Event = AguiEvent;
/** Each event type, by its `type` string. */
export type AGUIEventByType = { [K in EventType]: EventOf<K> };
/** The event whose `type` is `T` (ours: `EventOf<T>`). */
export type AGUIEventOf<T extends EventType> = EventOf<T>;
/** An event's own fields: the event without `type`, `timestamp`, `rawEvent` and `metadata`. */
export type EventPayloadOf<T extends EventType> = T extends EventType ? Omit<EventOf<T>, keyof BaseEvent> : never;
/**
 * The fields every event has, open to any other key, as theirs (`@ag-ui/client` code reads
 * event-specific fields off a `BaseEvent`).
 */
export type BaseEventFields = BaseEvent & { [key: string]: unknown };

/** What an event factory takes, as theirs: the event without `type`, open to extra keys. */
type EventProps<E extends { type: EventType }> = Omit<E, "type"> & { [key: string]: unknown };

/** The fields of every event but `type`, open to extra keys. */
export type BaseEventProps = EventProps<BaseEvent>;
/** A TEXT_MESSAGE_START event without `type`, open to extra keys. */
export type TextMessageStartEventProps = EventProps<TextMessageStartEvent>;
/** A TEXT_MESSAGE_CONTENT event without `type`, open to extra keys. */
export type TextMessageContentEventProps = EventProps<TextMessageContentEvent>;
/** A TEXT_MESSAGE_END event without `type`, open to extra keys. */
export type TextMessageEndEventProps = EventProps<TextMessageEndEvent>;
/** A TEXT_MESSAGE_CHUNK event without `type`, open to extra keys. */
export type TextMessageChunkEventProps = EventProps<TextMessageChunkEvent>;
/** A TOOL_CALL_START event without `type`, open to extra keys. */
export type ToolCallStartEventProps = EventProps<ToolCallStartEvent>;
/** A TOOL_CALL_ARGS event without `type`, open to extra keys. */
export type ToolCallArgsEventProps = EventProps<ToolCallArgsEvent>;
/** A TOOL_CALL_END event without `type`, open to extra keys. */
export type ToolCallEndEventProps = EventProps<ToolCallEndEvent>;
/** A TOOL_CALL_CHUNK event without `type`, open to extra keys. */
export type ToolCallChunkEventProps = EventProps<ToolCallChunkEvent>;
/** A TOOL_CALL_RESULT event without `type`, open to extra keys. */
export type ToolCallResultEventProps = EventProps<ToolCallResultEvent>;
/** A STATE_SNAPSHOT event without `type`, open to extra keys. */
export type StateSnapshotEventProps = EventProps<StateSnapshotEvent>;
/** A STATE_DELTA event without `type`, open to extra keys. */
export type StateDeltaEventProps = EventProps<StateDeltaEvent>;
/** A MESSAGES_SNAPSHOT event without `type`, open to extra keys. */
export type MessagesSnapshotEventProps = EventProps<MessagesSnapshotEvent>;
/** An ACTIVITY_SNAPSHOT event without `type`, open to extra keys. */
export type ActivitySnapshotEventProps = EventProps<ActivitySnapshotEvent>;
/** An ACTIVITY_DELTA event without `type`, open to extra keys. */
export type ActivityDeltaEventProps = EventProps<ActivityDeltaEvent>;
/** A RAW event without `type`, open to extra keys. */
export type RawEventProps = EventProps<RawEvent>;
/** A CUSTOM event without `type`, open to extra keys. */
export type CustomEventProps = EventProps<CustomEvent>;
/** A RUN_STARTED event without `type`, open to extra keys. */
export type RunStartedEventProps = EventProps<RunStartedEvent>;
/** A RUN_FINISHED event without `type`, open to extra keys. */
export type RunFinishedEventProps = EventProps<RunFinishedEvent>;
/** A RUN_ERROR event without `type`, open to extra keys. */
export type RunErrorEventProps = EventProps<RunErrorEvent>;
/** A STEP_STARTED event without `type`, open to extra keys. */
export type StepStartedEventProps = EventProps<StepStartedEvent>;
/** A STEP_FINISHED event without `type`, open to extra keys. */
export type StepFinishedEventProps = EventProps<StepFinishedEvent>;
/** A REASONING_START event without `type`, open to extra keys. */
export type ReasoningStartEventProps = EventProps<ReasoningStartEvent>;
/** A REASONING_MESSAGE_START event without `type`, open to extra keys. */
export type ReasoningMessageStartEventProps = EventProps<ReasoningMessageStartEvent>;
/** A REASONING_MESSAGE_CONTENT event without `type`, open to extra keys. */
export type ReasoningMessageContentEventProps = EventProps<ReasoningMessageContentEvent>;
/** A REASONING_MESSAGE_END event without `type`, open to extra keys. */
export type ReasoningMessageEndEventProps = EventProps<ReasoningMessageEndEvent>;
/** A REASONING_MESSAGE_CHUNK event without `type`, open to extra keys. */
export type ReasoningMessageChunkEventProps = EventProps<ReasoningMessageChunkEvent>;
/** A REASONING_END event without `type`, open to extra keys. */
export type ReasoningEndEventProps = EventProps<ReasoningEndEvent>;
/** A REASONING_ENCRYPTED_VALUE event without `type`, open to extra keys. */
export type ReasoningEncryptedValueEventProps = EventProps<ReasoningEncryptedValueEvent>;
/** A SUBAGENT_STARTED event without `type`, open to extra keys. */
export type SubagentStartedEventProps = EventProps<SubagentStartedEvent>;
/** A SUBAGENT_FINISHED event without `type`, open to extra keys. */
export type SubagentFinishedEventProps = EventProps<SubagentFinishedEvent>;
/** A SUBAGENT_ERROR event without `type`, open to extra keys. */
export type SubagentErrorEventProps = EventProps<SubagentErrorEvent>;

/**
 * An event whose `type` the protocol does not know, as a middleware may see one before
 * enforcement (see `isRecognizedEvent`).
 */
export type UnrecognizedEvent = { type: string; [key: string]: unknown };

// --- Fields shared by events and messages -------------------------------------------------------

/**
 * Extra information on an event, message, tool call, tool, interrupt or resume entry: a JSON
 * object (theirs is `Record<string, any>`; ours holds JSON values, which is what both transports
 * carry). The key `ag-ui` is the protocol's own.
 */
export type Metadata = JsonObject;
/** The handle of one subagent invocation (SUBAGENT_STARTED's `subagentRunId`). */
export type SubagentRunId = string;
/** The fields of something a subagent may have produced. */
export type Attributable = { subagentRunId?: SubagentRunId };
/** The roles a streamed text message may take (TEXT_MESSAGE_START's `role`). */
export type TextMessageRole = NonNullable<TextMessageStartEvent["role"]>;
/** What an encrypted reasoning value belongs to: a message or a tool call. */
export type ReasoningEncryptedValueSubtype = ReasoningEncryptedValueEvent["subtype"];
/** Whether an interrupt was answered or abandoned. */
export type ResumeStatus = ResumeEntry["status"];
/**
 * The fields the developer, system, assistant and user messages share, `role` as any string, as
 * theirs. Ours also carry AG-UI 1.1's `encryptedValueType`.
 */
export type BaseMessage = {
  subagentRunId?: SubagentRunId;
  id: string;
  role: string;
  name?: string;
  encryptedValue?: string;
  encryptedValueType?: string;
  metadata?: Metadata;
};

// --- Outcomes -----------------------------------------------------------------------------------

/** RUN_FINISHED's outcome when the run succeeded (also what an absent outcome means). */
export type RunFinishedSuccessOutcome = Extract<RunFinishedOutcome, { type: "success" }>;
/** RUN_FINISHED's outcome when the run stopped on interrupts. */
export type RunFinishedInterruptOutcome = Extract<RunFinishedOutcome, { type: "interrupt" }>;
/** RUN_FINISHED's outcome when the run was cancelled. */
export type RunFinishedCancelledOutcome = Extract<RunFinishedOutcome, { type: "cancelled" }>;
/** SUBAGENT_FINISHED's outcome when the subagent is done (also what an absent outcome means). */
export type SubagentFinishedSuccessOutcome = Extract<SubagentFinishedOutcome, { type: "success" }>;
/** SUBAGENT_FINISHED's outcome when the subagent waits on interrupts. */
export type SubagentFinishedSuspendedOutcome = Extract<SubagentFinishedOutcome, { type: "suspended" }>;

// --- JSON Patch ---------------------------------------------------------------------------------

/** A JSON Pointer (RFC 6901). */
export type JsonPointer = string;
/** A JSON Patch document (RFC 6902): STATE_DELTA's `delta`, ACTIVITY_DELTA's `patch`. */
export type JsonPatch = JsonPatchOperation[];
/** The `add` operation of JSON Patch. */
export type AddOperation = Extract<JsonPatchOperation, { op: "add" }>;
/** The `remove` operation of JSON Patch. */
export type RemoveOperation = Extract<JsonPatchOperation, { op: "remove" }>;
/** The `replace` operation of JSON Patch. */
export type ReplaceOperation = Extract<JsonPatchOperation, { op: "replace" }>;
/** The `move` operation of JSON Patch. */
export type MoveOperation = Extract<JsonPatchOperation, { op: "move" }>;
/** The `copy` operation of JSON Patch. */
export type CopyOperation = Extract<JsonPatchOperation, { op: "copy" }>;
/** The `test` operation of JSON Patch. */
export type TestOperation = Extract<JsonPatchOperation, { op: "test" }>;

// --- Content parts ------------------------------------------------------------------------------

/** A text part. */
export type TextPart = Extract<ContentPart, { type: "text" }>;
/** An image part. */
export type ImagePart = Extract<ContentPart, { type: "image" }>;
/** An audio part. */
export type AudioPart = Extract<ContentPart, { type: "audio" }>;
/** A video part. */
export type VideoPart = Extract<ContentPart, { type: "video" }>;
/** A document part. */
export type DocumentPart = Extract<ContentPart, { type: "document" }>;
/** A media part's bytes carried inline. */
export type DataSource = Extract<PartSource, { type: "data" }>;
/** A media part's bytes referenced by URL. */
export type UrlSource = Extract<PartSource, { type: "url" }>;
/** A media part's bytes held by a model provider, named by its handle. */
export type FileSource = Extract<PartSource, { type: "file" }>;

/** @deprecated Use ContentPart (1.0 renamed the input content types to parts). */
export type InputContent = ContentPart;
/** A content part of a user message (historic alias of ContentPart). */
export type InputContentPart = ContentPart;
/** @deprecated Use TextPart. */
export type TextInputContent = TextPart;
/** @deprecated Use ImagePart. */
export type ImageInputContent = ImagePart;
/** @deprecated Use AudioPart. */
export type AudioInputContent = AudioPart;
/** @deprecated Use VideoPart. */
export type VideoInputContent = VideoPart;
/** @deprecated Use DocumentPart. */
export type DocumentInputContent = DocumentPart;
/** @deprecated Use ImagePart. */
export type ImageInputPart = ImagePart;
/** @deprecated Use AudioPart. */
export type AudioInputPart = AudioPart;
/** @deprecated Use VideoPart. */
export type VideoInputPart = VideoPart;
/** @deprecated Use DocumentPart. */
export type DocumentInputPart = DocumentPart;
/** @deprecated Use PartSource. */
export type InputContentSource = PartSource;
/** @deprecated Use DataSource. */
export type InputContentDataSource = DataSource;
/** @deprecated Use UrlSource. */
export type InputContentUrlSource = UrlSource;

// --- Client configuration -----------------------------------------------------------------------

// `HttpAgentFetchFn` is http-agent.ts's own: its `fetch` option takes that shape.

/**
 * `@ag-ui/client`'s debug switch (`true`, or which kinds of logs). Our agents accept it in their
 * config and ignore it: agui-wire has no debug logger (see docs/ag-ui-differences.md).
 */
export type AgentDebugConfig = boolean | { events?: boolean; lifecycle?: boolean; verbose?: boolean };
