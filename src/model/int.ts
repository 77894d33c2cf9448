/**
 * Integers as the wire holds them (int64, read as a JavaScript number): finite, whole, and within
 * the safe range, optionally from a minimum up.
 *
 * zod's `z.int()` checks the same and reports the same issues (a non-number is `expected number`,
 * a fraction `expected int`, an unsafe one too big or too small), and so does this; zod's carries
 * a table of every number format and a check class, which a browser bundle pays about 0.5 KB
 * min+gzip for.
 *
 * @module
 */
import type * as z from "zod/mini";
import type * as core from "zod/v4/core";
import { ownType } from "./own-type.js";

interface IntDef extends core.$ZodTypeDef {
  minimum: number;
  /** The message for a value below `minimum`, when it is not the safe range's bound. */
  below?: string;
}

const SafeInt = /* @__PURE__ */ ownType<core.$ZodType, IntDef>("AguiSafeInt", (inst, def) => (payload) => {
  const input = payload.value;
  let issue: Record<string, unknown> | undefined;
  if (typeof input !== "number" || !Number.isFinite(input)) issue = { code: "invalid_type", expected: "number" };
  else if (!Number.isInteger(input)) issue = { code: "invalid_type", expected: "int" };
  else if (input > Number.MAX_SAFE_INTEGER) issue = { code: "too_big", origin: "int", maximum: Number.MAX_SAFE_INTEGER, inclusive: true };
  else if (input < def.minimum) issue = { code: "too_small", origin: "int", minimum: def.minimum, inclusive: true, message: def.below };
  if (issue) payload.issues.push({ ...issue, input, inst } as unknown as core.$ZodRawIssue);
  return payload;
});

/**
 * A safe integer, at least `minimum` (default: the safe range's lower bound).
 *
 * @param below - The message for a value under `minimum` ("expected …"; what was found is added).
 */
/* @__NO_SIDE_EFFECTS__ */
export function int(minimum: number = Number.MIN_SAFE_INTEGER, below?: string): z.ZodMiniType<number> {
  return new SafeInt({ type: "number", minimum, below } as IntDef) as unknown as z.ZodMiniType<number>;
}
