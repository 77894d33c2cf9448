/**
 * Object schemas for the model: zod/mini's API and size, with zod's compiled (JIT) object parser.
 *
 * zod/mini keeps the browser bundle small but parses objects with its generic interpreter, about
 * seven times slower than the compiled parser classic zod uses. Every event is validated on both
 * transports, so the model builds its objects on the compiled parser. Where `eval` is not allowed
 * (strict CSP, some edge runtimes) zod falls back to the interpreter by itself.
 *
 * @module
 */
import * as z from "zod/mini";
import * as core from "zod/v4/core";

interface Initialiser {
  init(inst: unknown, def: unknown): void;
}
// Exported by zod's core at run time (classic zod builds its objects on it) but not declared in
// its types; should a later zod drop it, objects fall back to the interpreter rather than break.
const compiledObject =
  (core as unknown as { $ZodObjectJIT?: Initialiser }).$ZodObjectJIT ?? (core.$ZodObject as unknown as Initialiser);
const miniType = z.ZodMiniType as unknown as Initialiser;

const JitObject = /* @__PURE__ */ core.$constructor("AguiObject", (inst: core.$ZodObject, def: core.$ZodObjectDef) => {
  compiledObject.init(inst, def);
  miniType.init(inst, def);
  Object.defineProperty(inst, "shape", { value: def.shape, enumerable: false });
});

/**
 * A zod/mini object schema over `shape` that drops unknown keys, parsed by zod's compiled object
 * parser.
 */
/* @__NO_SIDE_EFFECTS__ */
export function object<S extends core.$ZodLooseShape>(shape: S): z.ZodMiniObject<S, core.$strip> {
  return new JitObject({ type: "object", shape }) as unknown as z.ZodMiniObject<S, core.$strip>;
}
