/**
 * Array schemas that stop collecting problems after a few: zod/mini's `z.array`, except that a
 * hostile array of a million bad elements costs a count, not a million issues.
 *
 * zod reports every issue of every element, with its path, and finalises (words) each one when the
 * error is read. A 1 MiB request body of half a million bad messages then held hundreds of MB of
 * issues and blocked the event loop for seconds. The arrays of the model (messages, tools,
 * context, tool calls, patch operations) are built here instead: each keeps the issues of its first
 * bad elements, up to {@link MAX_ARRAY_ISSUES}, and only counts the problems of the rest, in one
 * last issue that says how many there were ({@link omittedProblems} reads it back). Counting runs
 * each remaining element through its schema and drops the result at once, so it costs time in
 * proportion to the input (what validating a valid array of that size costs) and no memory that
 * stays.
 *
 * @module
 */
import type * as z from "zod/mini";
import type * as core from "zod/v4/core";
import { ownType } from "./own-type.js";
import { runSchema } from "./run-schema.js";
import { MAX_ARRAY_ISSUES, omittedIssue, problemCount } from "./problems.js";

export { MAX_ARRAY_ISSUES, omittedProblems, problemCount } from "./problems.js";

type RawIssue = core.$ZodRawIssue;

// One of the model's own types (own-type.ts): zod's array class would only add bytes.
const BoundedArray = /* @__PURE__ */ ownType<core.$ZodArray, core.$ZodArrayDef>("AguiBoundedArray", (inst, def) => (payload, ctx) => {
  const input = payload.value;
  if (!Array.isArray(input)) {
    payload.issues.push({ expected: "array", code: "invalid_type", input, inst } as RawIssue);
    return payload;
  }
  const n = input.length;
  let out: unknown[] | undefined = new Array(n);
  let kept = 0;
  let omitted = 0;
  for (let i = 0; i < n; i++) {
    const result = runSchema(def.element, input[i], ctx);
    const issues = result.issues;
    if (issues.length === 0) {
      if (out !== undefined) out[i] = result.value;
      continue;
    }
    // The array is rejected from here on, so nothing more of its output is built.
    out = undefined;
    if (kept < MAX_ARRAY_ISSUES) {
      for (let j = 0; j < issues.length; j++) {
        // Prefixed in place, as zod's own containers do with their children's issues.
        const issue = issues[j]! as { path?: PropertyKey[] };
        issue.path = issue.path ? [i, ...issue.path] : [i];
        payload.issues.push(issue as RawIssue);
      }
      kept += issues.length;
    } else {
      omitted += problemCount(issues);
    }
  }
  if (omitted > 0) {
    payload.issues.push({ ...omittedIssue(omitted, input), inst } as RawIssue);
  }
  payload.value = out ?? input;
  return payload;
});

/**
 * An array of `element`, as `z.array(element)`, whose issues are bounded: the first bad elements'
 * issues (about {@link MAX_ARRAY_ISSUES}), then one `custom` issue whose `params` say how many
 * more problems the later elements had (see {@link omittedProblems}).
 *
 * @throws Never when built; parsing throws only what `z.array` would.
 */
/* @__NO_SIDE_EFFECTS__ */
export function array<T extends core.$ZodType>(element: T): z.ZodMiniArray<T> {
  return new BoundedArray({ type: "array", element }) as unknown as z.ZodMiniArray<T>;
}
