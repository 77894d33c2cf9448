/**
 * Writes `src/gen/model/event_checks.ts`: one check-only function per event type, derived from the
 * zod schemas in `src/model/events.ts`, that tells whether a value already is exactly the event
 * `parseEvent` would return (every field valid, no other key, no default left to fill in), and, in
 * its ordered form, whether its keys also come in the schema's order, nested objects included.
 *
 * Compiled forms: a literal, an enum of strings, a string with at most a minimum length, a JSON
 * Pointer, a safe integer, a boolean, a JSON value (any, not null, or an object), the model's own
 * objects, bounded arrays (without a length check) and unions on a tag (src/model/object.ts,
 * array.ts, tagged.ts), text or parts (text-or-parts.ts), those made optional, and a default whose
 * value must then be present. A nested object compiles to a small function of its own, an array
 * to a loop, a union to a switch on its tag. An optional field of any other form sends the event
 * to zod when it is present; an event type with a required field of another form gets no function
 * and always goes to zod. Run by `npm run generate` after `buf generate`; a test checks that the
 * committed file is what this writes.
 *
 * Usage: `node --import tsx tools/gen-event-checks.ts [outDir]` (default `src/gen`).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as content from "../src/model/content.js";
import * as events from "../src/model/events.js";
import * as input from "../src/model/input.js";
import * as messages from "../src/model/messages.js";
import * as run from "../src/model/run.js";
import { EVENT_SCHEMAS, JsonPointerSchema } from "../src/model/events.js";
import { JsonObjectSchema, JsonValueSchema, NonNullJsonSchema } from "../src/model/json.js";
import { TextOrPartsSchema } from "../src/model/text-or-parts.js";

/** The parts of a zod definition read here. */
interface Def {
  type: string;
  values?: unknown[];
  entries?: Record<string, unknown>;
  format?: string;
  checks?: { _zod: { def: { check: string; minimum?: number } } }[];
  innerType?: unknown;
  shape?: Record<string, unknown>;
  element?: unknown;
  discriminator?: string;
  options?: unknown[];
}

const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;
/** Whether `schema` is an instance of the zod class named `trait` (zod's `$constructor`). */
const is = (schema: unknown, trait: string): boolean => (schema as { _zod: { traits: Set<string> } })._zod.traits.has(trait);
/** Field names become property accesses and local names. */
const isIdentifier = (key: string): boolean => /^[A-Za-z_$][\w$]*$/.test(key);

/** The model's exported schemas by identity, named as exported without `Schema`: helpers' names. */
function exportedNames(): Map<unknown, string> {
  const names = new Map<unknown, string>();
  for (const module of [messages, content, run, input, events] as Record<string, unknown>[]) {
    for (const [name, value] of Object.entries(module)) {
      if (name.endsWith("Schema") && typeof value === "object" && value !== null && !names.has(value)) names.set(value, name.slice(0, -6));
    }
  }
  return names;
}

/**
 * Compiles conditions and the helper functions that nested forms need. Every generated condition
 * may read `ordered`, the flag of the function it sits in: true when key order is checked too.
 */
class Compiler {
  /** The helper functions written so far, each after those it calls. */
  readonly helpers: string[] = [];
  private readonly names = exportedNames();
  /** Each nested form's helper name, or null when the form does not compile. */
  private readonly helperOf = new Map<unknown, string | null>();
  private anonymous = 0;

  /** A schema's name in helpers: its export's, else `fallback`, else a numbered one. */
  private nameOf(schema: unknown, fallback?: string): string {
    let name = this.names.get(schema);
    // Plain strings share one name, and so one array helper.
    if (name === undefined && defOf(schema).type === "string" && (defOf(schema).checks ?? []).length === 0) name = "String";
    if (name === undefined) {
      name = fallback ?? `Shape${this.anonymous++}`;
      this.names.set(schema, name);
    }
    return name;
  }

