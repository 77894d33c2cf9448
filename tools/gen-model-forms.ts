/**
 * Writes `src/gen/model/event_forms.ts`: every schema the judges of src/model/check.ts use (the 31
 * events, the run request body, the elements the binary reader checks one by one), rebuilt from
 * the plain validators of src/model/forms.ts by reading the zod schemas' definitions. Browsers
 * judge with these (src/model/check.browser.ts) and leave zod out of their bundle; a test checks
 * that the committed file is what this writes, and test/model/forms.test.ts that both judges agree.
 *
 * A form of the model that forms.ts has no validator for stops the generator with its path, rather
 * than being judged loosely in browsers.
 *
 * Usage: `node --import tsx tools/gen-model-forms.ts [outDir]` (default `src/gen`).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as model from "../src/model/index.js";

/** The parts of a zod definition read here. */
interface Def {
  type: string;
  values?: unknown[];
  entries?: Record<string, unknown>;
  checks?: { _zod: { def: { check: string; minimum?: number; error?: (issue: unknown) => unknown } } }[];
  innerType?: Schema;
  shape?: Record<string, Schema>;
  element?: Schema;
  options?: Schema[];
  discriminator?: string;
  defaultValue?: unknown;
  minimum?: number;
  below?: string;
}
interface Schema {
  _zod: { def: Def; traits: Set<string> };
}

/** What each judge of check.ts judges with: the generated name and the model's schema. */
const ROOTS: Record<string, unknown> = {
  RunAgentInputForm: model.RunAgentInputSchema,
  MessageForm: model.MessageSchema,
  ToolCallForm: model.ToolCallSchema,
  JsonPatchOperationForm: model.JsonPatchOperationSchema,
  ContentPartForm: model.ContentPartSchema,
  InterruptForm: model.InterruptSchema,
  TokenUsageForm: model.TokenUsageSchema,
  ToolForm: model.ToolSchema,
  ContextForm: model.ContextSchema,
  ResumeEntryForm: model.ResumeEntrySchema,
};

/** The forms.ts validators that stand for the model's own refinements, by identity. */
/**
 * Closed string sets whose values AG-UI 1.1 counts as union members (a newer version may add one,
 * which a tolerant reader strips) rather than as leaves (where an unknown value is malformed).
 */
const MEMBERS = new Set<unknown>([model.EncryptedValueSubtypeSchema]);

const NAMED = new Map<unknown, string>([
  [model.JsonValueSchema, "json"],
  [model.NonNullJsonSchema, "nonNullJson"],
  [model.JsonObjectSchema, "jsonObject"],
  [model.JsonPointerSchema, "pointer"],
]);

/** The message a check was given (`{ error: "…" }`), when it was given one. */
function messageOf(check: { _zod: { def: { error?: (issue: unknown) => unknown } } }): string | undefined {
  const message = check._zod.def.error?.({});
  return typeof message === "string" ? message : (message as { message?: string } | undefined)?.message;
}

/** The arguments of a minimum-length check: `, minimum, message`; empty without one. */
function minimumOf(def: Def, at: string): string {
  const checks = def.checks ?? [];
  if (checks.length === 0) return "";
  const only = checks[0]!._zod.def;
  if (checks.length > 1 || only.check !== "min_length" || typeof only.minimum !== "number") {
    throw new Error(`${at}: forms.ts has no validator for these checks (${checks.map((c) => c._zod.def.check).join(", ")})`);
  }
  const message = messageOf(checks[0]!);
  return `, ${only.minimum}${message === undefined ? "" : `, ${JSON.stringify(message)}`}`;
}

class Writer {
  /** The declarations written so far, in dependency order. */
  readonly lines: string[] = [];
  /** The constant each object, union or array schema was written to. */
  readonly #names = new Map<unknown, string>();
  /**
   * The constant each expression was written to: two schemas of the same form (the message list
   * of RunAgentInput and of MESSAGES_SNAPSHOT) share one form, which holds no state.
   */
  readonly #written = new Map<string, string>();
  #next = 0;
  readonly #exports: Map<unknown, string>;

