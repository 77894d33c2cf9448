/**
 * The model's own zod types: a zod/mini type whose parse is ours (unions on a tag, safe integers,
 * text or parts, bounded arrays). Each replaces a zod class whose machinery the model does not need
 * and a browser bundle would pay for, and raises the issues that class would.
 *
 * @module
 */
import * as z from "zod/mini";
import * as core from "zod/v4/core";

interface Initialiser {
  init(inst: unknown, def: unknown): void;
}
const miniType = z.ZodMiniType as unknown as Initialiser;

/** What builds a type's parse from the instance and its definition, once, when it is created. */
type ParseOf<I extends core.$ZodType, D> = (inst: I, def: D) => (payload: core.ParsePayload, ctx: core.ParseContextInternal) => core.ParsePayload;

/**
 * A zod/mini type class named `name` (zod's `$constructor`): an instance is a plain zod/mini type
 * (so `z.optional`, `.check` and the object parsers take it) whose parse is `parse(inst, def)`.
 *
 * @throws Never when defined; an instance throws what `parse` throws when created.
 */
/* @__NO_SIDE_EFFECTS__ */
export function ownType<I extends core.$ZodType, D extends core.$ZodTypeDef>(name: string, parse: ParseOf<I, D>): new (def: D) => I {
  return core.$constructor(name, (inst: I, def: D) => {
    miniType.init(inst, def);
    inst._zod.parse = parse(inst, def);
  }) as unknown as new (def: D) => I;
}
