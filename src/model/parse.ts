/**
 * Validation entry points that turn zod's result into the library's typed errors.
 *
 * Errors name at most {@link MAX_REPORTED_PROBLEMS} problems and say how many more there were:
 * the model's arrays keep the issues of their first bad elements only and count the rest
 * (src/model/array.ts), so a rejected value costs time in proportion to its size and memory in
 * proportion to what is reported, not to how many problems it has.
 *
 * @module
 */
import type * as z from "zod/mini";
import * as core from "zod/v4/core";
import { ValidationError } from "../errors.js";
import { omittedProblems, problemCount } from "./array.js";
import { runSchema } from "./run-schema.js";
import { EVENT_TYPES, isEventType } from "./event-type.js";
import { EVENT_SCHEMAS, type AguiEvent } from "./events.js";
import { RunAgentInputSchema, type RunAgentInput } from "./input.js";

/** The most problems an error message names (and its `issues` keep); the rest are counted. */
export const MAX_REPORTED_PROBLEMS = 10;

/** The longest object key a path shows: keys come from the input, and may be as long as it. */
const MAX_KEY = 60;

/**
 * Runs `schema` over `value` as `safeParse` does, returning the output, or the issues with the
 * input each was found at (for the message's "found" part). Not `safeParse(value, { reportInput:
 * true })`, which is slower on valid input and would need a second parse after a failure (see
 * run-schema.ts); the issues are finalised here instead, keeping their inputs.
 */
function run(schema: z.ZodMiniType, value: unknown): { value: unknown; issues: core.$ZodIssue[] | undefined } {
  const payload = runSchema(schema, value);
  return { value: payload.value, issues: payload.issues.length === 0 ? undefined : payload.issues.map(finalize) };
}

/** The text of what an error map returned: a string, or an object holding one. */
function mapped(result: unknown): string | undefined {
  return typeof result === "string" ? result : (result as { message?: string } | undefined)?.message;
}

/**
 * Turns a raw issue into a finished one, as zod does when it reads a failed result: a path, a
 * message (the schema's own error, else the configured error maps), no link to the schema, and
 * the input kept. Done here rather than with zod's `util.finalizeIssue`, whose namespace would
 * bring the whole of zod's `util` module (about 3 KB gzipped) into a browser bundle.
 */
function finalize(raw: core.$ZodRawIssue): core.$ZodIssue {
  const issue = { ...raw, path: raw.path ?? [] } as Record<string, unknown>;
  if (!raw.message) {
    const config = core.config();
    issue.message =
      mapped(raw.inst?._zod.def.error?.(raw as never)) ?? mapped(config.customError?.(raw)) ?? mapped(config.localeError?.(raw)) ?? "invalid input";
  }
  delete issue.inst;
  delete issue.continue;
  return issue as unknown as core.$ZodIssue;
}

/**
 * Formats an issue path as `messages[2].toolCalls[0].id`. A key longer than 60 characters is
 * shortened, with `…`, so that a message stays short whatever keys the input has.
 *
 * @throws Never.
 */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (typeof key === "string" && key.length <= MAX_KEY && /^[A-Za-z_$][\w$]*$/.test(key)) out += out ? `.${key}` : key;
    else {
      const text = String(key);
      out += text.length > MAX_KEY ? `[${JSON.stringify(text.slice(0, MAX_KEY)).slice(0, -1)}…"]` : `[${JSON.stringify(text)}]`;
    }
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
      // A custom message that already says what was found ("…, found none") is kept whole.
      if (own) return /\bfound\b/.test(own) ? own : `${own}, found ${found}`;
      return `expected ${issue.origin} at least ${String(issue.minimum)}, found ${found}`;
    case "invalid_format":
      return `${own ?? `expected a string of format ${issue.format}`}, found ${found}`;
    default:
      return own ?? `${issue.message}, found ${found}`;
  }
}

/** The issues an error keeps: the first {@link MAX_REPORTED_PROBLEMS}, without arrays' counts. */
function reportedIssues(issues: readonly core.$ZodIssue[]): core.$ZodIssue[] {
  const out: core.$ZodIssue[] = [];
  for (let i = 0; i < issues.length && out.length < MAX_REPORTED_PROBLEMS; i++) {
    if (omittedProblems(issues[i]!) === undefined) out.push(issues[i]!);
  }
  return out;
}

/** Writes a count with thousands separators (523,990), the same in every locale. */
function formatCount(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

function clause(issue: core.$ZodIssue): string {
  return issue.path.length ? `${formatPath(issue.path)}: ${issueMessage(issue)}` : issueMessage(issue);
}

/**
 * One clause per issue, `path: expected …, found …`, joined for an error message: the first
 * {@link MAX_REPORTED_PROBLEMS} of them, then how many more problems there were (counting those an
 * array only counted; see src/model/array.ts), as in `…; and 523,990 more problems`. Issues must
 * come from a parse with `reportInput: true` for the "found" parts.
 *
 * @param omitted - Problems found outside `issues` (by a decoder, in parts it did not build), added
 *   to the count.
 * @throws Never.
 */
export function formatIssues(issues: readonly core.$ZodIssue[], omitted = 0): string {
  return withCount(reportedIssues(issues), issues, omitted);
}

/** The clauses of the `shown` issues, then how many more problems `issues` and `omitted` hold. */
function withCount(shown: readonly core.$ZodIssue[], issues: readonly core.$ZodIssue[], omitted: number): string {
  const more = problemCount(issues) - shown.length + omitted;
  const text = shown.map(clause).join("; ");
  if (more <= 0) return text;
  const tail = `and ${formatCount(more)} more problem${more === 1 ? "" : "s"}`;
  return text ? `${text}; ${tail}` : tail;
}

/** The error for failed issues: `subject` then {@link formatIssues}' text; `issues` keeps those it names. */
function issuesError(code: "invalid_event" | "invalid_input", subject: string, issues: readonly core.$ZodIssue[], omitted: number): ValidationError {
  const shown = reportedIssues(issues);
  return new ValidationError(code, `${subject}: ${withCount(shown, issues, omitted)}`, shown);
}

function eventError(type: string, issues: readonly core.$ZodIssue[], omitted: number): ValidationError {
  return issuesError("invalid_event", `invalid ${type} event`, issues, omitted);
}

/** The type check every event goes through before its schema; returns the schema to use. */
function schemaOf(value: unknown): z.ZodMiniType<AguiEvent> {
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
  return EVENT_SCHEMAS[type] as z.ZodMiniType<AguiEvent>;
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
  const result = run(schemaOf(value), value);
  if (result.issues === undefined) return result.value as AguiEvent;
  throw eventError((value as { type: string }).type, result.issues, 0);
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
  const { issues } = run(schemaOf(value), value);
  // The decoder judged its parts with the same schemas, so the kept part fails; should it not, the
  // event is still refused, since what was dropped was found invalid.
  throw eventError((value as { type: string }).type, issues ?? [], issues ? omitted : Math.max(omitted, 1));
}

/**
 * Validates a run request body.
 *
 * @throws {ValidationError} `invalid_input`, naming the path and the problem of the first
 *   {@link MAX_REPORTED_PROBLEMS} problems and how many more there were.
 */
export function parseRunAgentInput(value: unknown): RunAgentInput {
  const { issues, value: input } = run(RunAgentInputSchema, value);
  if (issues === undefined) return input as RunAgentInput;
  throw issuesError("invalid_input", "invalid RunAgentInput", issues, 0);
}