  constructor(exports: Map<unknown, string>) {
    this.#exports = exports;
  }

  /** The constant that holds `schema`'s form, declaring it (and what it uses) first. */
  declare(schema: Schema, at: string, name?: string): string {
    const known = this.#names.get(schema);
    if (known) return known;
    const expression = this.expression(schema, at, true);
    const exported = name ?? this.#exports.get(schema);
    const same = this.#written.get(expression);
    if (same !== undefined && exported === undefined) {
      this.#names.set(schema, same);
      return same;
    }
    const constant = exported ?? `form${this.#next++}`;
    this.#names.set(schema, constant);
    this.#written.set(expression, constant);
    this.lines.push(`${exported ? "export " : ""}const ${constant}: Form = ${same ?? `/* @__PURE__ */ ${expression}`};`);
    return constant;
  }

  /** The expression of `schema`'s form; containers become constants of their own unless `top`. */
  expression(schema: Schema, at: string, top = false): string {
    const named = NAMED.get(schema);
    if (named) return named;
    const def = schema._zod.def;
    if (MEMBERS.has(schema)) return `member(${JSON.stringify(Object.values(def.entries!))})`;
    const traits = schema._zod.traits;
    const container = def.type === "object" || traits.has("AguiTagged") || traits.has("AguiBoundedArray") || traits.has("AguiTextOrParts");
    if (container && !top) return this.declare(schema, at);
    if (traits.has("AguiSafeInt")) return `int(${def.minimum}${def.below === undefined ? "" : `, ${JSON.stringify(def.below)}`})`;
    if (traits.has("AguiBoundedArray")) return `arr(${this.expression(def.element!, `${at}[]`)}${minimumOf(def, at)})`;
    if (traits.has("AguiTextOrParts")) return `textOrParts(${this.expression(def.options![1]!, at)})`;
    if (traits.has("AguiTagged")) {
      const key = def.discriminator!;
      const tags = def.options!.map((option) => {
        const values = option._zod.def.shape?.[key]?._zod.def.values;
        if (values?.length !== 1 || typeof values[0] !== "string") throw new Error(`${at}: a tagged option needs one string literal at "${key}"`);
        return values[0];
      });
      const options = def.options!.map((option, i) => this.expression(option, `${at}(${key}=${tags[i]})`));
      return `tagged(${JSON.stringify(key)}, ${JSON.stringify(tags)}, [${options.join(", ")}])`;
    }
    switch (def.type) {
      case "object": {
        const fields = Object.entries(def.shape!).map(([key, field]) => `${JSON.stringify(key)}: ${this.expression(field, `${at}.${key}`)}`);
        return eventForm(fields) ?? `obj({ ${fields.join(", ")} })`;
      }
      case "string": {
        const minimum = minimumOf(def, at).slice(2);
        return minimum ? `str(${minimum})` : "string";
      }
      case "literal":
        return `oneOf(${JSON.stringify(def.values)})`;
      case "enum":
        return `oneOf(${JSON.stringify(Object.values(def.entries!))})`;
      case "boolean":
        return "bool";
      case "optional": {
        const inner = this.expression(def.innerType!, at);
        return inner === "string" ? "optString" : `opt(${inner})`;
      }
      case "default":
        return `dflt(${this.expression(def.innerType!, at)}, () => (${JSON.stringify(def.defaultValue)}))`;
      default:
        throw new Error(`${at}: forms.ts has no validator for a zod "${def.type}" (${[...traits].join(", ")})`);
    }
  }
}

/** The fields every event ends with, as written here; forms.ts's `ev` adds them itself. */
const BASE_FIELDS = ['"timestamp": opt(int(-9007199254740991))', '"rawEvent": opt(nonNullJson)', '"metadata": opt(jsonObject)'];

/** The optional field most events have just before {@link BASE_FIELDS}, which `ev` adds unless told not to. */
const SUBAGENT_FIELD = '"subagentRunId": optString';