  /** A TypeScript condition that is true when `name` holds a valid value, or undefined. */
  condition(schema: unknown, name: string): string | undefined {
    // JSON values go through isJson, which walks them, or only counts them for a caller that
    // walks them itself (see isExactEventDeferringJson); the checks of their outer form stay here.
    if (schema === JsonValueSchema) return `isJson(${name})`;
    if (schema === NonNullJsonSchema) return `${name} !== null && isJson(${name})`;
    if (schema === JsonObjectSchema) {
      return `typeof ${name} === "object" && ${name} !== null && !Array.isArray(${name}) && isJson(${name})`;
    }
    if (schema === JsonPointerSchema) return `typeof ${name} === "string" && JSON_POINTER.test(${name})`;
    const def = defOf(schema);
    if (schema === TextOrPartsSchema) {
      const parts = this.helper(def.options?.[1]);
      return parts === undefined ? `typeof ${name} === "string"` : `(typeof ${name} === "string" || ${parts}(${name}, ordered))`;
    }
    if (is(schema, "AguiObject") || is(schema, "AguiTagged") || is(schema, "AguiBoundedArray")) {
      const helper = this.helper(schema);
      return helper === undefined ? undefined : `${helper}(${name}, ordered)`;
    }
    switch (def.type) {
      case "enum": {
        const values = Object.values(def.entries ?? {});
        if (values.length === 0 || !values.every((v) => typeof v === "string")) return undefined;
        return `(${values.map((v) => `${name} === ${JSON.stringify(v)}`).join(" || ")})`;
      }
      case "boolean":
        return `typeof ${name} === "boolean"`;
      case "literal":
        return def.values?.length === 1 && typeof def.values[0] === "string"
          ? `${name} === ${JSON.stringify(def.values[0])}`
          : undefined;
      case "string": {
        const checks = def.checks ?? [];
        if (checks.length === 0) return `typeof ${name} === "string"`;
        const only = checks[0]!._zod.def;
        // Beyond 1, zod counts code points where UTF-16 units cannot decide: left to zod.
        if (checks.length > 1 || only.check !== "min_length" || typeof only.minimum !== "number" || only.minimum > 1) return undefined;
        return `typeof ${name} === "string" && ${name}.length >= ${only.minimum}`;
      }
      case "number": {
        // The model's int() (src/model/int.ts): a safe integer from `minimum` up.
        const minimum = (def as { minimum?: number }).minimum;
        if (typeof minimum !== "number" || (def.checks ?? []).length > 0) return undefined;
        return minimum <= Number.MIN_SAFE_INTEGER ? `Number.isSafeInteger(${name})` : `Number.isSafeInteger(${name}) && (${name} as number) >= ${minimum}`;
      }
      default:
        return undefined;
    }
  }

  /** The name of the helper that checks a model object, bounded array or tagged union, or undefined. */
  private helper(schema: unknown): string | undefined {
    if (schema === undefined) return undefined;
    const array = is(schema, "AguiBoundedArray");
    // An array's helper depends only on its element, so arrays with a length check, which do not
    // compile, must not reach the lookup below and find the helper of one without.
    if (array && (defOf(schema).checks ?? []).length > 0) return undefined;
    const element = array ? this.nameOf(defOf(schema).element) : undefined;
    const key = element !== undefined ? `every:${element}` : schema;
    const known = this.helperOf.get(key);
    if (known !== undefined) return known ?? undefined;
    const name = element !== undefined ? `every${element}` : `is${this.nameOf(schema)}`;
    // Set first, so that a form that contains itself would call its own helper.
    this.helperOf.set(key, name);
    const lines = array ? this.arrayFunction(name, schema) : is(schema, "AguiTagged") ? this.unionFunction(name, schema) : this.objectFunction(name, schema);
    if (lines === undefined) {
      this.helperOf.set(key, null);
      return undefined;
    }
    this.helpers.push(...lines, "");
    return name;
  }

