/**
 * How the model's arrays bound what a rejected value costs: each keeps the issues of its first bad
 * elements and only counts the problems of the rest, in one summary issue (see src/model/array.ts
 * for why). Free of zod: browsers' validators and the error wording (issues.ts) use it too.
 *
 * @module
 */

/** How many issues one array keeps before it only counts the problems of its later elements. */
export const MAX_ARRAY_ISSUES = 10;

/** The `params` key of the issue that stands for the problems an array counted but did not keep. */
const OMITTED = "aguiOmittedProblems";

/**
 * How many problems `issues` stand for: one per issue, except an array's summary issue, which
 * stands for the problems it counted and did not keep.
 *
 * @throws Never.
 */
export function problemCount(issues: readonly { code?: string; params?: unknown }[]): number {
  let n = 0;
  for (let i = 0; i < issues.length; i++) n += omittedProblems(issues[i]!) ?? 1;
  return n;
}

/**
 * The number of problems an issue stands for when it is an array's summary of the problems it did
 * not keep, else `undefined`.
 *
 * @throws Never.
 */
export function omittedProblems(issue: { code?: string; params?: unknown }): number | undefined {
  if (issue.code !== "custom" || typeof issue.params !== "object" || issue.params === null) return undefined;
  const n = (issue.params as Record<string, unknown>)[OMITTED];
  return typeof n === "number" ? n : undefined;
}

/**
 * The summary issue of an array that counted `omitted` problems in its later elements without
 * keeping their issues.
 *
 * @throws Never.
 */
export function omittedIssue(omitted: number, input: unknown): { code: "custom"; message: string; params: Record<string, number>; input: unknown } {
  return { code: "custom", message: `and ${omitted} more problems in later elements`, params: { [OMITTED]: omitted }, input };
}
