/**
 * A message body: text, or a list of content parts (AG-UI 1.0's `string | ContentPart[]`).
 *
 * @module
 */
import * as z from "zod/mini";
import type * as core from "zod/v4/core";
import { array } from "./array.js";
import { ContentPartSchema } from "./content.js";
import { ownType } from "./own-type.js";
import { runSchema } from "./run-schema.js";

const PartsSchema = array(ContentPartSchema);

/**
 * Picks the branch by the value's JSON type instead of trying both, as `z.union` would: a list of
 * parts with one bad part is then reported at that part (`content[1]: expected "text" or …, found
 * "gif"`), where a union can only say that neither branch matched the whole list.
 */
const TextOrParts = /* @__PURE__ */ ownType<core.$ZodUnion, core.$ZodUnionDef>("AguiTextOrParts", (inst) => (payload, ctx) => {
  const input = payload.value;
  if (typeof input === "string") return payload;
  if (Array.isArray(input)) {
    const result = runSchema(PartsSchema, input, ctx);
    payload.value = result.value;
    for (const issue of result.issues) payload.issues.push(issue);
    return payload;
  }
  payload.issues.push({ code: "invalid_type", expected: "string or array", input, inst } as unknown as core.$ZodRawIssue);
  return payload;
});

/** Text, or content parts: a union of `string` and a (bounded) array of {@link ContentPartSchema}. */
export const TextOrPartsSchema = new TextOrParts({ type: "union", options: [z.string(), PartsSchema] }) as unknown as z.ZodMiniUnion<
  [z.ZodMiniString, z.ZodMiniArray<typeof ContentPartSchema>]
>;
