/**
 * Unions on a tag (`type`, `role`, `op`): each option is an object schema whose tag is a literal,
 * and the tag's value picks the option, as zod's `z.discriminatedUnion` does.
 *
 * The model's unions need no more than that: every option has its own literal, and no union falls
 * back to trying each option. zod's class also carries that fallback and the machinery for options
 * of every kind, which a browser bundle pays for (about 0.9 KB min+gzip with `z.union`); this one
 * is the lookup alone. It reports what zod's reports: a value that is not an object, or a tag of
 * no option (`expected "text" or "image", found "gif"` at the tag's path).
 *
 * @module
 */
import type * as z from "zod/mini";
import type * as core from "zod/v4/core";
import { ownType } from "./own-type.js";

interface TaggedDef extends core.$ZodTypeDef {
  discriminator: string;
  options: readonly core.$ZodType[];
}

/** The literal values of `option`'s tag `key`. */
function tagsOf(option: core.$ZodType, key: string): readonly unknown[] {
  const shape = (option._zod.def as { shape?: Record<string, core.$ZodType> }).shape;
  const values = (shape?.[key]?._zod.def as { values?: unknown[] } | undefined)?.values;
  if (!values) throw new Error(`tagged union option has no literal "${key}"`);
  return values;
}

const Tagged = /* @__PURE__ */ ownType<core.$ZodType, TaggedDef>("AguiTagged", (inst, def) => {
  const byTag = new Map<unknown, core.$ZodType>();
  for (const option of def.options) for (const tag of tagsOf(option, def.discriminator)) byTag.set(tag, option);
  return (payload, ctx) => {
    const input = payload.value;
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      payload.issues.push({ code: "invalid_type", expected: "object", input, inst } as core.$ZodRawIssue);
      return payload;
    }
    const option = byTag.get((input as Record<string, unknown>)[def.discriminator]);
    if (option) return option._zod.run(payload, ctx) as core.ParsePayload;
    payload.issues.push({
      code: "invalid_union",
      errors: [],
      note: "No matching discriminator",
      discriminator: def.discriminator,
      options: [...byTag.keys()],
      input,
      path: [def.discriminator],
      inst,
    } as unknown as core.$ZodRawIssue);
    return payload;
  };
});

/**
 * A union of object schemas on the tag `key`, each option with its own literal tag.
 *
 * @throws {Error} At definition, when an option has no literal for `key`.
 */
/* @__NO_SIDE_EFFECTS__ */
export function tagged<const Key extends string, const Options extends readonly [core.$ZodTypeDiscriminable, ...core.$ZodTypeDiscriminable[]]>(
  key: Key,
  options: Options,
): z.ZodMiniDiscriminatedUnion<Options, Key> {
  return new Tagged({ type: "union", discriminator: key, options } as unknown as TaggedDef) as unknown as z.ZodMiniDiscriminatedUnion<Options, Key>;
}
