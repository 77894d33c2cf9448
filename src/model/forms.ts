/**
 * The forms the model's fields take, as plain validators: what zod/mini does with the model's
 * schemas, for browsers, without zod.
 *
 * A browser client validates every event it receives, and zod (with the schemas built on it) was
 * about a third of its bundle. `src/gen/model/event_forms.ts` builds every schema of the model
 * from these forms, generated from the zod schemas themselves (tools/gen-model-forms.ts), and
 * check.browser.ts judges with them. Each form returns what the schema would output (unknown keys
 * dropped, defaults filled in) and raises the issues it would raise, at the same paths, so that
 * issues.ts words the same error whichever judge ran; test/model/forms.test.ts holds the two to
 * the same verdicts. Issues come out finished: a path, a message, the input.
 *
 * Only the forms the model uses are here, each as the model uses it.
 *
 * @module
 */
import {
  JSON_POINTER,
  JSON_POINTER_EXPECTED,
  findJsonObjectProblem,
  findJsonProblem,
  findNonNullJsonProblem,
  type JsonProblem,
} from "./json-problem.js";
import { EVENT_TYPES, type EventType } from "./event-type.js";
import { MAX_ARRAY_ISSUES, omittedIssue, problemCount } from "./problems.js";

/** A finished issue, shaped as zod's are: `code` and its own fields, `path`, `message`, `input`. */
export interface FormIssue {
  code: string;
  path: PropertyKey[];
  message: string;
  input: unknown;
  [field: string]: unknown;
}

/**
 * A validator: returns the output for `value` (meaningful when it raised no issue) and appends the
 * issues it found, their paths relative to `value`. `mode` tells an object how to treat the key:
 * absent means required, 1 optional, 2 filled with a default.
 */
export type Form = ((value: unknown, issues: FormIssue[]) => unknown) & { mode?: 1 | 2 };

/**
 * What a tolerant judgement (see {@link judgeTolerantly}) removed from a value: an unknown key of a
 * closed object (`property`), or a value holding a union member of a kind the model does not know
 * (`member`: the member itself where it was optional, else the value containing it), at `path`
 * relative to the value judged. `found` says what was not known, for people.
 */
export interface Stripped {
  kind: "property" | "member";
  path: PropertyKey[];
  found: string;
}

/**
 * The removals of the tolerant judgement under way, or undefined when the judgement is strict (the
 * default). Module state rather than a parameter because forms are synchronous and never
 * re-entered, and because it keeps the strict path, which every event of a browser takes, free
 * of one more argument at each level.
 */
let removed: Stripped[] | undefined;

/** What a union of unknown kind was found holding, kept for the removal that follows. */
let unknownMember = "";

/** What a form returns, in a tolerant judgement, for a value to be removed from its container. */
const STRIP: unique symbol = Symbol("strip");

/**
 * Judges `value` with `form` tolerantly, as AG-UI 1.1 (`basic/processing`) asks of a consumer:
 * unknown keys of closed objects are dropped; a union member of an unknown kind is stripped where
 * it sits, the field alone when it is optional, the value containing it when it is required, the
 * element when it is in a list. Returns the output, the issues (the strict judgement's, for what
 * is malformed), and what was removed; `value` is undefined when the judged value itself goes.
 *
 * @throws Never.
 */
export function judgeTolerantly(form: Form, value: unknown): { value: unknown; issues: FormIssue[]; stripped: Stripped[] } {
  const issues: FormIssue[] = [];
  const stripped: Stripped[] = (removed = []);
  try {
    let out = form(value, issues);
    if (out === STRIP) {
      out = undefined;
      issues.length = 0;
      strip(0, []);
    }
    return { value: out, issues, stripped };
  } finally {
    removed = undefined;
  }
}

/** Records the removal of what is at `path`, dropping the records made inside it from `start` on. */
function strip(start: number, path: PropertyKey[]): void {
  removed!.length = start;
  removed!.push({ kind: "member", path, found: unknownMember });
}

