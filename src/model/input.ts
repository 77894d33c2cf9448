/**
 * What a client POSTs to start a run.
 *
 * @module
 */
import * as z from "zod/mini";
import { object } from "./object.js";
import { array } from "./array.js";
import { JsonObjectSchema, JsonValueSchema } from "./json.js";
import { MessageSchema } from "./messages.js";

/** A tool the client offers the agent. `parameters` is a JSON Schema object. */
export const ToolSchema = object({
  name: z.string(),
  description: z.string(),
  parameters: JsonObjectSchema,
});
/** A tool the client offers the agent. */
export type Tool = z.infer<typeof ToolSchema>;

/** A piece of context the client gives the agent. */
export const ContextSchema = object({
  description: z.string(),
  value: z.string(),
});
/** A piece of context the client gives the agent. */
export type Context = z.infer<typeof ContextSchema>;

/** The body of a run request. All seven fields are required. */
export const RunAgentInputSchema = object({
  threadId: z.string(),
  runId: z.string(),
  state: JsonValueSchema,
  messages: array(MessageSchema),
  tools: array(ToolSchema),
  context: array(ContextSchema),
  forwardedProps: JsonValueSchema,
});
/** The body of a run request. */
export type RunAgentInput = z.infer<typeof RunAgentInputSchema>;