  /** A loop over an array of the model, or undefined when its element does not compile. */
  private arrayFunction(name: string, schema: unknown): string[] | undefined {
    const def = defOf(schema);
    const condition = this.condition(def.element, "e");
    if (condition === undefined) return undefined;
    return [
      `/** Whether \`a\` is exactly what zod returns for an array of ${this.nameOf(def.element)}: no hole, no other key. */`,
      `function ${name}(a: unknown, ordered: boolean): boolean {`,
      "  if (!Array.isArray(a) || Object.getPrototypeOf(a) !== Array.prototype) return false;",
      "  const n = a.length;",
      "  for (let i = 0; i < n; i++) {",
      "    const e: unknown = a[i];",
      `    if (!(${condition})) return false;`,
      "  }",
      // zod's copy drops any key besides the indices, so an array with one is not exact. This
      // costs about 0.1 µs an array (Object.keys builds the index strings); JSON.stringify would
      // not show such a key, but a deep comparison of the event with zod's copy would.
      "  return Object.keys(a).length === n;",
      "}",
    ];
  }

  /** A switch on a union's tag; an option that does not compile gets `false`, which sends it to zod. */
  private unionFunction(name: string, schema: unknown): string[] | undefined {
    const { discriminator, options } = defOf(schema);
    if (discriminator === undefined || !isIdentifier(discriminator) || options === undefined) return undefined;
    const cases: string[] = [];
    for (const option of options) {
      const tags = defOf(defOf(option).shape?.[discriminator]).values ?? [];
      if (!tags.every((tag) => typeof tag === "string")) return undefined;
      const pascal = String(tags[0]).replace(/(^|[-_])([a-z])/g, (_, __, c: string) => c.toUpperCase());
      this.nameOf(option, `${this.nameOf(schema)}${pascal}`);
      // An option that does not compile is left to zod: its case is false.
      const helper = is(option, "AguiObject") ? this.helper(option) : undefined;
      for (const tag of tags) cases.push(`    case ${JSON.stringify(tag)}:`);
      cases.push(`      return ${helper === undefined ? "false" : `${helper}(v, ordered)`};`);
    }
    return [
      `/** Whether \`v\` is exactly what zod returns for ${this.nameOf(schema)}, picked by its \`${discriminator}\`. */`,
      `function ${name}(v: unknown, ordered: boolean): boolean {`,
      '  if (typeof v !== "object" || v === null) return false;',
      `  switch ((v as Record<string, unknown>).${discriminator}) {`,
      ...cases,
      "    default:",
      "      return false;",
      "  }",
      "}",
    ];
  }

  /** The check of a nested model object, or undefined when a required field does not compile. */
  private objectFunction(name: string, schema: unknown): string[] | undefined {
    const shape = defOf(schema).shape;
    if (shape === undefined) return undefined;
    const keys = keysName(name);
    const body = this.fields(shape, keys);
    if (body === undefined) return undefined;
    return [
      keysConst(keys, shape),
      "",
      `/** Whether \`x\` is exactly what zod returns for ${this.nameOf(schema)}: a plain object of its fields alone. */`,
      `function ${name}(x: unknown, ordered: boolean): boolean {`,
      // zod's copy is a plain object: an instance of a class (or a null-prototype object) is not.
      '  if (typeof x !== "object" || x === null || Object.getPrototypeOf(x) !== Object.prototype) return false;',
      "  const v = x as Record<string, unknown>;",
      ...body,
      "}",
    ];
  }

