/**
 * Chat messages (all seven roles of AG-UI 1.0) and the tool calls they carry.
 *
 * @module
 */
import * as z from "zod/mini";
import { object } from "./object.js";
import { tagged } from "./tagged.js";
import { array } from "./array.js";
import { JsonObjectSchema } from "./json.js";
import { TextOrPartsSchema } from "./text-or-parts.js";
// The types are declared (src/gen/model/types.ts, generated from these schemas): inferred ones would
// make every consumer's type checker load and instantiate zod's declarations.
export type {
  Role,
  FunctionCall,
  ToolCall,
  DeveloperMessage,
  SystemMessage,
  AssistantMessage,
  UserMessage,
  ToolMessage,
  ActivityMessage,
  ReasoningMessage,
  Message,
} from "../gen/model/types.js";

/** The roles a message can have. */
export const RoleSchema = z.enum(["developer", "system", "assistant", "user", "tool", "activity", "reasoning"]);

/** The function a tool call invokes. `arguments` is a JSON-encoded string, as the model sent it. */
export const FunctionCallSchema = object({
  /** The name of the tool called. */
  name: z.string(),
  /** The arguments, as the JSON text the model wrote; not parsed here. */
  arguments: z.string(),
});

/** A tool call made by an assistant message. */
export const ToolCallSchema = object({
  /** Identifies the call; the tool message answering it carries it as `toolCallId`. */
  id: z.string(),
  /** Always `function`. */
  type: z.literal("function"),
  /** The tool called, and its arguments. */
  function: FunctionCallSchema,
  /** A provider's opaque, encrypted reasoning artefact for this call. */
  encryptedValue: z.optional(z.string()),
  /** AG-UI 1.1: what kind of value `encryptedValue` is, as its producer names it (`anthropic.redacted_thinking`). */
  encryptedValueType: z.optional(z.string()),
  /** Extra information, a JSON object. */
  metadata: z.optional(JsonObjectSchema),
});

/** Fields every message may carry: the subagent invocation it belongs to, and metadata. */
const owned = {
  /** The subagent invocation (SUBAGENT_STARTED) this message belongs to; absent for the agent's own. */
  subagentRunId: z.optional(z.string()),
  /** Extra information, a JSON object. */
  metadata: z.optional(JsonObjectSchema),
};
/** Fields of the developer, system, assistant and user messages besides `id`, `role` and `content`. */
const named = {
  /** A display name for the author. */
  name: z.optional(z.string()),
  /** A provider's opaque artefact for this message, sent back on a later turn. */
  encryptedValue: z.optional(z.string()),
  /** AG-UI 1.1: what kind of value `encryptedValue` is, as its producer names it. */
  encryptedValueType: z.optional(z.string()),
  ...owned,
};

/** Instructions from the application's developer. */
export const DeveloperMessageSchema = object({
  /** Identifies the message in the conversation. */
  id: z.string(),
  role: z.literal("developer"),
  /** The instructions. */
  content: z.string(),
  ...named,
});

/** A system prompt. */
export const SystemMessageSchema = object({
  /** Identifies the message in the conversation. */
  id: z.string(),
  role: z.literal("system"),
  /** The instructions. */
  content: z.string(),
  ...named,
});

/** What the assistant said: text, tool calls, or both. */
export const AssistantMessageSchema = object({
  /** Identifies the message in the conversation. */
  id: z.string(),
  role: z.literal("assistant"),
  /** What the agent said; absent for a turn of tool calls only. */
  content: z.optional(z.string()),
  // `name` before `toolCalls`, the order people write them in (and our SSE text keeps).
  /** A display name for the author. */
  name: z.optional(z.string()),
  /** The tool calls the agent made in this turn. */
  toolCalls: z.optional(array(ToolCallSchema)),
  /** A provider's opaque artefact for this message, sent back on a later turn. */
  encryptedValue: z.optional(z.string()),
  /** AG-UI 1.1: what kind of value `encryptedValue` is, as its producer names it. */
  encryptedValueType: z.optional(z.string()),
  ...owned,
});

/** Text, or content parts (multimodal). */
const MultimodalContentSchema = TextOrPartsSchema;

/** What the user said: text, or content parts (text, image, audio, video, document). */
export const UserMessageSchema = object({
  /** Identifies the message in the conversation. */
  id: z.string(),
  role: z.literal("user"),
  /** What the user sent: text, or content parts. */
  content: MultimodalContentSchema,
  ...named,
});

/** The result of a tool call, answering the call `toolCallId`; `error` says why it failed. */
export const ToolMessageSchema = object({
  /** Identifies the message in the conversation. */
  id: z.string(),
  role: z.literal("tool"),
  /** What the tool returned: text, or content parts. */
  content: MultimodalContentSchema,
  /** The call answered. */
  toolCallId: z.string(),
  /** Why the tool failed; `content` may still hold a partial result. */
  error: z.optional(z.string()),
  /** A provider's opaque artefact for this message, sent back on a later turn. */
  encryptedValue: z.optional(z.string()),
  /** AG-UI 1.1: what kind of value `encryptedValue` is, as its producer names it. */
  encryptedValueType: z.optional(z.string()),
  ...owned,
});

/** Structured progress that is not conversation content (ACTIVITY_SNAPSHOT), kept in place. */
export const ActivityMessageSchema = object({
  /** Identifies the message in the conversation. */
  id: z.string(),
  role: z.literal("activity"),
  /** What kind of activity, a name the producer chooses. */
  activityType: z.string(),
  /** The activity's payload. */
  content: JsonObjectSchema,
  ...owned,
});

/** A span of the agent's reasoning, kept as a message. */
export const ReasoningMessageSchema = object({
  /** Identifies the message in the conversation. */
  id: z.string(),
  role: z.literal("reasoning"),
  /** The reasoning text. */
  content: z.string(),
  /** A provider's opaque artefact for this message, sent back on a later turn. */
  encryptedValue: z.optional(z.string()),
  /** AG-UI 1.1: what kind of value `encryptedValue` is, as its producer names it. */
  encryptedValueType: z.optional(z.string()),
  ...owned,
});

/**
 * The type of {@link MessageSchema}, as a named interface: the published declarations then name it
 * wherever a schema holds messages (the run input, RUN_STARTED, MESSAGES_SNAPSHOT) instead of
 * spelling all seven message schemas out again in each, which a consumer's type checker would
 * build and check once per copy.
 */
export interface MessageUnionSchema
  extends z.ZodMiniDiscriminatedUnion<
    [
      typeof DeveloperMessageSchema,
      typeof SystemMessageSchema,
      typeof AssistantMessageSchema,
      typeof UserMessageSchema,
      typeof ToolMessageSchema,
      typeof ActivityMessageSchema,
      typeof ReasoningMessageSchema,
    ],
    "role"
  > {}

/** A message: a union on `role`. */
export const MessageSchema: MessageUnionSchema = tagged("role", [
  DeveloperMessageSchema,
  SystemMessageSchema,
  AssistantMessageSchema,
  UserMessageSchema,
  ToolMessageSchema,
  ActivityMessageSchema,
  ReasoningMessageSchema,
]);
