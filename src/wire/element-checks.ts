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
 * The model stays the single judge: an element is checked by the same judge (src/model/check.ts)
 * as its array's elements, and what is stored is that judge's output.
 *
 * @module
 */
import { MAX_ARRAY_ISSUES, problemCount } from "../model/problems.js";
import * as judges from "../model/check.js";
import * as forms from "../gen/model/event_forms.js";
import { judgeTolerantly, type Form } from "../model/forms.js";
import type { Reader } from "./reader.js";

/**
 * Checks one element against `schema` and returns what to store: the schema's output when it is
 * valid, the element itself (for the error to report) when not. Counts an invalid element as kept
 * when `keep`, and stops the reader keeping once enough are; otherwise counts its problems as
 * omitted.
 */
function check<T>(judge: judges.Check, form: Form, r: Reader, item: T, keep: boolean): T {
  // Raw issues, not finalised: an element that is only counted does not need them worded.
  const result = judge(item);
  const issues = result.issues;
  if (issues.length === 0) return result.value as T;
  // An element that holds a member of unknown kind, and nothing malformed, is kept as it came for
  // the tolerant judge of the whole event, which strips it where it sits and says where.
  // Once the event is known to be invalid (not keeping), there is nothing left to strip for.
  if (r.tolerant && r.keeping && judgeTolerantly(form, item).issues.length === 0) {
    r.strippable++;
    return item;
  }
  if (keep) {
    if (++r.invalid >= MAX_ARRAY_ISSUES) r.keeping = false;
  } else {
    r.omitted += problemCount(issues);
  }
  return item;
}

/**
 * An element check with `judge`, for the generated readers to call by name. Generic over the
 * element's type (the generated codec's `…Fields`, which this module does not import: the codecs
 * import it).
 */
type ElementCheck = <T>(r: Reader, item: T, keep: boolean) => T;

function checker(judge: judges.Check, form: Form): ElementCheck {
  return (r, item, keep) => check(judge, form, r, item, keep);
}

/** Checks a decoded chat message (MESSAGES_SNAPSHOT's `messages`, an input's). Never throws. */
export const checkMessage = /* @__PURE__ */ checker(judges.checkMessage, forms.MessageForm);
/** Checks a decoded tool call (a message's `toolCalls`). Never throws. */
export const checkToolCall = /* @__PURE__ */ checker(judges.checkToolCall, forms.ToolCallForm);
/** Checks a decoded JSON Patch operation (STATE_DELTA's `delta`, ACTIVITY_DELTA's `patch`). Never throws. */
export const checkJsonPatchOperation = /* @__PURE__ */ checker(judges.checkJsonPatchOperation, forms.JsonPatchOperationForm);
/** Checks a decoded content part (a user or tool message's, or TOOL_CALL_RESULT's, `content`). Never throws. */
export const checkContentPart = /* @__PURE__ */ checker(judges.checkContentPart, forms.ContentPartForm);
/** Checks a decoded interrupt (RUN_FINISHED's interrupt outcome). Never throws. */
export const checkInterrupt = /* @__PURE__ */ checker(judges.checkInterrupt, forms.InterruptForm);
/** Checks a decoded token usage entry (RUN_FINISHED's and RUN_ERROR's `usage`). Never throws. */
export const checkTokenUsage = /* @__PURE__ */ checker(judges.checkTokenUsage, forms.TokenUsageForm);
/** Checks a decoded tool (RUN_STARTED input's `tools`). Never throws. */
export const checkTool = /* @__PURE__ */ checker(judges.checkTool, forms.ToolForm);
/** Checks a decoded context entry (RUN_STARTED input's `context`). Never throws. */
export const checkContext = /* @__PURE__ */ checker(judges.checkContext, forms.ContextForm);
/** Checks a decoded resume entry (RUN_STARTED input's `resume`). Never throws. */
export const checkResumeEntry = /* @__PURE__ */ checker(judges.checkResumeEntry, forms.ResumeEntryForm);
