/**
 * Writes `docs/events.md`: a field reference for the 31 events and the shapes they carry
 * (messages, content parts, tools, run input, outcomes, interrupts, token usage, JSON Patch),
 * generated from the model in src/model.
 *
 * Two sources, read together: the zod/mini schemas, walked at run time through their definitions
 * (`schema._zod.def`), give each field's type and whether it is required; the JSDoc comments in
 * src/model's sources, read with the TypeScript compiler's type checker, give each schema's
 * description and each field's meaning. The checker follows the schemas' types (`shape`, the
 * options of a union) back to the object literals the fields were written in, so a field declared
 * once in a shared shape (`baseFields`, `named`) is documented once.
 *
 * A form this generator cannot name, a shape that is neither an event nor a section here, an event
 * type that belongs to no group, and a field with no comment stop it with the path, rather than
 * leaving a gap in the reference. Run by `npm run generate`; test/tools/event-docs.test.ts checks
 * that the committed file is what this writes.
 *
 * Usage: `node --import tsx tools/gen-event-docs.ts [outFile]` (default `docs/events.md`).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
// The schemas with zod's types: their comments are read through them (the public ones are typed as
// declared, src/gen/model/schemas.ts, without their fields).
import * as model from "../src/model/zod-schemas.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The parts of a zod definition read here. */
interface Def {
  type: string;
  values?: unknown[];
  entries?: Record<string, unknown>;
  checks?: { _zod: { def: { check: string; minimum?: number } } }[];
  innerType?: Schema;
  shape?: Record<string, Schema>;
  element?: Schema;
  options?: Schema[];
  discriminator?: string;
  defaultValue?: unknown;
  minimum?: number;
}
interface Schema {
  _zod: { def: Def; traits: Set<string> };
}

const asSchema = (value: unknown) => value as Schema;

