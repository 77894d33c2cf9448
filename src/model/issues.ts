/**
 * How the model words what it refuses: issue paths (`messages[2].toolCalls[0].id`), what was
 * found, and "path: expected …, found …" clauses, with the count of problems beyond the first
 * {@link MAX_REPORTED_PROBLEMS}. Free of zod, so that the wording is the same whichever judge
 * (src/model/check.ts, or check.browser.ts in browsers) raised the issues.
 *
 * @module
 */
import type * as core from "zod/v4/core";
import type { ValidationIssue } from "../util/index.js";
import { omittedProblems, problemCount } from "./problems.js";

/** The most problems an error message names (and its `issues` keep); the rest are counted. */
export const MAX_REPORTED_PROBLEMS = 10;

/** The longest object key a path shows: keys come from the input, and may be as long as it. */
const MAX_KEY = 60;

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
export function reportedIssues(issues: readonly ValidationIssue[]): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (let i = 0; i < issues.length && out.length < MAX_REPORTED_PROBLEMS; i++) {
    if (omittedProblems(issues[i]!) === undefined) out.push(issues[i]!);
  }
  return out;
}

/** Writes a count with thousands separators (523,990), the same whatever the user's locale. */
function formatCount(n: number): string {
  return n.toLocaleString("en-US");
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
export function formatIssues(issues: readonly ValidationIssue[], omitted = 0): string {
  return withCount(reportedIssues(issues), issues, omitted);
}

/** The clauses of the `shown` issues, then how many more problems `issues` and `omitted` hold. */
export function withCount(shown: readonly ValidationIssue[], issues: readonly ValidationIssue[], omitted: number): string {
  const more = problemCount(issues) - shown.length + omitted;
  // Issues are zod's (declared as ValidationIssue only so that the declarations name no zod type).
  const text = shown.map(clause as (issue: ValidationIssue) => string).join("; ");
  if (more <= 0) return text;
  const tail = `and ${formatCount(more)} more problem${more === 1 ? "" : "s"}`;
  return text ? `${text}; ${tail}` : tail;
}