/** The message of an issue that zod words from its locale (none is loaded by zod/mini). */
const INVALID = "invalid input";

/** Raises an issue at `value` itself. */
function raise(issues: FormIssue[], input: unknown, fields: Record<string, unknown>, message = INVALID, path: PropertyKey[] = []): void {
  // `fields` is a fresh literal at every call: completed in place, as a spread of it cost a few
  // microseconds an issue (a rejected list of millions of elements raises one per element).
  const issue = fields as FormIssue;
  issue.path = path;
  issue.message = message;
  issue.input = input;
  issues.push(issue);
}

/** zod's minimum-length check, which runs on anything with a length, even after a type issue. */
function minLength(value: unknown, minimum: number, message: string | undefined, issues: FormIssue[]): void {
  const length = (value as { length?: unknown } | null | undefined)?.length;
  if (typeof length !== "number") return;
  // zod counts a string's code points once its UTF-16 units alone cannot decide.
  const count = typeof value === "string" && length >= minimum && length < minimum * 2 ? [...value].length : length;
  if (count >= minimum) return;
  const origin = Array.isArray(value) ? "array" : typeof value === "string" ? "string" : "unknown";
  raise(issues, value, { origin, code: "too_small", minimum, inclusive: true }, message);
}

/** Whether `value` is an object that is neither null nor an array, as zod's objects require. */
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Prefixes `key` to the paths of the issues from `start` on, as a container does with its children's. */
function prefix(issues: { path: PropertyKey[] }[], start: number, key: PropertyKey): void {
  for (let i = start; i < issues.length; i++) issues[i]!.path.unshift(key);
}

/** A string, of at least `minimum` characters when given (with `message` for one that is shorter). */
/* @__NO_SIDE_EFFECTS__ */
export function str(minimum?: number, message?: string): Form {
  return (value, issues) => {
    if (typeof value !== "string") raise(issues, value, { expected: "string", code: "invalid_type" });
    if (minimum !== undefined) minLength(value, minimum, message, issues);
    return value;
  };
}

/** One of `values` (a literal has one). */
/* @__NO_SIDE_EFFECTS__ */
export function oneOf(values: readonly unknown[]): Form {
  return (value, issues) => {
    if (!values.includes(value)) raise(issues, value, { code: "invalid_value", values });
    return value;
  };
}

/**
 * One of `values`, a closed set that a newer version may add to (AG-UI 1.1 counts its values as
 * union members): in a tolerant judgement another non-empty string is a member of unknown kind,
 * stripped where it sits; otherwise as {@link oneOf}.
 */
/* @__NO_SIDE_EFFECTS__ */
export function member(values: readonly string[]): Form {
  const known = oneOf(values);
  return (value, issues) => {
    if (removed && typeof value === "string" && value !== "" && !values.includes(value)) {
      unknownMember = JSON.stringify(value);
      return STRIP;
    }
    return known(value, issues);
  };
}

/** A boolean. */
export const bool: Form = (value, issues) => {
  if (typeof value !== "boolean") raise(issues, value, { expected: "boolean", code: "invalid_type" });
  return value;
};

/** A safe integer of at least `minimum`, with `below` as the message for a smaller one (int.ts). */
/* @__NO_SIDE_EFFECTS__ */
export function int(minimum: number, below?: string): Form {
  return (value, issues) => {
    if (typeof value !== "number" || !Number.isFinite(value)) raise(issues, value, { code: "invalid_type", expected: "number" });
    else if (!Number.isInteger(value)) raise(issues, value, { code: "invalid_type", expected: "int" });
    else if (value > Number.MAX_SAFE_INTEGER) raise(issues, value, { code: "too_big", origin: "int", maximum: Number.MAX_SAFE_INTEGER, inclusive: true });
    else if (value < minimum) raise(issues, value, { code: "too_small", origin: "int", minimum, inclusive: true }, below);
    return value;
  };
}

