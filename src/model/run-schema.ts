/**
 * Running a schema of the model the way zod's own containers run their children: through its
 * internal entry point, with no result object and no finalised issues.
 *
 * Used where that cost matters: by `parseEvent`/`parseRunAgentInput` (a `safeParse` with any
 * context measured three times slower on valid input, zod 4.6), by the bounded arrays for each
 * element, and by the binary reader for each element it checks as it reads. Issues come back raw;
 * the caller finalises those it reports.
 *
 * @module
 */
import * as core from "zod/v4/core";

/** The context of a plain synchronous parse. */
const SYNC: core.ParseContextInternal = { async: false };

/**
 * Runs `schema` over `value` synchronously.
 *
 * @param ctx - The parse context: a container passes on its own; default a plain synchronous one.
 * @returns zod's payload: the output in `value` when `issues` is empty.
 * @throws {core.$ZodAsyncError} When the schema turns out to be asynchronous: the model has no
 *   asynchronous parts, so that is a programming error.
 */
export function runSchema(schema: core.$ZodType, value: unknown, ctx: core.ParseContextInternal = SYNC): core.ParsePayload {
  const payload = schema._zod.run({ value, issues: [] }, ctx);
  if (payload instanceof Promise) throw new core.$ZodAsyncError();
  return payload;
}