/**
 * The object of `fields` as forms.ts's `ev` (an event: its type literal first, the base fields
 * last), or undefined when it is not shaped so. Thirty-one events repeating the same five fields
 * were about a tenth of this file in a browser bundle; `ev` builds the same object, keys in the
 * same order, so outputs and issues do not change.
 */
function eventForm(fields: string[]): string | undefined {
  const type = /^"type": oneOf\(\[("[A-Z_]+")\]\)$/.exec(fields[0] ?? "");
  const tail = fields.slice(-BASE_FIELDS.length);
  if (!type || fields.length < 1 + BASE_FIELDS.length || tail.some((field, i) => field !== BASE_FIELDS[i])) return undefined;
  let own = fields.slice(1, -BASE_FIELDS.length);
  const subagent = own.at(-1) === SUBAGENT_FIELD;
  if (subagent) own = own.slice(0, -1);
  return `ev(${type[1]}, { ${own.join(", ")} }${subagent ? "" : ", false"})`;
}

/** The validators of forms.ts, for the import line (only those used are imported). */
const HELPERS = ["arr", "bool", "byEventType", "dflt", "ev", "int", "json", "jsonObject", "member", "nonNullJson", "obj", "oneOf", "opt", "pointer", "str", "tagged", "textOrParts"];

/** The generated file's text. */
export function generate(): string {
  const exports = new Map<unknown, string>();
  for (const [name, value] of Object.entries(model)) {
    if (name.endsWith("Schema") && typeof value === "object" && value !== null && "_zod" in value && !exports.has(value)) {
      exports.set(value, name.replace(/Schema$/, "Form"));
    }
  }
  const writer = new Writer(exports);
  const events: string[] = [];
  for (const [type, schema] of Object.entries(model.EVENT_SCHEMAS)) {
    if (type !== model.EVENT_TYPES[events.length]) throw new Error(`EVENT_SCHEMAS: expected ${model.EVENT_TYPES[events.length]} next, as EVENT_TYPES lists them, found ${type}`);
    // Each event's fields are written in place in the list (nothing else uses them), without the
    // type, which byEventType gives `ev` from EVENT_TYPES.
    const expression = writer.expression(schema as unknown as Schema, type, true);
    const event = /^ev\("([A-Z_]+)", (\{.*\})(, false)?\)$/.exec(expression);
    if (event?.[1] !== type) throw new Error(`${type}: expected an event's form, found ${expression}`);
    events.push(`  ${event[3] ? `[${event[2]}, false]` : event[2]},`);
  }
  for (const [name, schema] of Object.entries(ROOTS)) {
    const constant = writer.declare(schema as Schema, name, name);
    if (constant !== name) writer.lines.push(`export const ${name}: Form = ${constant};`);
  }
  const body = ["const string: Form = /* @__PURE__ */ str();", "const optString: Form = /* @__PURE__ */ opt(string);", ...writer.lines].join("\n");
  const used = HELPERS.filter((helper) => new RegExp(`\\b${helper}\\b`).test(`${body} byEventType ${events.join("")}`));
  return [
    "// The model's schemas as the plain validators of src/model/forms.ts, for browsers' judges",
    "// (src/model/check.browser.ts), derived from the zod schemas of src/model.",
    "//",
    "// @generated by tools/gen-model-forms.ts (npm run generate). Do not edit by hand.",
    "/* eslint-disable */",
    "",
    `import { ${used.join(", ")}, type Form } from "../../model/forms.js";`,
    'import type { EventType } from "../../model/event-type.js";',
    "",
    body,
    "",
    "/** The form of each event type. */",
    "export const EVENT_FORMS: Readonly<Record<EventType, Form>> = /* @__PURE__ */ byEventType([",
    ...events,
    "]);",
    "",
  ].join("\n");
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = join(process.argv[2] ?? "src/gen", "model/event_forms.ts");
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, generate());
}
