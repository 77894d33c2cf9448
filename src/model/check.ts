/**
 * The model's judges, by name: each runs one schema of the model over a value and returns its
 * output and raw issues. Everything that validates (parse.ts, the binary reader's element checks)
 * goes through here rather than to the schemas, so that a browser bundle can swap this file for
 * check.browser.ts (package.json `browser` field), which judges the same forms without zod.
 *
 * @module
 */
import * as core from "zod/v4/core";
import { EVENT_SCHEMAS, JsonPatchOperationSchema } from "./events.js";
import type { EventType } from "./event-type.js";
import { ContextSchema, RunAgentInputSchema, ToolSchema } from "./input.js";
import { ContentPartSchema } from "./content.js";
import { InterruptSchema, ResumeEntrySchema, TokenUsageSchema } from "./run.js";
import { MessageSchema, ToolCallSchema } from "./messages.js";
import { runSchema } from "./run-schema.js";

/** A judgement: the output in `value` when `issues` is empty; the issues are raw (see {@link finalize}). */
export interface Checked {
  value: unknown;
  issues: core.$ZodRawIssue[];
}

/** A judge of one form of the model. Never throws. */
export type Check = (value: unknown) => Checked;

/**
 * Judges `value` as an event of `type` (which the caller has already checked is an event type).
 *
 * @throws Never.
 */
export function checkEvent(type: EventType, value: unknown): Checked {
  return runSchema(EVENT_SCHEMAS[type], value);
}

/**
 * Judges `value` as a run request body.
 *
 * @throws Never.
 */
export function checkRunAgentInput(value: unknown): Checked {
  return runSchema(RunAgentInputSchema, value);
}

/* @__NO_SIDE_EFFECTS__ */
function judge(schema: core.$ZodType): Check {
  return (value) => runSchema(schema, value);
}

/** Judges a chat message. */
export const checkMessage = /* @__PURE__ */ judge(MessageSchema);
/** Judges a tool call of an assistant message. */
export const checkToolCall = /* @__PURE__ */ judge(ToolCallSchema);
/** Judges a JSON Patch operation. */
export const checkJsonPatchOperation = /* @__PURE__ */ judge(JsonPatchOperationSchema);
/** Judges a content part. */
export const checkContentPart = /* @__PURE__ */ judge(ContentPartSchema);
/** Judges an interrupt. */
export const checkInterrupt = /* @__PURE__ */ judge(InterruptSchema);
/** Judges a token usage entry. */
export const checkTokenUsage = /* @__PURE__ */ judge(TokenUsageSchema);
/** Judges a tool a client offers. */
export const checkTool = /* @__PURE__ */ judge(ToolSchema);
/** Judges a context entry. */
export const checkContext = /* @__PURE__ */ judge(ContextSchema);
/** Judges an answer to an interrupt. */
export const checkResumeEntry = /* @__PURE__ */ judge(ResumeEntrySchema);

/** The text of what an error map returned: a string, or an object holding one. */
function mapped(result: unknown): string | undefined {
  return typeof result === "string" ? result : (result as { message?: string } | undefined)?.message;
}

/**
 * Turns a raw issue into a finished one, as zod does when it reads a failed result: a path, a
 * message (the schema's own error, else the configured error maps), no link to the schema (`inst`,
 * or the `schema` zod stamps on a check's issues), and the input kept. Done here rather than with zod's `util.finalizeIssue`, whose namespace would
 * bring the whole of zod's `util` module (about 3 KB gzipped) into a bundle.
 *
 * @throws Never, unless an error map configured in zod throws.
 */
export function finalize(raw: core.$ZodRawIssue): core.$ZodIssue {
  const issue = { ...raw, path: raw.path ?? [] } as Record<string, unknown>;
  if (!raw.message) {
    const config = core.config();
    issue.message =
      mapped(raw.inst?._zod.def.error?.(raw as never)) ?? mapped(config.customError?.(raw)) ?? mapped(config.localeError?.(raw)) ?? "invalid input";
  }
  delete issue.inst;
  delete issue.schema;
  delete issue.continue;
  return issue as unknown as core.$ZodIssue;
}