/** A form of a JSON kind: the value itself, with the problem `find` finds in it raised. */
/* @__NO_SIDE_EFFECTS__ */
function jsonForm(find: (value: unknown) => JsonProblem | undefined): Form {
  return (value, issues) => {
    const problem = find(value);
    if (problem) raise(issues, value, { code: "custom" }, problem.message, problem.path);
    return value;
  };
}

/** Any JSON value (json.ts's JsonValueSchema). */
export const json: Form = /* @__PURE__ */ jsonForm(findJsonProblem);

/** Any JSON value but null (json.ts's NonNullJsonSchema). */
export const nonNullJson: Form = /* @__PURE__ */ jsonForm(findNonNullJsonProblem);

/** A JSON object (json.ts's JsonObjectSchema). */
export const jsonObject: Form = /* @__PURE__ */ jsonForm(findJsonObjectProblem);

/** A JSON Pointer (events.ts's JsonPointerSchema). */
export const pointer: Form = (value, issues) => {
  if (typeof value !== "string") raise(issues, value, { expected: "string", code: "invalid_type" });
  else if (!JSON_POINTER.test(value)) raise(issues, value, { code: "invalid_format", format: "regex", pattern: JSON_POINTER.source }, JSON_POINTER_EXPECTED);
  return value;
};

/** `form`, or absent (`undefined`). */
/* @__NO_SIDE_EFFECTS__ */
export function opt(form: Form): Form {
  const optional: Form = (value, issues) => (value === undefined ? undefined : form(value, issues));
  optional.mode = 1;
  return optional;
}

/** `form`, or, when absent, what `make` returns. */
/* @__NO_SIDE_EFFECTS__ */
export function dflt(form: Form, make: () => unknown): Form {
  const defaulted: Form = (value, issues) => (value === undefined ? make() : form(value, issues));
  defaulted.mode = 2;
  return defaulted;
}

/**
 * An object of the fields `shape`, unknown keys dropped, as zod's compiled object parser builds it:
 * fields in the shape's order; a required field absent is `nonoptional`; an optional one absent
 * stays absent, present as `undefined` stays so.
 */
/* @__NO_SIDE_EFFECTS__ */
export function obj(shape: Record<string, Form>): Form {
  const keys = Object.keys(shape);
  const forms = keys.map((key) => shape[key]!);
  return (value, issues) => {
    if (!isObject(value)) {
      raise(issues, value, { expected: "object", code: "invalid_type" });
      return value;
    }
    const out: Record<string, unknown> = {};
    const tolerant = removed;
    const entry = issues.length;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const form = forms[i]!;
      const present = key in value;
      const start = issues.length;
      const from = tolerant?.length ?? 0;
      let result = form(value[key], issues);
      prefix(issues, start, key);
      if (tolerant) {
        if (result === STRIP) {
          // A required field's unknown member takes the object holding it along.
          // What was wrong inside it goes with it.
          if (form.mode === undefined) {
            issues.length = entry;
            return STRIP;
          }
          strip(from, [key]);
          if (form.mode === 1) continue;
          result = form(undefined, issues);
        } else prefix(tolerant, from, key);
      }
      if (form.mode === 2) out[key] = result;
      else if (present) out[key] = result;
      else if (form.mode === undefined && issues.length === start) {
        raise(issues, undefined, { code: "invalid_type", expected: "nonoptional" }, INVALID, [key]);
      }
    }
    if (tolerant) for (const key in value) if (!keys.includes(key)) tolerant.push({ kind: "property", path: [key], found: key });
    return out;
  };
}

/**
 * An array of `element` whose issues are bounded as array.ts's are (the first bad elements', then
 * a count), at least `minimum` long when given.
 */
