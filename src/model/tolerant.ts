/**
 * Validation as AG-UI 1.1's processing model has a reader do it (`basic/processing`): as
 * parse.ts's entry points, except that unknown material is removed rather than refused. Kept out
 * of the model's index, which the generator of src/gen/model/event_forms.ts reads, since this
 * judges with what it generates.
 *
 * @module
 */
import type * as core from "zod/v4/core";
import type { ValidationError } from "../util/index.js";
import { EVENT_FORMS, RunAgentInputForm } from "../gen/model/event_forms.js";
import { finalize } from "./check.js";
import type { AguiEvent } from "../gen/model/types.js";
import { judgeTolerantly, type Form, type Stripped } from "./forms.js";
import type { RunAgentInput } from "../gen/model/types.js";
import { eventError, issuesError, typeOf, withForwardedProps } from "./parse.js";

export type { Stripped } from "./forms.js";

/** What a tolerant parse returns: the value (undefined when it went whole) and what was removed. */
export interface Tolerated<T> {
  value: T | undefined;
  stripped: Stripped[];
}

/** Judges `value` with `form` tolerantly; what is malformed throws as the strict judge words it. */
function tolerate<T>(form: Form, value: unknown, fail: (issues: core.$ZodIssue[]) => ValidationError): Tolerated<T> {
  const judged = judgeTolerantly(form, value);
  if (judged.issues.length > 0) throw fail(judged.issues.map((issue) => finalize(issue as never) as core.$ZodIssue));
  return { value: judged.value as T | undefined, stripped: judged.stripped };
}

/**
 * Validates an event as AG-UI 1.1's processing model has a consumer do (`basic/processing`): as
 * {@link parseEvent}, except that unknown material is removed rather than refused. An unknown key
 * goes; a union member of an unknown kind (a content part, a source, an outcome, a patch
 * operation, a message role) goes where it sits: the field when optional, the value containing it
 * when required, the element in a list, the event itself at the top. What went is listed in
 * `stripped`, for the caller to warn of. A malformed known value still throws.
 *
 * @throws {ValidationError} As `parseEvent` does: `unknown_event_type`, or `invalid_event` for a
 *   malformed known value.
 */
export function parseEventTolerantly(value: unknown): Tolerated<AguiEvent> {
  const type = typeOf(value);
  return tolerate(EVENT_FORMS[type], value, (issues) => eventError(type, issues, 0));
}

/**
 * Validates a run request body as {@link parseRunAgentInput} does, except that unknown material is
 * removed rather than refused, as {@link parseEventTolerantly} removes it: what a producer does
 * with the input it receives (`basic/processing`, the outgoing direction).
 *
 * @throws {ValidationError} `invalid_input` for a malformed known field.
 */
export function parseRunAgentInputTolerantly(value: unknown): Tolerated<RunAgentInput> {
  const input = tolerate<RunAgentInput>(RunAgentInputForm, value, (issues) => issuesError("invalid_input", "invalid RunAgentInput", issues, 0));
  if (input.value) withForwardedProps(input.value);
  return input;
}

