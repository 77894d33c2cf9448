/**
 * Object schemas for the model, as browsers get them (package.json `browser` field): zod/mini's
 * own object parser, without the compiled one that `object.ts` uses.
 *
 * The compiled parser is about seven times faster and costs about 1.2 KB min+gzip. A server
 * validates every event of many runs and keeps it; a browser validates one user's run, where the
 * interpreter's speed is far beyond any stream's rate, and the bytes are what it pays for.
 *
 * @module
 */
import * as z from "zod/mini";
import type * as core from "zod/v4/core";

/** A zod/mini object schema over `shape` that drops unknown keys. */
/* @__NO_SIDE_EFFECTS__ */
export function object<S extends core.$ZodLooseShape>(shape: S): z.ZodMiniObject<S, core.$strip> {
  return z.object(shape);
}