/* @__NO_SIDE_EFFECTS__ */
export function arr(element: Form, minimum?: number, message?: string): Form {
  return (value, issues) => {
    let out: unknown = value;
    if (!Array.isArray(value)) raise(issues, value, { expected: "array", code: "invalid_type" });
    else {
      const n = value.length;
      const items: unknown[] = new Array(n);
      const own: FormIssue[] = [];
      let kept = 0;
      let omitted = 0;
      const tolerant = removed;
      let gone = 0;
      for (let i = 0; i < n; i++) {
        const found: FormIssue[] = [];
        const from = tolerant?.length ?? 0;
        const item = element(value[i], found);
        if (tolerant) {
          if (item === STRIP) {
            strip(from, [i]);
            gone++;
            continue;
          }
          prefix(tolerant, from, i);
        }
        items[i - gone] = item;
        if (found.length === 0) continue;
        if (kept < MAX_ARRAY_ISSUES) {
          for (const issue of found) {
            issue.path.unshift(i);
            own.push(issue);
          }
          kept += found.length;
        } else omitted += problemCount(found);
      }
      for (const issue of own) issues.push(issue);
      if (omitted > 0) {
        const summary = omittedIssue(omitted, value);
        raise(issues, value, summary, summary.message);
      }
      if (gone > 0) items.length = n - gone;
      out = own.length === 0 && omitted === 0 ? items : value;
    }
    if (minimum !== undefined) minLength(value, minimum, message, issues);
    return out;
  };
}

/**
 * A union of objects on the tag `key`: the option at `tags[i]` is `options[i]` (tagged.ts).
 */
/* @__NO_SIDE_EFFECTS__ */
export function tagged(key: string, tags: readonly string[], options: readonly Form[]): Form {
  return (value, issues) => {
    if (!isObject(value)) {
      raise(issues, value, { code: "invalid_type", expected: "object" });
      return value;
    }
    const tag = value[key];
    const i = tags.indexOf(tag as string);
    if (i >= 0) return options[i]!(value, issues);
    // A kind this version does not know is a newer peer's, not a malformed value: strip it. An
    // empty tag names no kind (and is how protobuf reads an absent one): that stays malformed.
    if (removed && typeof tag === "string" && tag !== "") {
      unknownMember = `${key} ${JSON.stringify(tag)}`;
      return STRIP;
    }
    raise(issues, value, { code: "invalid_union", errors: [], note: "No matching discriminator", discriminator: key, options: tags }, INVALID, [key]);
    return value;
  };
}

/** Text, or a list of `parts` (text-or-parts.ts). */
/* @__NO_SIDE_EFFECTS__ */
export function textOrParts(parts: Form): Form {
  return (value, issues) => {
    if (typeof value === "string") return value;
    if (Array.isArray(value)) return parts(value, issues);
    raise(issues, value, { code: "invalid_type", expected: "string or array" });
    return value;
  };
}

/**
 * An event's form: `type` as its literal, then `fields`, then the optional `subagentRunId` (unless
 * `subagent` is false) and the base fields every event has, in that order, as the model's event
 * schemas list them. The generated forms use it rather than repeating those fields thirty-one
 * times (tools/gen-model-forms.ts checks each event ends with them as written here).
 */
/* @__NO_SIDE_EFFECTS__ */
export function ev(type: string, fields: Record<string, Form>, subagent = true): Form {
  return obj({
    type: oneOf([type]),
    ...fields,
    ...(subagent && { subagentRunId: opt(str()) }),
    timestamp: opt(int(-Number.MAX_SAFE_INTEGER)),
    rawEvent: opt(nonNullJson),
    metadata: opt(jsonObject),
  });
}

/**
 * The record of each event type's form, from each one's own fields (see {@link ev}) listed in
 * `EVENT_TYPES`' order, as `[fields, false]` for an event without the optional `subagentRunId`:
 * the generated file then names no type twice.
 *
 * @throws Never.
 */
export function byEventType(events: readonly (Record<string, Form> | readonly [Record<string, Form>, false])[]): Readonly<Record<EventType, Form>> {
  return Object.fromEntries(
    EVENT_TYPES.map((type, i) => {
      const event = events[i]!;
      return [type, Array.isArray(event) ? ev(type, event[0], false) : ev(type, event as Record<string, Form>)];
    }),
  ) as Record<EventType, Form>;
}
