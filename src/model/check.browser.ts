/**
 * The model's judges as browsers get them (package.json `browser` field): the judges of check.ts,
 * with the plain validators of forms.ts (src/gen/model/event_forms.ts) in place of the zod schemas,
 * so that a browser bundle carries no zod. The same outputs, issues and messages; see forms.ts.
 *
 * @module
 */
import * as forms from "../gen/model/event_forms.js";
import type { EventType } from "./event-type.js";
import type { Form, FormIssue } from "./forms.js";

/** A judgement: the output in `value` when `issues` is empty; the issues are finished. */
export interface Checked {
  value: unknown;
  issues: FormIssue[];
}

/** A judge of one form of the model. Never throws. */
export type Check = (value: unknown) => Checked;

function run(form: Form, value: unknown): Checked {
  const issues: FormIssue[] = [];
  return { value: form(value, issues), issues };
}

/**
 * Judges `value` as an event of `type` (which the caller has already checked is an event type).
 *
 * @throws Never.
 */
export function checkEvent(type: EventType, value: unknown): Checked {
  return run(forms.EVENT_FORMS[type], value);
}

/**
 * Judges `value` as a run request body.
 *
 * @throws Never.
 */
export function checkRunAgentInput(value: unknown): Checked {
  return run(forms.RunAgentInputForm, value);
}

/* @__NO_SIDE_EFFECTS__ */
function judge(form: Form): Check {
  return (value) => run(form, value);
}

/** Judges a chat message. */
export const checkMessage = /* @__PURE__ */ judge(forms.MessageForm);
/** Judges a tool call of an assistant message. */
export const checkToolCall = /* @__PURE__ */ judge(forms.ToolCallForm);
/** Judges a JSON Patch operation. */
export const checkJsonPatchOperation = /* @__PURE__ */ judge(forms.JsonPatchOperationForm);
/** Judges a content part. */
export const checkContentPart = /* @__PURE__ */ judge(forms.ContentPartForm);
/** Judges an interrupt. */
export const checkInterrupt = /* @__PURE__ */ judge(forms.InterruptForm);
/** Judges a token usage entry. */
export const checkTokenUsage = /* @__PURE__ */ judge(forms.TokenUsageForm);
/** Judges a tool a client offers. */
export const checkTool = /* @__PURE__ */ judge(forms.ToolForm);
/** Judges a context entry. */
export const checkContext = /* @__PURE__ */ judge(forms.ContextForm);
/** Judges an answer to an interrupt. */
export const checkResumeEntry = /* @__PURE__ */ judge(forms.ResumeEntryForm);

/**
 * Returns the issue as it is: the forms' issues are finished when raised.
 *
 * @throws Never.
 */
export function finalize<T>(issue: T): T {
  return issue;
}
