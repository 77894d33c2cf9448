/**
 * Validation entry points that turn zod's result into the library's typed errors.
 *
 * @module
 */
import type * as z from "zod/mini";
import type { core } from "zod";
import { ValidationError } from "../errors.js";
import { EVENT_TYPES, isEventType } from "./event-type.js";
import { EVENT_SCHEMAS, type AguiEvent } from "./events.js";
import { RunAgentInputSchema, type RunAgentInput } from "./input.js";

/**
 * Parses again, only after a failure, with each issue's input kept so that messages can say what
 * was found. Not done on the first pass because `reportInput` turns off zod's compiled fast path.
 */
function reportedIssues(schema: z.ZodMiniType, value: unknown): core.$ZodIssue[] {
  return schema.safeParse(value, { reportInput: true }).error?.issues ?? [];
}

/** Formats an issue path as `messages[2].toolCalls[0].id`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (typeof key === "string" && /^[A-Za-z_$][\w$]*$/.test(key)) out += out ? `.${key}` : key;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

/** Describes a value found where something else was expected, briefly. */
export function describeFound(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  if (typeof value === "number") return Number.isNaN(value) ? "NaN" : String(value);
  if (typeof value === "bigint") return `${value}n`;
  return typeof value === "object" ? "an object" : typeof value === "function" ? "a function" : String(value);
}

/**
 * Words one issue as "expected …, found …". Issues must come from a parse with
 * `reportInput: true` for the "found" part.
 */
function issueMessage(issue: core.$ZodIssue): string {
  const found = describeFound(issue.input);
  // The model's own messages start with "expected"; zod's defaults depend on which locale, if
  // any, the application loaded, so every other issue is worded here from its data.
  const own = issue.message.startsWith("expected") ? issue.message : undefined;
  switch (issue.code) {
    case "invalid_type":
      return `expected ${issue.expected}, found ${found}`;
    case "invalid_value":
      return `expected ${issue.values.map((v) => JSON.stringify(v)).join(" or ")}, found ${found}`;
    case "invalid_union": {
      // zod adds these keys to a discriminated union's issue without declaring them in its types.
      const { note, discriminator: key, options = [] } = issue as { note?: string; discriminator?: string; options?: unknown[] };
      if (note === "No matching discriminator") {
        const tag = key && typeof issue.input === "object" && issue.input !== null ? (issue.input as Record<string, unknown>)[key] : issue.input;
        return `expected ${options.map((v) => JSON.stringify(v)).join(" or ")}, found ${describeFound(tag)}`;
      }
      return own ?? `expected one of the allowed forms, found ${found}`;
    }
    case "too_big":
      return own ? `${own}, found ${found}` : `expected ${issue.origin} at most ${String(issue.maximum)}, found ${found}`;
    case "too_small":
      return own ?? `expected ${issue.origin} at least ${String(issue.minimum)}, found ${found}`;
    case "invalid_format":
      return `${own ?? `expected a string of format ${issue.format}`}, found ${found}`;
    default:
      return own ?? `${issue.message}, found ${found}`;
  }
}

/** One clause per issue, `path: expected …, found …`, joined for an error message. */
export function formatIssues(issues: readonly core.$ZodIssue[]): string {
  return issues
    .map((issue) => (issue.path.length ? `${formatPath(issue.path)}: ${issueMessage(issue)}` : issueMessage(issue)))
    .join("; ");
}

/**
 * Validates an event against the model and returns it with unknown keys dropped and defaults
 * filled in (TEXT_MESSAGE_START's `role`).
 *
 * @throws {ValidationError} `unknown_event_type` when `type` is a string that names no event;
 *   `invalid_event` when the value is not an object, `type` is missing or not a string, or a
 *   field is missing or of the wrong type. The message names the path and the problem; `issues`
 *   keeps all of them.
 */
export function parseEvent(value: unknown): AguiEvent {
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
  const schema = EVENT_SCHEMAS[type] as z.ZodMiniType<AguiEvent>;
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = reportedIssues(schema, value);
  throw new ValidationError("invalid_event", `invalid ${type} event: ${formatIssues(issues)}`, issues);
}

/**
 * Validates a run request body.
 *
 * @throws {ValidationError} `invalid_input`, naming each failing path and its problem.
 */
export function parseRunAgentInput(value: unknown): RunAgentInput {
  const result = RunAgentInputSchema.safeParse(value);
  if (result.success) return result.data;
  const issues = reportedIssues(RunAgentInputSchema, value);
  throw new ValidationError("invalid_input", `invalid RunAgentInput: ${formatIssues(issues)}`, issues);
}