  /**
   * The lines that check the fields of `shape` on `v`, ending in the return; undefined when a
   * required field has no compiled form. `skip` is a field the caller has matched already. Each
   * field is checked in line, with a local of its own: shared helpers (an `opt(value, predicate)`
   * was tried) turn into megamorphic calls once a server has seen every event type, and cost
   * encodeFrame a third of its speed.
   */
  fields(shape: Record<string, unknown>, keys: string, skip?: string): string[] | undefined {
    const lines: string[] = [];
    let required = 0;
    for (const [key, field] of Object.entries(shape)) {
      if (!isIdentifier(key)) return undefined;
      if (key === skip) {
        required++;
        continue;
      }
      const def = defOf(field);
      const local = `f_${key}`;
      lines.push(`  const ${local} = v.${key};`);
      if (def.type === "optional") {
        // A field of a form not compiled here is left to zod whenever it is present.
        const condition = this.condition(def.innerType, local) ?? "false";
        lines.push(`  if (${local} !== undefined) {`, `    if (!(${condition})) return false;`, `    n++;`, `  }`);
      } else {
        // A default is left to zod when absent, since the exact value carries it.
        const condition = this.condition(def.type === "default" ? def.innerType : field, local);
        if (condition === undefined) return undefined;
        lines.push(`  if (!(${condition})) return false;`);
        required++;
      }
    }
    return [`  let n = ${required};`, ...lines, `  return ordered ? keysInOrder(v, ${keys}, n) : keyCount(v) === n;`];
  }
}

/**
 * The body of one event type's check (once `type` has matched), or undefined when a required field
 * has no compiled form.
 */
function checkBody(compiler: Compiler, name: string, type: string, schema: unknown): string[] | undefined {
  const shape = defOf(schema).shape!;
  // isExactEvent dispatches on `type`, so a check reached through it has matched the literal
  // already; any other form of `type` is refused rather than checked twice.
  const typeDef = defOf(shape.type);
  if (typeDef.type !== "literal" || typeDef.values?.length !== 1 || typeDef.values[0] !== type) return undefined;
  // Helpers written for a type that does not compile stay: another type may call them.
  const keys = keysName(name);
  const body = compiler.fields(shape, keys, "type");
  if (body === undefined) return undefined;
  return [
    keysConst(keys, shape),
    "",
    `/** The rest of ${type}'s check, once \`type\` has matched; key order too when \`ordered\`. */`,
    `function ${name}(v: Record<string, unknown>, ordered: boolean): boolean {`,
    ...body,
    "}",
  ];
}

/** The name of the constant that lists the keys of the shape that function `name` checks. */
function keysName(name: string): string {
  return `KEYS_${name.replace(/^is/, "")}`;
}

/** The constant that lists a shape's keys in order, for keysInOrder. */
function keysConst(keys: string, shape: Record<string, unknown>): string {
  return `const ${keys}: readonly string[] = ${JSON.stringify(Object.keys(shape))};`;
}

function functionName(type: string): string {
  return "is" + type.toLowerCase().replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());
}

/**
 * The generated file's text for these event schemas (by event type); exported so that tests can
 * feed it schemas with forms it must refuse.
 */
