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
// The types are declared (src/gen/model/types.ts, generated from these schemas): inferred ones would
// make every consumer's type checker load and instantiate zod's declarations.
export type {
  Interrupt,
  RunFinishedOutcome,
  SubagentFinishedOutcome,
  TokenUsage,
  ResumeEntry,
} from "../gen/model/types.js";

/** Something a run needs from outside before it can continue, such as an approval. */
export const InterruptSchema = object({
  /** Identifies the interrupt; a resume entry answers it by this id. */
  id: z.string(),
  /** Why the run needs input, in the producer's words (an open string). */
  reason: z.string(),
  /** A prompt for whoever answers. */
  message: z.optional(z.string()),
  /** The tool call concerned, when the interrupt is a tool approval. */
  toolCallId: z.optional(z.string()),
  /** A JSON Schema for the answer. */
  responseSchema: z.optional(JsonObjectSchema),
  /** When it stops being answerable; by convention ISO 8601. */
  expiresAt: z.optional(z.string()),
  /** Extra information, a JSON object. */
  metadata: z.optional(JsonObjectSchema),
  /** The subagent invocation that raised it; absent for the agent's own. */
  subagentRunId: z.optional(z.string()),
});

/** Why a run ended: a union on `type`; an absent outcome means success. */
export const RunFinishedOutcomeSchema = tagged("type", [
  object({
    type: z.literal("success"),
    /** Tool calls the run left unanswered, for the application to answer in the next input's messages. */
    pendingToolCallIds: z.optional(array(z.string())),
  }),
  object({
    type: z.literal("interrupt"),
    /** What the run waits for; the next run answers them in `resume`. */
    interrupts: array(InterruptSchema).check(z.minLength(1, { error: "expected at least one interrupt, found none" })),
  }),
  object({ type: z.literal("cancelled") }),
]);

/** Why a subagent's part of a run ended: a union on `type`; an absent outcome means success. */
export const SubagentFinishedOutcomeSchema = tagged("type", [
  object({ type: z.literal("success") }),
  object({
    type: z.literal("suspended"),
    /** The ids of the run's interrupts that this subagent raised itself. */
    interruptIds: z.optional(array(z.string())),
  }),
]);

const tokens = z.optional(int(0, "expected a token count of 0 or more"));

/** Token counts for one provider and model. */
export const TokenUsageSchema = object({
  /** The provider that served the calls, by convention its lower-case id (`openai`). */
  provider: z.optional(z.string()),
  /** The model that served the calls. */
  model: z.optional(z.string()),
  /** Every prompt token charged, cached and cache-written ones included. */
  inputTokens: tokens,
  /** Every generated token, reasoning included. */
  outputTokens: tokens,
  /** `inputTokens` plus `outputTokens`. */
  totalTokens: tokens,
  /** Output tokens spent on reasoning: part of `outputTokens`, not added to it. */
  reasoningTokens: tokens,
  /** Input tokens read from a provider cache: part of `inputTokens`. */
  cachedInputTokens: tokens,
  /** Input tokens written to a provider cache: part of `inputTokens`. */
  cacheWriteInputTokens: tokens,
});

/** An answer to one interrupt, sent in the input of the run that continues from it. */
export const ResumeEntrySchema = object({
  /** The interrupt answered. */
  interruptId: z.string(),
  /** Whether the interrupt was answered or abandoned. */
  status: z.enum(["resolved", "cancelled"]),
  /** The answer, for the agent to act on. */
  payload: z.optional(NonNullJsonSchema),
  /** Extra information, a JSON object. */
  metadata: z.optional(JsonObjectSchema),
});