/** The event groups, as the AG-UI specification groups them, each with its types in order. */
const GROUPS: readonly { title: string; types: readonly model.EventType[] }[] = [
  { title: "Lifecycle", types: ["RUN_STARTED", "RUN_FINISHED", "RUN_ERROR", "STEP_STARTED", "STEP_FINISHED"] },
  { title: "Text messages", types: ["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "TEXT_MESSAGE_CHUNK"] },
  { title: "Tool calls", types: ["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_CHUNK", "TOOL_CALL_RESULT"] },
  { title: "State", types: ["STATE_SNAPSHOT", "STATE_DELTA", "MESSAGES_SNAPSHOT"] },
  { title: "Activity", types: ["ACTIVITY_SNAPSHOT", "ACTIVITY_DELTA"] },
  {
    title: "Reasoning",
    types: [
      "REASONING_START",
      "REASONING_MESSAGE_START",
      "REASONING_MESSAGE_CONTENT",
      "REASONING_MESSAGE_END",
      "REASONING_MESSAGE_CHUNK",
      "REASONING_END",
      "REASONING_ENCRYPTED_VALUE",
    ],
  },
  { title: "Subagents", types: ["SUBAGENT_STARTED", "SUBAGENT_FINISHED", "SUBAGENT_ERROR"] },
  { title: "Special", types: ["RAW", "CUSTOM"] },
];

/**
 * The shared shapes, each a section after the events, in this order: the name of its export in
 * src/model/zod-schemas.ts, its heading, and exports that link to it too (their JSDoc, which says how they
 * differ, follows the section's).
 */
const SECTIONS: readonly { name: keyof typeof model; title: string; also?: (keyof typeof model)[] }[] = [
  { name: "MessageSchema", title: "Message" },
  { name: "ToolCallSchema", title: "ToolCall" },
  { name: "FunctionCallSchema", title: "FunctionCall" },
  { name: "ContentPartSchema", title: "ContentPart" },
  { name: "PartSourceSchema", title: "PartSource" },
  { name: "RunAgentInputSchema", title: "RunAgentInput", also: ["EchoedRunAgentInputSchema"] },
  { name: "ToolSchema", title: "Tool" },
  { name: "ContextSchema", title: "Context" },
  { name: "ResumeEntrySchema", title: "ResumeEntry" },
  { name: "RunFinishedOutcomeSchema", title: "RunFinishedOutcome" },
  { name: "SubagentFinishedOutcomeSchema", title: "SubagentFinishedOutcome" },
  { name: "InterruptSchema", title: "Interrupt" },
  { name: "TokenUsageSchema", title: "TokenUsage" },
  { name: "JsonPatchOperationSchema", title: "JsonPatchOperation" },
];

/** A field comment that starts so marks a field AG-UI 1.1 added. */
const V11 = /^AG-UI 1\.1:\s*/;

/** GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** Text for a table cell: one line, pipes escaped (GitHub reads `\|` as a pipe, in code too). */
function cell(text: string): string {
  return text.replace(/\s+/g, " ").replace(/\|/g, "\\|").trim();
}

/**
 * The JSDoc of the model, as the TypeScript checker sees it through the exports of
 * src/model/zod-schemas.ts.
 */
class ModelDocs {
  private readonly checker: ts.TypeChecker;
  private readonly exports = new Map<string, ts.Symbol>();

  constructor() {
    const index = join(root, "src/model/zod-schemas.ts");
    const config = ts.readConfigFile(join(root, "tsconfig.json"), (path) => ts.sys.readFile(path));
    const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
    const program = ts.createProgram([index], { ...options, noEmit: true });
    this.checker = program.getTypeChecker();
    const file = program.getSourceFile(index);
    const module = file && this.checker.getSymbolAtLocation(file);
    if (!module) throw new Error("cannot read src/model/zod-schemas.ts");
    for (const symbol of this.checker.getExportsOfModule(module)) {
      const target = symbol.flags & ts.SymbolFlags.Alias ? this.checker.getAliasedSymbol(symbol) : symbol;
      this.exports.set(symbol.name, target);
    }
  }

  /** The JSDoc of `symbol`, on one line, `{@link X}` written as `X` in code. */
  private text(symbol: ts.Symbol): string {
    return ts
      .displayPartsToString(symbol.getDocumentationComment(this.checker))
      .replace(/\{@link\s+([^}\s|]+)[^}]*\}/g, "`$1`")
      .replace(/\s+/g, " ")
      .trim();
  }

  private symbol(name: string): ts.Symbol {
    const symbol = this.exports.get(name);
    if (!symbol) throw new Error(`src/model/zod-schemas.ts exports no ${name}`);
    return symbol;
  }

  /** The type of property `key` of `type`. */
  private property(type: ts.Type, key: string, where: string): ts.Type {
    const symbol = type.getProperty(key);
    if (!symbol) throw new Error(`${where}: the type has no ${key}`);
    return this.checker.getTypeOfSymbol(symbol);
  }

  /** The description of the export `name`. */
  describe(name: string): string {
    return this.text(this.symbol(name));
  }

  /**
   * The comment of each field of the object schema exported as `name`, or of its union's option
   * `option`, by field name ("" where a field has none).
   */
  fields(name: string, option?: number): Map<string, string> {
    let type = this.checker.getTypeOfSymbol(this.symbol(name));
    if (option !== undefined) {
      const options = this.property(this.property(this.property(type, "_zod", name), "def", name), "options", name);
      const element = this.checker.isTupleType(options) ? this.checker.getTypeArguments(options as ts.TypeReference)[option] : undefined;
      if (!element) throw new Error(`${name}: no option ${option} in its type`);
      type = element;
    }
    const shape = this.property(type, "shape", name);
    return new Map(shape.getProperties().map((field) => [field.name, this.text(field)]));
  }
}

/** One row of a field table; `key` is the field's name, `field` its cell. */
interface Row {
  key: string;
  field: string;
  type: string;
  required: string;
  meaning: string;
}