export function generate(schemas: Record<string, unknown> = EVENT_SCHEMAS): string {
  const out: string[] = [
    "// Check-only fast paths for the event schemas, derived from src/model/events.ts.",
    "//",
    "// @generated by tools/gen-event-checks.ts (npm run generate). Do not edit by hand.",
    "/* eslint-disable */",
    "",
    'import { JSON_POINTER, findJsonProblem } from "../../model/json-problem.js";',
    "",
    "// Unused imports are kept so that the header does not depend on the schemas.",
    "void JSON_POINTER;",
    "void findJsonProblem;",
    "",
    "/** Counts an object's enumerable string keys, own and inherited, without building an array. */",
    "function keyCount(v: object): number {",
    "  let n = 0;",
    "  for (const _ in v) n++;",
    "  return n;",
    "}",
    "",
    "/**",
    " * Whether `v`'s enumerable string keys, own and inherited, are `n` of `keys`, in the order of",
    " * `keys`: the order zod writes its copy in.",
    " */",
    "function keysInOrder(v: object, keys: readonly string[], n: number): boolean {",
    "  let at = 0;",
    "  let count = 0;",
    "  for (const key in v) {",
    "    while (at < keys.length && keys[at] !== key) at++;",
    "    if (at === keys.length) return false;",
    "    at++;",
    "    count++;",
    "  }",
    "  return count === n;",
    "}",
    "",
    "// While isExactEventDeferringJson runs: JSON values are counted rather than walked.",
    "let deferJson = false;",
    "let deferredJson = 0;",
    "",
    "/**",
    " * Whether `v`, present, is a JSON value: walked by findJsonProblem, or, while JSON is deferred,",
    " * only counted (its caller walks it).",
    " */",
    "function isJson(v: unknown): boolean {",
    "  if (!deferJson) return findJsonProblem(v) === undefined;",
    "  if (v === undefined) return false;",
    "  deferredJson++;",
    "  return true;",
    "}",
    "",
  ];
  const compiler = new Compiler();
  const cases: string[] = [];
  const checks: string[] = [];
  const fast: string[] = [];
  const skipped: string[] = [];
  for (const [type, schema] of Object.entries(schemas)) {
    const name = functionName(type);
    const body = checkBody(compiler, name, type, schema);
    if (body === undefined) {
      skipped.push(type);
      continue;
    }
    fast.push(type);
    checks.push(...body, "");
    cases.push(`    case ${JSON.stringify(type)}:`, `      return ${name}(v as Record<string, unknown>, ordered);`);
  }
  out.push(...compiler.helpers, ...checks);
  out.push(
    "/** isExactEvent's and isExactEventInOrder's check: key order too when `ordered`. */",
    "function exactEvent(v: object, ordered: boolean): boolean {",
    "  switch ((v as { type?: unknown }).type) {",
    ...cases,
    "    default:",
    "      return false;",
    "  }",
    "}",
    "",
    "/**",
    " * Tells whether `v` is an event that `parseEvent` would return unchanged: of a type with a fast",
    " * check, every field valid, no key besides its schema's, no field present but `undefined`, and",
    " * every nested object, array and union likewise exactly what zod's copy would hold. A `false`",
    " * says nothing about validity. Throws only what reading `v`'s properties throws (a getter's).",
    ` * Types without a fast check (a field of another form): ${skipped.join(", ") || "none"}.`,
    " */",
    "export function isExactEvent(v: object): boolean {",
    "  return exactEvent(v, false);",
    "}",
    "",
    "/**",
    " * Tells what {@link isExactEvent} tells, and also whether the keys of `v` and of every object",
    " * nested in it come in the order of their schemas, as in zod's copy: when it returns true,",
    " * `JSON.stringify(v)` is the text of `parseEvent(v)`. Throws as isExactEvent does.",
    " */",
    "export function isExactEventInOrder(v: object): boolean {",
    "  return exactEvent(v, true);",
    "}",
    "",
    "/**",
    " * {@link isExactEvent}'s check, except that the JSON values in `v` (state, patch values, custom",
    " * and raw values, metadata, ...) are not walked, only counted: for the binary encoder, whose JSON",
    " * writer checks every value it writes as it writes it (src/wire/json-writer.ts) and so saves a",
    " * second walk. Returns how many JSON values the event holds (the encoder checks that it wrote as",
    " * many), or -1 when the event is not exact but for its JSON. Throws as isExactEvent does.",
    " */",
    "export function isExactEventDeferringJson(v: object): number {",
    "  deferJson = true;",
    "  deferredJson = 0;",
    "  try {",
    "    return exactEvent(v, false) ? deferredJson : -1;",
    "  } finally {",
    "    deferJson = false;",
    "  }",
    "}",
    "",
    "/** The event types that have a fast check. */",
    `export const EXACT_EVENT_TYPES: readonly string[] = ${JSON.stringify(fast)};`,
    "",
  );
  return out.join("\n");
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = join(process.argv[2] ?? "src/gen", "model/event_checks.ts");
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, generate());
}
