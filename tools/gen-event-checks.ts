/**
 * Writes `src/gen/model/event_checks.ts`: one check-only function per event type, derived from the
 * zod schemas in `src/model/events.ts`, that tells whether a value already is exactly the event
 * `parseEvent` would return (every field valid, no other key, no default left to fill in).
 *
 * Only plain field forms are compiled: a literal, an enum of strings, a string with at most a
 * minimum length, a safe integer, a boolean, a JSON value (any, not null, or an object), those made
 * optional, and a default whose value must then be present. An optional field of any other form
 * (an outcome, a list of usage) sends the event to zod when it is present; an event type with a
 * required field of another form gets no function and always goes to zod. Run by
 * `npm run generate` after `buf generate`; a test checks that the committed file is what this
 * writes.
 *
 * Usage: `node --import tsx tools/gen-event-checks.ts [outDir]` (default `src/gen`).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { EVENT_SCHEMAS } from "../src/model/events.js";
import { JsonObjectSchema, JsonValueSchema, NonNullJsonSchema } from "../src/model/json.js";

/** The parts of a zod definition read here. */
interface Def {
  type: string;
  values?: unknown[];
  entries?: Record<string, unknown>;
  format?: string;
  checks?: { _zod: { def: { check: string; minimum?: number } } }[];
  innerType?: unknown;
  shape?: Record<string, unknown>;
}

const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;

/** A TypeScript condition that is true when `name` holds a valid value, or undefined. */
function conditionOf(schema: unknown, name: string): string | undefined {
  if (schema === JsonValueSchema) return `findJsonProblem(${name}) === undefined`;
  if (schema === NonNullJsonSchema) return `${name} !== null && findJsonProblem(${name}) === undefined`;
  if (schema === JsonObjectSchema) {
    return `typeof ${name} === "object" && ${name} !== null && !Array.isArray(${name}) && findJsonProblem(${name}) === undefined`;
  }
  const def = defOf(schema);
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
      if (checks.length > 1 || only.check !== "min_length" || typeof only.minimum !== "number") return undefined;
      return `typeof ${name} === "string" && ${name}.length >= ${only.minimum}`;
    }
    case "number": {
      // The model's int() (src/model/int.ts): a safe integer from `minimum` up.
      const minimum = (def as { minimum?: number }).minimum;
      if (typeof minimum !== "number" || (def.checks ?? []).length > 0) return undefined;
      return minimum <= Number.MIN_SAFE_INTEGER ? `Number.isSafeInteger(${name})` : `Number.isSafeInteger(${name}) && ${name} >= ${minimum}`;
    }
    default:
      return undefined;
  }
}

/**
 * The body of one event type's check (once `type` has matched), or undefined when a required field
 * has no plain form. Each field is checked in line, with a local of its own: shared helpers (an
 * `opt(value, predicate)` was tried) turn into megamorphic calls once a server has seen every
 * event type, and cost encodeFrame a third of its speed.
 */
function checkBody(type: string, schema: unknown): string[] | undefined {
  const shape = defOf(schema).shape!;
  const lines: string[] = [];
  let required = 0;
  for (const [key, field] of Object.entries(shape)) {
    // Field names become property accesses and local names below.
    if (!/^[A-Za-z_$][\w$]*$/.test(key)) return undefined;
    const def = defOf(field);
    if (key === "type") {
      // isExactEvent dispatches on `type`, so a check reached through it has matched the literal
      // already; any other form of `type` is refused rather than checked twice.
      if (def.type !== "literal" || def.values?.length !== 1 || def.values[0] !== type) return undefined;
      required++;
      continue;
    }
    const local = `f_${key}`;
    lines.push(`  const ${local} = v.${key};`);
    if (def.type === "optional") {
      // A field of a form not compiled here is left to zod whenever it is present.
      const condition = conditionOf(def.innerType, local) ?? "false";
      lines.push(`  if (${local} !== undefined) {`, `    if (!(${condition})) return false;`, `    n++;`, `  }`);
    } else {
      // A default is left to zod when absent, since the exact event carries it.
      const condition = conditionOf(def.type === "default" ? def.innerType : field, local);
      if (condition === undefined) return undefined;
      lines.push(`  if (!(${condition})) return false;`);
      required++;
    }
  }
  return [`  let n = ${required};`, ...lines, `  return keyCount(v) === n;`];
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
    'import { findJsonProblem } from "../../model/json-problem.js";',
    "",
    "// Unused imports are kept so that the header does not depend on the schemas.",
    "void findJsonProblem;",
    "",
    "/** Counts an object's enumerable string keys, own and inherited, without building an array. */",
    "function keyCount(v: object): number {",
    "  let n = 0;",
    "  for (const _ in v) n++;",
    "  return n;",
    "}",
    "",
  ];
  const cases: string[] = [];
  const checks: string[] = [];
  const fast: string[] = [];
  const skipped: string[] = [];
  for (const [type, schema] of Object.entries(schemas)) {
    const body = checkBody(type, schema);
    if (body === undefined) {
      skipped.push(type);
      continue;
    }
    fast.push(type);
    const name = functionName(type);
    checks.push(`/** The rest of ${type}'s check, once \`type\` has matched. */`, `function ${name}(v: Record<string, unknown>): boolean {`, ...body, "}", "");
    cases.push(`    case ${JSON.stringify(type)}:`, `      return ${name}(v as Record<string, unknown>);`);
  }
  out.push(...checks);
  out.push(
    "/**",
    " * Tells whether `v` is an event that `parseEvent` would return unchanged: of a type with a fast",
    " * check, every field valid, no key besides its schema's, no field present but `undefined`. A",
    " * `false` says nothing about validity.",
    ` * Types without a fast check (a field of another form): ${skipped.join(", ") || "none"}.`,
    " */",
    "export function isExactEvent(v: object): boolean {",
    "  switch ((v as { type?: unknown }).type) {",
    ...cases,
    "    default:",
    "      return false;",
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
