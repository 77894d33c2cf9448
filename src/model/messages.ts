/**
 * Chat messages and the tool calls they carry.
 *
 * @module
 */
import * as z from "zod/mini";
import { object } from "./object.js";
import { array } from "./array.js";

/** The roles a message can have. */
export const RoleSchema = z.enum(["developer", "system", "assistant", "user", "tool"]);
/** One of the message roles. */
export type Role = z.infer<typeof RoleSchema>;

/** The function a tool call invokes. `arguments` is a JSON-encoded string, as the model sent it. */
export const FunctionCallSchema = object({
  name: z.string(),
  arguments: z.string(),
});
/** The function a tool call invokes. */
export type FunctionCall = z.infer<typeof FunctionCallSchema>;

/** A tool call made by an assistant message. */
export const ToolCallSchema = object({
  id: z.string(),
  type: z.literal("function"),
  function: FunctionCallSchema,
});
/** A tool call made by an assistant message. */
export type ToolCall = z.infer<typeof ToolCallSchema>;

/** Instructions from the application's developer. */
export const DeveloperMessageSchema = object({
  id: z.string(),
  role: z.literal("developer"),
  content: z.string(),
  name: z.optional(z.string()),
});
/** Instructions from the application's developer. */
export type DeveloperMessage = z.infer<typeof DeveloperMessageSchema>;

/** A system prompt. */
export const SystemMessageSchema = object({
  id: z.string(),
  role: z.literal("system"),
  content: z.string(),
  name: z.optional(z.string()),
});
/** A system prompt. */
export type SystemMessage = z.infer<typeof SystemMessageSchema>;

/** What the assistant said: text, tool calls, or both. */
export const AssistantMessageSchema = object({
  id: z.string(),
  role: z.literal("assistant"),
  content: z.optional(z.string()),
  name: z.optional(z.string()),
  toolCalls: z.optional(array(ToolCallSchema)),
});
/** What the assistant said: text, tool calls, or both. */
export type AssistantMessage = z.infer<typeof AssistantMessageSchema>;

/** What the user said. */
export const UserMessageSchema = object({
  id: z.string(),
  role: z.literal("user"),
  content: z.string(),
  name: z.optional(z.string()),
});
/** What the user said. */
export type UserMessage = z.infer<typeof UserMessageSchema>;

/** The result of a tool call, answering the call `toolCallId`. */
export const ToolMessageSchema = object({
  id: z.string(),
  role: z.literal("tool"),
  content: z.string(),
  toolCallId: z.string(),
});
/** The result of a tool call. */
export type ToolMessage = z.infer<typeof ToolMessageSchema>;

/** A message: a union on `role`. */
export const MessageSchema = z.discriminatedUnion("role", [
  DeveloperMessageSchema,
  SystemMessageSchema,
  AssistantMessageSchema,
  UserMessageSchema,
  ToolMessageSchema,
]);
/** A message: a union on `role`. */
export type Message = z.infer<typeof MessageSchema>;
