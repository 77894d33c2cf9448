/**
 * "Any JSON" values as zod schemas: state, raw events, custom values, patch values, tool
 * parameters. What counts as JSON is decided in json-problem.ts.
 *
 * @module
 */
import * as z from "zod/mini";
import { describeNonJson, findJsonProblem, type JsonObject, type JsonValue } from "./json-problem.js";

export { MAX_JSON_DEPTH, findJsonProblem, type JsonObject, type JsonProblem, type JsonValue } from "./json-problem.js";

/** Any JSON value (see {@link findJsonProblem} for what is refused). */
export const JsonValueSchema: z.ZodMiniType<JsonValue> = z.custom<JsonValue>().check(
  z.superRefine((value, ctx) => {
    const problem = findJsonProblem(value);
    if (problem) ctx.addIssue({ code: "custom", path: problem.path, message: problem.message, input: value });
  }),
);

/** A JSON object: a plain object whose values are JSON (a JSON Schema, for example). */
export const JsonObjectSchema: z.ZodMiniType<JsonObject> = z.custom<JsonObject>().check(
  z.superRefine((value, ctx) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      ctx.addIssue({ code: "custom", message: `expected a JSON object, found ${describeNonJson(value)}`, input: value });
      return;
    }
    const problem = findJsonProblem(value);
    if (problem) ctx.addIssue({ code: "custom", path: problem.path, message: problem.message, input: value });
  }),
);

/** Any JSON value except `null`: 1.0's optional fields that are absent or a value, never null. */
export const NonNullJsonSchema: z.ZodMiniType<Exclude<JsonValue, null>> = z.custom<Exclude<JsonValue, null>>().check(
  z.superRefine((value, ctx) => {
    const problem = value === null ? { path: [], message: "expected a JSON value other than null, found null" } : findJsonProblem(value);
    if (problem) ctx.addIssue({ code: "custom", path: problem.path, message: problem.message, input: value });
  }),
);
