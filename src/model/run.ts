/**
 * How a run ends and resumes in AG-UI 1.0: interrupts, the outcome of RUN_FINISHED and
 * SUBAGENT_FINISHED, token usage, and the resume entries that answer interrupts.
 *
 * @module
 */
import * as z from "zod/mini";
import { object } from "./object.js";
import { tagged } from "./tagged.js";
import { int } from "./int.js";
import { array } from "./array.js";
import { JsonObjectSchema, NonNullJsonSchema } from "./json.js";

/** Something a run needs from outside before it can continue, such as an approval. */
export const InterruptSchema = object({
  id: z.string(),
  reason: z.string(),
  message: z.optional(z.string()),
  toolCallId: z.optional(z.string()),
  /** A JSON Schema for the answer. */
  responseSchema: z.optional(JsonObjectSchema),
  expiresAt: z.optional(z.string()),
  metadata: z.optional(JsonObjectSchema),
  subagentRunId: z.optional(z.string()),
});
/** Something a run needs from outside before it can continue. */
export type Interrupt = z.infer<typeof InterruptSchema>;

/** Why a run ended: a union on `type`; an absent outcome means success. */
export const RunFinishedOutcomeSchema = tagged("type", [
  object({ type: z.literal("success"), pendingToolCallIds: z.optional(array(z.string())) }),
  object({ type: z.literal("interrupt"), interrupts: array(InterruptSchema).check(z.minLength(1, { error: "expected at least one interrupt, found none" })) }),
  object({ type: z.literal("cancelled") }),
]);
/** Why a run ended. */
export type RunFinishedOutcome = z.infer<typeof RunFinishedOutcomeSchema>;

/** Why a subagent's part of a run ended: a union on `type`; an absent outcome means success. */
export const SubagentFinishedOutcomeSchema = tagged("type", [
  object({ type: z.literal("success") }),
  object({ type: z.literal("suspended"), interruptIds: z.optional(array(z.string())) }),
]);
/** Why a subagent's part of a run ended. */
export type SubagentFinishedOutcome = z.infer<typeof SubagentFinishedOutcomeSchema>;

const tokens = z.optional(int(0, "expected a token count of 0 or more"));

/** Token counts for one provider and model. */
export const TokenUsageSchema = object({
  provider: z.optional(z.string()),
  model: z.optional(z.string()),
  inputTokens: tokens,
  outputTokens: tokens,
  totalTokens: tokens,
  reasoningTokens: tokens,
  cachedInputTokens: tokens,
  cacheWriteInputTokens: tokens,
});
/** Token counts for one provider and model. */
export type TokenUsage = z.infer<typeof TokenUsageSchema>;

/** An answer to one interrupt, sent in the input of the run that continues from it. */
export const ResumeEntrySchema = object({
  interruptId: z.string(),
  status: z.enum(["resolved", "cancelled"]),
  payload: z.optional(NonNullJsonSchema),
  metadata: z.optional(JsonObjectSchema),
});
/** An answer to one interrupt. */
export type ResumeEntry = z.infer<typeof ResumeEntrySchema>;
