/**
 * `@ag-ui/core` 1.0's `omitOptionalNulls`: an event or a run request with its optional fields that
 * are `null` removed, as a sender tidies what code written for older releases still sets to null.
 *
 * Which fields are optional is read from our model's schemas (the first call walks them once), so
 * it follows the model: besides 1.0's fields, the 1.1 fields the model knows (`encryptedValueType`,
 * a patch operation's foreign `from`/`value`) lose their nulls too, where theirs keeps them as
 * fields it does not know.
 *
 * @module
 */
import { EventSchema, RunAgentInputSchema } from "../model/index.js";

/** What the walk needs of a zod schema: its definition and its traits (the model's own types). */
interface Schema {
  _zod: {
    def: {
      type: string;
      shape?: Record<string, Schema>;
      innerType?: Schema;
      element?: Schema;
      options?: readonly Schema[];
      discriminator?: string;
      values?: readonly unknown[];
    };
    traits: Set<string>;
  };
}

/** Where nulls may be removed in one schema: which keys are optional, and where to look deeper. */
type Shape =
  | { kind: "object"; optional: ReadonlySet<string>; fields: ReadonlyMap<string, Shape> }
  | { kind: "array"; element: Shape }
  | { kind: "tagged"; key: string; options: ReadonlyMap<unknown, Shape> }
  // Text or parts: only the parts (an array) hold anything to tidy.
  | { kind: "parts"; parts: Shape };

const shapes = new WeakMap<Schema, Shape | null>();

/** The shape of `schema`, or `null` for a leaf or opaque JSON (never looked into, as theirs). */
function shapeOf(schema: Schema): Shape | null {
  let shape = shapes.get(schema);
  if (shape === undefined) shapes.set(schema, (shape = derive(schema)));
  return shape;
}

function unwrap(schema: Schema): { inner: Schema; optional: boolean } {
  const { type, innerType } = schema._zod.def;
  // A defaulted field (RunAgentInput's `tools`, `context`) may be left out, so it is optional too.
  return (type === "optional" || type === "default") && innerType ? { inner: unwrap(innerType).inner, optional: true } : { inner: schema, optional: false };
}

function derive(schema: Schema): Shape | null {
  const { def, traits } = schema._zod;
  if (traits.has("AguiTagged")) {
    const options = new Map<unknown, Shape>();
    for (const option of def.options ?? []) {
      const shape = shapeOf(option);
      for (const tag of option._zod.def.shape?.[def.discriminator!]?._zod.def.values ?? []) if (shape) options.set(tag, shape);
    }
    return { kind: "tagged", key: def.discriminator!, options };
  }
  if (traits.has("AguiTextOrParts")) {
    const parts = def.options?.[1] && shapeOf(def.options[1]);
    return parts ? { kind: "parts", parts } : null;
  }
  if (traits.has("AguiBoundedArray") || def.type === "array") {
    const element = def.element && shapeOf(def.element);
    return element ? { kind: "array", element } : null;
  }
  if (def.type !== "object" || !def.shape) return null;
  const optional = new Set<string>();
  const fields = new Map<string, Shape>();
  for (const [key, field] of Object.entries(def.shape)) {
    const { inner, optional: isOptional } = unwrap(field);
    if (isOptional) optional.add(key);
    const shape = shapeOf(inner);
    if (shape) fields.set(key, shape);
  }
  return { kind: "object", optional, fields };
}

const own = (object: object, key: string) => Object.hasOwn(object, key);

/** `value` without the optional nulls `shape` finds, copied only where something is removed. */
function omit(value: unknown, shape: Shape): unknown {
  switch (shape.kind) {
    case "parts":
      return Array.isArray(value) ? omit(value, shape.parts) : value;
    case "array": {
      if (!Array.isArray(value)) return value;
      const items = value.map((item) => omit(item, shape.element));
      return items.every((item, i) => item === value[i]) ? value : items;
    }
    case "tagged": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
      const tag = (value as Record<string, unknown>)[shape.key];
      const option = typeof tag === "string" ? shape.options.get(tag) : undefined;
      return option ? omit(value, option) : value;
    }
    case "object": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
      const object = value as Record<string, unknown>;
      let result = object;
      for (const key of shape.optional) {
        if (own(object, key) && object[key] === null) {
          if (result === object) result = { ...object };
          delete result[key];
        }
      }
      for (const [key, field] of shape.fields) {
        if (!own(result, key)) continue;
        const tidied = omit(result[key], field);
        if (tidied !== result[key]) {
          if (result === object) result = { ...object };
          result[key] = tidied;
        }
      }
      return result;
    }
  }
}

/**
 * `value` (an event, or a run request) without its optional fields that are `null`, at every level
 * the protocol describes: messages, parts, tool calls, outcomes, the input RUN_STARTED echoes. A
 * required field's `null`, and nulls inside opaque JSON (state, a custom event's value, `rawEvent`),
 * stay; so do unknown fields, and anything under a `type` or `role` the model does not know.
 *
 * Does not validate and changes nothing it is given: what it changes is copied, the rest shared.
 * Never throws.
 *
 * @param root - What `value` is: `"Event"` or `"RunAgentInput"`.
 */
export function omitOptionalNulls<T>(value: T, root: "Event" | "RunAgentInput"): T {
  const shape = shapeOf((root === "Event" ? EventSchema : RunAgentInputSchema) as unknown as Schema);
  return (shape ? omit(value, shape) : value) as T;
}
