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
import { ValidationError, type ValidationIssue } from "../util/index.js";
import { checkEvent, checkRunAgentInput, finalize, type Checked } from "./check.js";
import { EVENT_TYPES, isEventType, type EventType } from "./event-type.js";
import type { AguiEvent } from "../gen/model/types.js";
import type { RunAgentInput } from "../gen/model/types.js";
import { MAX_REPORTED_PROBLEMS, describeFound, reportedIssues, withCount } from "./issues.js";

export { MAX_REPORTED_PROBLEMS, describeFound, formatIssues, formatPath } from "./issues.js";

/** The issues of a judgement, finalised, or undefined when there are none. */
function issuesOf(result: Checked): core.$ZodIssue[] | undefined {
  return result.issues.length === 0 ? undefined : result.issues.map(finalize);
}

/** The error for failed issues: `subject` then {@link formatIssues}' text; `issues` keeps those it names. */
export function issuesError(code: "invalid_event" | "invalid_input", subject: string, issues: readonly ValidationIssue[], omitted: number): ValidationError {
  const shown = reportedIssues(issues);
  return new ValidationError(code, `${subject}: ${withCount(shown, issues, omitted)}`, shown);
}

/** The error for an event of `type` that failed `issues`, `omitted` more problems uncounted there. */
export function eventError(type: string, issues: readonly ValidationIssue[], omitted: number): ValidationError {
  return issuesError("invalid_event", `invalid ${type} event`, issues, omitted);
}

/**
 * The type check every event goes through before its schema; returns its type.
 *
 * @throws {ValidationError} `unknown_event_type` for a string naming no event; `invalid_event` for
 *   a value that is not an object or whose type is not a string.
 */
export function typeOf(value: unknown): EventType {
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
  if (result.issues.length === 0) return withForwardedProps(result.value as RunAgentInput);
  throw issuesError("invalid_input", "invalid RunAgentInput", issuesOf(result)!, 0);
}

/**
 * `input` with `forwardedProps: null` (the Python SDK's default, which 1.0 refuses in RUN_STARTED)
 * taken as `{}`, what `@ag-ui/client` sends for none; `input` itself, changed in place.
 *
 * @throws Never.
 */
export function withForwardedProps(input: RunAgentInput): RunAgentInput {
  if (input.forwardedProps === null) input.forwardedProps = {};
  return input;
}