/** Builds the reference from the model. */
class Writer {
  private readonly docs = new ModelDocs();
  /** The export name of every schema of the model, by identity. */
  private readonly names = new Map<unknown, string>();
  /** Links for the shapes that have a section, by identity. */
  private readonly links = new Map<unknown, string>();
  private readonly base = asSchema(model.BaseEventSchema)._zod.def.shape!;
  /**
   * Fields that several event types hold as one schema (spread from one shape, as `subagentRunId`
   * is), by identity, with the event types that hold them: documented once, at the top.
   */
  private readonly shared = new Map<Schema, model.EventType[]>();
  /** Fields the generator found without a comment, by path. */
  private readonly undocumented: string[] = [];

  constructor() {
    for (const [name, value] of Object.entries(model)) if (name.endsWith("Schema")) this.names.set(value, name);
    for (const type of model.EVENT_TYPES) {
      for (const [key, field] of Object.entries(asSchema(model.EVENT_SCHEMAS[type])._zod.def.shape!)) {
        // A model's export (the JSON schemas) is a type that fields share, not a field.
        if (key === "type" || this.base[key] === field || this.names.has(field)) continue;
        this.shared.set(field, [...(this.shared.get(field) ?? []), type]);
      }
    }
    for (const [field, types] of this.shared) if (types.length < 2) this.shared.delete(field);
    for (const section of SECTIONS) {
      for (const name of [section.name, ...(section.also ?? [])]) this.links.set(model[name], `[${section.title}](#${slug(section.title)})`);
    }
  }

