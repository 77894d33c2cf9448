/**
 * The checks the generated readers run on each element of a repeated field (messages, tool calls,
 * patch operations) as soon as it is read.
 *
 * Decoding a frame used to build every element and validate the event afterwards: a 9 MB frame of
 * 4.5 million empty messages built 4.5 million objects, then zod's issues for each, and ran Node
 * out of heap. Checking each element as it is read lets the reader stop storing elements once the
 * event is known to be invalid and enough of its bad elements are kept for the error to name
 * (`MAX_ARRAY_ISSUES`, as the model's arrays keep): later elements are still read, so the frame
 * must still be well-formed, and still checked, so the error can say how many more problems there
 * were, but each is dropped at once. A valid event pays what it paid before, one validation per
 * element, and no longer a second pass over the whole event (src/binary/accept.ts).
 *
 * The model's schemas stay the single judge: an element is checked against the same schema its
 * array uses, and what is stored is that schema's output.
 *
 * @module
 */
import type * as core from "zod/v4/core";
import type {
  ContentPartFields,
  ContextFields,
  InterruptFields,
  JsonPatchOperationFields,
  MessageFields,
  ResumeEntryFields,
  ToolCallFields,
  ToolFields,
} from "../gen/agui/wire/v1/messages_codec.js";
import type { TokenUsageFields } from "../gen/agui/wire/v1/events_codec.js";
import { ContentPartSchema } from "../model/content.js";
import { ContextSchema, ToolSchema } from "../model/input.js";
import { InterruptSchema, ResumeEntrySchema, TokenUsageSchema } from "../model/run.js";
import { MAX_ARRAY_ISSUES, problemCount } from "../model/array.js";
import { JsonPatchOperationSchema } from "../model/events.js";
import { MessageSchema, ToolCallSchema } from "../model/messages.js";
import { runSchema } from "../model/run-schema.js";
import type { Reader } from "./reader.js";

/**
 * Checks one element against `schema` and returns what to store: the schema's output when it is
 * valid, the element itself (for the error to report) when not. Counts an invalid element as kept
 * when `keep`, and stops the reader keeping once enough are; otherwise counts its problems as
 * omitted.
 */
function check<T>(schema: core.$ZodType, r: Reader, item: T, keep: boolean): T {
  // No result object and no finalised issues, which an element that is only counted does not need.
  const result = runSchema(schema, item);
  const issues = result.issues;
  if (issues.length === 0) return result.value as T;
  if (keep) {
    if (++r.invalid >= MAX_ARRAY_ISSUES) r.keeping = false;
  } else {
    r.omitted += problemCount(issues);
  }
  return item;
}

/**
 * Checks a decoded chat message (MESSAGES_SNAPSHOT's `messages`).
 *
 * @throws Never.
 */
export function checkMessage(r: Reader, item: MessageFields, keep: boolean): MessageFields {
  return check(MessageSchema, r, item, keep);
}

/**
 * Checks a decoded tool call (a message's `toolCalls`).
 *
 * @throws Never.
 */
export function checkToolCall(r: Reader, item: ToolCallFields, keep: boolean): ToolCallFields {
  return check(ToolCallSchema, r, item, keep);
}

/**
 * Checks a decoded JSON Patch operation (STATE_DELTA's `delta`).
 *
 * @throws Never.
 */
export function checkJsonPatchOperation(r: Reader, item: JsonPatchOperationFields, keep: boolean): JsonPatchOperationFields {
  return check(JsonPatchOperationSchema, r, item, keep);
}

/**
 * Checks a decoded content part (a user or tool message's, or TOOL_CALL_RESULT's, `content`).
 *
 * @throws Never.
 */
export function checkContentPart(r: Reader, item: ContentPartFields, keep: boolean): ContentPartFields {
  return check(ContentPartSchema, r, item, keep);
}

/**
 * Checks a decoded interrupt (RUN_FINISHED's interrupt outcome).
 *
 * @throws Never.
 */
export function checkInterrupt(r: Reader, item: InterruptFields, keep: boolean): InterruptFields {
  return check(InterruptSchema, r, item, keep);
}

/**
 * Checks a decoded token usage entry (RUN_FINISHED's and RUN_ERROR's `usage`).
 *
 * @throws Never.
 */
export function checkTokenUsage(r: Reader, item: TokenUsageFields, keep: boolean): TokenUsageFields {
  return check(TokenUsageSchema, r, item, keep);
}

/**
 * Checks a decoded tool (RUN_STARTED input's `tools`).
 *
 * @throws Never.
 */
export function checkTool(r: Reader, item: ToolFields, keep: boolean): ToolFields {
  return check(ToolSchema, r, item, keep);
}

/**
 * Checks a decoded context entry (RUN_STARTED input's `context`).
 *
 * @throws Never.
 */
export function checkContext(r: Reader, item: ContextFields, keep: boolean): ContextFields {
  return check(ContextSchema, r, item, keep);
}

/**
 * Checks a decoded resume entry (RUN_STARTED input's `resume`).
 *
 * @throws Never.
 */
export function checkResumeEntry(r: Reader, item: ResumeEntryFields, keep: boolean): ResumeEntryFields {
  return check(ResumeEntrySchema, r, item, keep);
}
