/**
 * What a client POSTs to start a run (AG-UI 1.0's RunAgentInput).
 *
 * @module
 */
import * as z from "zod/mini";
import { object } from "./object.js";
import { array } from "./array.js";
import { JsonObjectSchema, JsonValueSchema, NonNullJsonSchema } from "./json.js";
import { MessageSchema } from "./messages.js";
import { ResumeEntrySchema } from "./run.js";
// The types are declared (src/gen/model/types.ts, generated from these schemas): inferred ones would
// make every consumer's type checker load and instantiate zod's declarations.
export type {
  Tool,
  Context,
  RunAgentInput,
  RunAgentInputInit,
} from "../gen/model/types.js";

/** A tool the client offers the agent. `parameters` is a JSON Schema, usually an object. */
export const ToolSchema = object({
  /** The tool's name, as the agent calls it. */
  name: z.string(),
  /** What the tool does, for the agent to decide when to use it. */
  description: z.string(),
  /** A JSON Schema of the tool's arguments; absent declares none. */
  parameters: z.optional(NonNullJsonSchema),
  /** Extra information, a JSON object. */
  metadata: z.optional(JsonObjectSchema),
});

/** A piece of context the client gives the agent. */
export const ContextSchema = object({
  /** What this context is, for the agent to interpret. */
  description: z.string(),
  /** The context itself. */
  value: z.string(),
});

/** The fields of a run request, `forwardedProps` aside. */
const inputShape = {
  /** The conversation the run belongs to. */
  threadId: z.string(),
  /** Identifies the run. */
  runId: z.string(),
  /** The AG-UI version the client speaks, "1.0" from `@ag-ui/client` 1.0. */
  protocolVersion: z.optional(z.string()),
  /** The run that started this one. */
  parentRunId: z.optional(z.string()),
  /** The state the run starts from, any JSON value. */
  state: z.optional(JsonValueSchema),
  /** The conversation so far, in order. */
  messages: array(MessageSchema),
  /** The tools the agent may call. */
  tools: z._default(array(ToolSchema), () => []),
  /** Information for the run besides the conversation. */
  context: z._default(array(ContextSchema), () => []),
};

const runAgentInputSchema = object({
  ...inputShape,
  /** Application values passed through to the agent untouched. */
  forwardedProps: z.optional(JsonValueSchema),
  /** Answers to the interrupts the previous run ended with. */
  resume: z.optional(array(ResumeEntrySchema)),
});
type RunAgentInputSchemaOf = typeof runAgentInputSchema;
/**
 * The type of {@link RunAgentInputSchema}, as a named interface, so that the published
 * declarations name it where it is used instead of spelling the input (messages and all) out again.
 */
export interface RunAgentInputObjectSchema extends RunAgentInputSchemaOf {}
/**
 * The body of a run request. `threadId`, `runId` and `messages` are required; `tools` and `context`
 * default to empty lists, as in AG-UI 1.0. `state` and `forwardedProps` may be `null` (kept as
 * given), which 1.0 refuses for `forwardedProps` but bodies written for earlier releases send.
 */
export const RunAgentInputSchema: RunAgentInputObjectSchema = runAgentInputSchema;

const echoedRunAgentInputSchema = object({
  ...inputShape,
  forwardedProps: z.optional(NonNullJsonSchema),
  resume: z.optional(array(ResumeEntrySchema)),
});
type EchoedRunAgentInputSchemaOf = typeof echoedRunAgentInputSchema;
/** The type of {@link EchoedRunAgentInputSchema}, named for the reason {@link RunAgentInputObjectSchema} is. */
export interface EchoedRunAgentInputObjectSchema extends EchoedRunAgentInputSchemaOf {}
/**
 * The request as RUN_STARTED echoes it: an event, so held to 1.0's rule that `forwardedProps` is
 * absent or a value, never `null`.
 */
export const EchoedRunAgentInputSchema: EchoedRunAgentInputObjectSchema = echoedRunAgentInputSchema;
