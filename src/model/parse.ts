/**
 * Validation entry points that turn the model's judgement into the library's typed errors.
 *
 * Errors name at most {@link MAX_REPORTED_PROBLEMS} problems and say how many more there were:
 * the model's arrays keep the issues of their first bad elements only and count the rest
 * (src/model/array.ts), so a rejected value costs time in proportion to its size and memory in
 * proportion to what is reported, not to how many problems it has.
 *
 * @module
 */
import type * as core from "zod/v4/core";
import { ValidationError } from "../util/index.js";
import { checkEvent, checkRunAgentInput, finalize, type Checked } from "./check.js";
import { EVENT_TYPES, isEventType, type EventType } from "./event-type.js";
import type { AguiEvent } from "./events.js";
import type { RunAgentInput } from "./input.js";
import { MAX_REPORTED_PROBLEMS, describeFound, reportedIssues, withCount } from "./issues.js";
import { EVENT_FORMS, RunAgentInputForm } from "../gen/model/event_forms.js";
import { judgeTolerantly, type Form, type Stripped } from "./forms.js";

export { MAX_REPORTED_PROBLEMS, describeFound, formatIssues, formatPath } from "./issues.js";

/** The issues of a judgement, finalised, or undefined when there are none. */
function issuesOf(result: Checked): core.$ZodIssue[] | undefined {
  return result.issues.length === 0 ? undefined : result.issues.map(finalize);
}

/** The error for failed issues: `subject` then {@link formatIssues}' text; `issues` keeps those it names. */
function issuesError(code: "invalid_event" | "invalid_input", subject: string, issues: readonly core.$ZodIssue[], omitted: number): ValidationError {
  const shown = reportedIssues(issues);
  return new ValidationError(code, `${subject}: ${withCount(shown, issues, omitted)}`, shown);
}

function eventError(type: string, issues: readonly core.$ZodIssue[], omitted: number): ValidationError {
  return issuesError("invalid_event", `invalid ${type} event`, issues, omitted);
}

/** The type check every event goes through before its schema; returns its type. */
function typeOf(value: unknown): EventType {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ValidationError("invalid_event", `invalid event: expected an object, found ${describeFound(value)}`);
  }
  const type = (value as { type?: unknown }).type;
  if (!isEventType(type)) {
    if (typeof type === "string") {
      throw new ValidationError(
        "unknown_event_type",
        `unknown event type ${describeFound(type)}: expected one of ${EVENT_TYPES.join(", ")}`,
      );
    }
    throw new ValidationError(
      "invalid_event",
      `invalid event: type: expected an event type string, found ${describeFound(type)}`,
    );
  }
  return type;
}

/**
 * Validates an event against the model and returns it with unknown keys dropped and defaults
 * filled in (the `tools` and `context` of RUN_STARTED's `input`).
 *
 * @throws {ValidationError} `unknown_event_type` when `type` is a string that names no event;
 *   `invalid_event` when the value is not an object, `type` is missing or not a string, or a
 *   field is missing or of the wrong type. The message names the path and the problem of the first
 *   {@link MAX_REPORTED_PROBLEMS} problems and says how many more there were; `issues` keeps
 *   those first ones.
 */
export function parseEvent(value: unknown): AguiEvent {
  const type = typeOf(value);
  const result = checkEvent(type, value);
  if (result.issues.length === 0) return result.value as AguiEvent;
  throw eventError(type, issuesOf(result)!, 0);
}

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
  if (input.value?.forwardedProps === null) input.value.forwardedProps = {};
  return input;
}

/**
 * Throws the error for an event that a decoder found invalid while decoding it: `value` is what it
 * kept (the bad parts among them), and `omitted` counts the problems in the parts it dropped
 * unbuilt. For decoders only; `parseEvent` is the public entry point.
 *
 * @throws {ValidationError} Always: as `parseEvent` would for `value`, with `omitted` more
 *   problems counted in the message.
 */
export function rejectEvent(value: unknown, omitted: number): never {
  const type = typeOf(value);
  const issues = issuesOf(checkEvent(type, value));
  // The decoder judged its parts with the same schemas, so the kept part fails; should it not, the
  // event is still refused, since what was dropped was found invalid.
  throw eventError(type, issues ?? [], issues ? omitted : Math.max(omitted, 1));
}

/**
 * Validates a run request body. `forwardedProps: null`, which the Python SDK sends by default and
 * 1.0 refuses, is taken as `{}` (what `@ag-ui/client` sends for none): what a server accepts it can
 * then echo in RUN_STARTED, whose `input` may not hold a `null` there.
 *
 * @throws {ValidationError} `invalid_input`, naming the path and the problem of the first
 *   {@link MAX_REPORTED_PROBLEMS} problems and how many more there were.
 */
export function parseRunAgentInput(value: unknown): RunAgentInput {
  const result = checkRunAgentInput(value);
  if (result.issues.length === 0) {
    const input = result.value as RunAgentInput;
    if (input.forwardedProps === null) input.forwardedProps = {};
    return input;
  }
  throw issuesError("invalid_input", "invalid RunAgentInput", issuesOf(result)!, 0);
}
