/**
 * "Any JSON" values as zod schemas: state, raw events, custom values, patch values, tool
 * parameters. What counts as JSON is decided in json-problem.ts.
 *
 * @module
 */
import * as z from "zod/mini";
import { findJsonObjectProblem, findJsonProblem, findNonNullJsonProblem, type JsonObject, type JsonProblem, type JsonValue } from "./json-problem.js";

export { MAX_JSON_DEPTH, findJsonProblem, type JsonObject, type JsonProblem, type JsonValue } from "./json-problem.js";

/** A zod check that raises the problem `find` finds in a value, at its path. */
/* @__NO_SIDE_EFFECTS__ */
function problemCheck(find: (value: unknown) => JsonProblem | undefined) {
  return z.superRefine((value: unknown, ctx) => {
    const problem = find(value);
    if (problem) ctx.addIssue({ code: "custom", path: problem.path, message: problem.message, input: value });
  });
}

/** Any JSON value (see {@link findJsonProblem} for what is refused). */
export const JsonValueSchema: z.ZodMiniType<JsonValue> = z.custom<JsonValue>().check(problemCheck(findJsonProblem));

/** A JSON object: a plain object whose values are JSON (a JSON Schema, for example). */
export const JsonObjectSchema: z.ZodMiniType<JsonObject> = z.custom<JsonObject>().check(problemCheck(findJsonObjectProblem));

/** Any JSON value except `null`: 1.0's optional fields that are absent or a value, never null. */
export const NonNullJsonSchema: z.ZodMiniType<Exclude<JsonValue, null>> = z.custom<Exclude<JsonValue, null>>().check(problemCheck(findNonNullJsonProblem));