  /** A readable type for `schema`, with links to the shared shapes. */
  type(schema: Schema, path: string): string {
    const link = this.links.get(schema);
    if (link) return link;
    if (schema === asSchema(model.JsonValueSchema)) return "JSON";
    if (schema === asSchema(model.NonNullJsonSchema)) return "JSON, not null";
    if (schema === asSchema(model.JsonObjectSchema)) return "JSON object";
    if (schema === asSchema(model.JsonPointerSchema)) return "[JSON Pointer](#json-pointer)";
    const def = schema._zod.def;
    const checks = def.checks ?? [];
    // The only check the model puts on strings and arrays is a minimum length.
    const min = checks.length === 1 && checks[0]!._zod.def.check === "min_length" ? checks[0]!._zod.def.minimum : undefined;
    if (checks.length > 0 && min === undefined) throw new Error(`${path}: a check this generator cannot describe`);
    switch (def.type) {
      case "string":
        return min === 1 ? "string, non-empty" : min === undefined ? "string" : `string, length ≥ ${min}`;
      case "boolean":
        return "boolean";
      case "number":
        if (!schema._zod.traits.has("AguiSafeInt")) break;
        return def.minimum === Number.MIN_SAFE_INTEGER ? "integer" : `integer ≥ ${def.minimum}`;
      case "literal":
        return def.values!.map((v) => `\`${JSON.stringify(v)}\``).join(" or ");
      case "enum":
        return Object.values(def.entries!).map((v) => `\`${JSON.stringify(v)}\``).join(", ");
      case "array": {
        const element = this.type(def.element!, `${path}[]`);
        const list = /^\[[^\]]+\]\([^)]+\)$|^\w+$/.test(element) ? `${element}[]` : `list of ${element}`;
        return min === undefined ? list : `${list}, at least ${min}`;
      }
      case "union":
        if (schema._zod.traits.has("AguiTextOrParts")) return `string or ${this.type(def.options![1]!, path)}`;
        break;
    }
    throw new Error(`${path}: a "${def.type}" this generator cannot name; give it a section or a rendering`);
  }

  /** Whether a field is required: "yes", "no", or "no" with the default filled in. */
  private required(schema: Schema): { inner: Schema; required: string } {
    const def = schema._zod.def;
    if (def.type === "optional") return { inner: def.innerType!, required: "no" };
    if (def.type === "default") return { inner: def.innerType!, required: `no, default \`${JSON.stringify(def.defaultValue)}\`` };
    return { inner: schema, required: "yes" };
  }

  /** The rows of an object schema's fields but those in `skip`, with the comments of `docs`. */
  rows(schema: Schema, docs: Map<string, string>, path: string, skip: (key: string, field: Schema) => boolean): Row[] {
    const rows: Row[] = [];
    for (const [key, field] of Object.entries(schema._zod.def.shape!)) {
      if (skip(key, field)) continue;
      const { inner, required } = this.required(field);
      let meaning = docs.get(key) ?? "";
      let name = `\`${key}\``;
      if (V11.test(meaning)) {
        meaning = meaning.replace(V11, "").replace(/^\w/, (c) => c.toUpperCase());
        name += " *(1.1)*";
      }
      if (!meaning) this.undocumented.push(`${path}.${key}`);
      rows.push({ key, field: name, type: this.type(inner, `${path}.${key}`), required, meaning });
    }
    return rows;
  }

  /** A markdown table of `rows`. */
  table(rows: Row[]): string[] {
    return [
      "| field | type | required | meaning |",
      "|---|---|---|---|",
      ...rows.map((r) => `| ${r.field} | ${cell(r.type)} | ${r.required} | ${cell(r.meaning)} |`),
    ];
  }

  /** The heading, description and field table of one event type. */
  event(type: model.EventType): string[] {
    const schema = asSchema(model.EVENT_SCHEMAS[type]);
    const name = this.names.get(schema)!;
    const rows = this.rows(schema, this.docs.fields(name), type, (key, field) => key === "type" || this.base[key] === field);
    for (const [key, field] of Object.entries(schema._zod.def.shape!)) {
      if (!this.shared.has(field)) continue;
      rows.find((r) => r.key === key)!.meaning = "See [Base fields](#base-fields).";
    }
    return [`### ${type}`, "", this.docs.describe(name), "", ...this.table(rows), ""];
  }

  /** The section of a shared shape: an object's table, or a union's options, alike ones merged. */
  section(section: (typeof SECTIONS)[number]): string[] {
    const schema = asSchema(model[section.name]);
    const def = schema._zod.def;
    const out = [`## ${section.title}`, "", this.docs.describe(section.name), ""];
    for (const also of section.also ?? []) out.push(this.docs.describe(also), "");
    if (def.type === "object") return [...out, ...this.table(this.rows(schema, this.docs.fields(section.name), section.title, () => false)), ""];
    const tag = def.discriminator;
    if (def.type !== "union" || !tag) throw new Error(`${section.title}: a section is an object or a union on a tag`);
    // Options whose other fields read the same (the media parts, the patch operations that share
    // a form) share one table.
    const groups: { tags: unknown[]; names: string[]; rows: Row[]; key: string }[] = [];
    def.options!.forEach((option, i) => {
      const name = this.names.get(option);
      const docs = name ? this.docs.fields(name) : this.docs.fields(section.name, i);
      const tags = option._zod.def.shape![tag]!._zod.def.values!;
      const rows = this.rows(option, docs, `${section.title}[${tag}=${tags.join("|")}]`, (key) => key === tag);
      const key = JSON.stringify(rows);
      const same = groups.find((g) => g.key === key);
      if (same) {
        same.tags.push(...tags);
        if (name) same.names.push(name);
      } else groups.push({ tags: [...tags], names: name ? [name] : [], rows, key });
    });
    // Rows that several options have alike (a message's `id`, `metadata`, …) go once into a table
    // of common fields, saying which options lack them; the options' tables keep the rest.
    const common = new Map<string, { row: Row; in: typeof groups }>();
    for (const group of groups) {
      for (const row of group.rows) {
        const key = JSON.stringify(row);
        common.set(key, { row, in: [...(common.get(key)?.in ?? []), group] });
      }
    }
    for (const [key, entry] of common) if (entry.in.length < 2) common.delete(key);
    if (common.size > 0) {
      const quoted = (g: (typeof groups)[number]) => g.tags.map((t) => `\`${JSON.stringify(t)}\``);
      const rows = [...common.values()].map(({ row, in: holders }) => {
        const lacking = groups.filter((g) => !holders.includes(g)).flatMap(quoted);
        return lacking.length > 0 ? { ...row, meaning: `${row.meaning} Not on ${tag} ${lacking.join(", ")}.` } : row;
      });
      out.push(`Fields that several kinds share (each kind's others follow, by \`${tag}\`):`, "", ...this.table(rows), "");
      for (const group of groups) group.rows = group.rows.filter((row) => !common.has(JSON.stringify(row)));
    }
    for (const group of groups) {
      const tags = group.tags.map((t) => `\`${JSON.stringify(t)}\``).join(", ");
      // A named option gets a heading; an inline one (an outcome, a patch operation) a label.
      const names = group.names.map((n) => n.replace(/Schema$/, ""));
      if (names.length > 0) out.push(`### ${names.join(" / ")}`, "");
      const described = group.names.map((n) => this.docs.describe(n)).filter(Boolean);
      out.push(`**\`${tag}\`: ${tags}.**${described.length > 0 ? ` ${described.join(" ")}` : ""}`, "");
      out.push(...(group.rows.length > 0 ? this.table(group.rows) : ["No other fields."]), "");
    }
    return out;
  }

  /** The whole reference. */
  write(): string {
    const placed = GROUPS.flatMap((g) => g.types);
    for (const type of model.EVENT_TYPES) {
      const count = placed.filter((t) => t === type).length;
      if (count !== 1) throw new Error(`${type}: in ${count} groups, not one`);
    }
    const baseRows = this.rows(asSchema(model.BaseEventSchema), this.docs.fields("BaseEventSchema"), "BaseEvent", (key) => key === "type");
    // A shared field's own row, with its comment from the first event that holds it.
    const sharedRows = [...this.shared].flatMap(([field, types]) => {
      const schema = asSchema(model.EVENT_SCHEMAS[types[0]!]);
      const docs = this.docs.fields(this.names.get(schema)!);
      return this.rows(schema, docs, types[0]!, (_, f) => f !== field).map((row) => {
        const others = placed.filter((t) => !types.includes(t));
        const own = others.filter((t) => asSchema(model.EVENT_SCHEMAS[t])._zod.def.shape![row.key] !== undefined);
        const without = others.filter((t) => !own.includes(t));
        const not = without.length > 0 ? ` Not on ${without.join(", ")}.` : "";
        return { ...row, meaning: `${row.meaning}${not}${own.length > 0 ? ` ${own.join(", ")} have their own.` : ""}` };
      });
    });
    const out = [
      "# AG-UI event reference",
      "",
      "> Generated by `npm run generate` (tools/gen-event-docs.ts) from the zod schemas in src/model: types and",
      "> requiredness are what agui-wire validates; descriptions and meanings are the schemas' JSDoc comments. Do not",
      "> edit this file: change the model (or the generator) and run `npm run generate`; a test fails when it is stale.",
      "",
      `Events: ${GROUPS.map((g) => `[${g.title}](#${slug(g.title)})`).join(" · ")}.  `,
      `Shapes they carry: ${[...SECTIONS.map((s) => s.title), "JSON Pointer"].map((t) => `[${t}](#${slug(t)})`).join(" · ")}.`,
      "",
      "*(1.1)* marks a field that AG-UI 1.1 added to 1.0.",
      "",
      "## Base fields",
      "",
      `${this.docs.describe("BaseEventSchema")} \`type\` is the event type, the heading of each section below.`,
      "",
      ...this.table([...baseRows, ...sharedRows]),
      "",
    ];
    for (const group of GROUPS) {
      out.push(`## ${group.title}`, "");
      for (const type of group.types) out.push(...this.event(type));
    }
    for (const section of SECTIONS) out.push(...this.section(section));
    out.push("## JSON Pointer", "", this.docs.describe("JsonPointerSchema"), "");
    if (this.undocumented.length > 0) throw new Error(`fields without a JSDoc comment in src/model: ${this.undocumented.join(", ")}`);
    return out.join("\n");
  }
}

/**
 * The text of docs/events.md, generated from the model.
 *
 * @throws {Error} When the model has a form, shape, event type or field this reference cannot
 *   document (see the module comment).
 */
export function generate(): string {
  return new Writer().write();
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const file = process.argv[2] ?? join(root, "docs/events.md");
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, generate());
}
