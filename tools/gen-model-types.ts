/**
 * Writes `src/gen/model/types.ts` and `schemas.ts`: the model's TypeScript types declared, as interfaces and unions
 * written out, instead of inferred from the zod schemas (`z.infer`), and each public schema with a
 * narrow declared type (`Schema<Output, Input>`, src/model/schema.ts) instead of zod's.
 *
 * Why: a consumer's type checker pays for whatever the published declarations name. Inferred
 * types make it load zod's declarations (and check them all, under `skipLibCheck: false`) and
 * instantiate zod's generic types for every event and message a program touches; declared ones
 * cost what an interface costs. The schemas stay zod schemas at run time, the same objects.
 *
 * Two sources, read together, as tools/gen-event-docs.ts reads them: the zod/mini schemas walked
 * through their definitions (`schema._zod.def`) give each field's type and whether it is required;
 * the JSDoc comments of src/model, read with the TypeScript checker, give each type's and field's
 * comment. Each type is written twice where validation changes it: the output (what parsing
 * returns, `X`) and the input (what parsing accepts, `XInput`: defaults optional, and `unknown`
 * where a schema takes any value to judge it itself, as zod's own input types say).
 * test/model/declared-types.test.ts holds both to zod's inferred types.
 *
 * A form this generator cannot name stops it with the path. Run by `npm run generate`;
 * test/tools/model-types.test.ts checks that the committed file is what this writes.
 *
 * Usage: `node --import tsx tools/gen-model-types.ts [outDir]` (default `src/gen/model`).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import * as model from "../src/model/zod-schemas.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The parts of a zod definition read here. */
interface Def {
  type: string;
  values?: unknown[];
  entries?: Record<string, unknown>;
  innerType?: Schema;
  shape?: Record<string, Schema>;
  element?: Schema;
  options?: Schema[];
  discriminator?: string;
}
interface Schema {
  _zod: { def: Def; traits: Set<string> };
}
const asSchema = (value: unknown) => value as Schema;

type Mode = "output" | "input";

/**
 * The named types, in the order written: the schema's export name, the type's name, and the name
 * of its input form where that differs from `${name}Input`. A schema not listed here is written
 * inline where it is used.
 */
const NAMED: readonly { schema: keyof typeof model; name: string; input?: string }[] = [
  { schema: "RoleSchema", name: "Role" },
  { schema: "FunctionCallSchema", name: "FunctionCall" },
  { schema: "ToolCallSchema", name: "ToolCall" },
  { schema: "DeveloperMessageSchema", name: "DeveloperMessage" },
  { schema: "SystemMessageSchema", name: "SystemMessage" },
  { schema: "AssistantMessageSchema", name: "AssistantMessage" },
  { schema: "UserMessageSchema", name: "UserMessage" },
  { schema: "ToolMessageSchema", name: "ToolMessage" },
  { schema: "ActivityMessageSchema", name: "ActivityMessage" },
  { schema: "ReasoningMessageSchema", name: "ReasoningMessage" },
  { schema: "MessageSchema", name: "Message" },
  { schema: "DataSourceSchema", name: "DataSource" },
  { schema: "UrlSourceSchema", name: "UrlSource" },
  { schema: "FileSourceSchema", name: "FileSource" },
  { schema: "PartSourceSchema", name: "PartSource" },
  { schema: "TextPartSchema", name: "TextPart" },
  { schema: "ImagePartSchema", name: "ImagePart" },
  { schema: "AudioPartSchema", name: "AudioPart" },
  { schema: "VideoPartSchema", name: "VideoPart" },
  { schema: "DocumentPartSchema", name: "DocumentPart" },
  { schema: "ContentPartSchema", name: "ContentPart" },
  { schema: "InterruptSchema", name: "Interrupt" },
  { schema: "RunFinishedOutcomeSchema", name: "RunFinishedOutcome" },
  { schema: "SubagentFinishedOutcomeSchema", name: "SubagentFinishedOutcome" },
  { schema: "TokenUsageSchema", name: "TokenUsage" },
  { schema: "ResumeEntrySchema", name: "ResumeEntry" },
  { schema: "ToolSchema", name: "Tool" },
  { schema: "ContextSchema", name: "Context" },
  { schema: "RunAgentInputSchema", name: "RunAgentInput", input: "RunAgentInputInit" },
  { schema: "EchoedRunAgentInputSchema", name: "EchoedRunAgentInput" },
  { schema: "BaseEventSchema", name: "BaseEvent" },
  { schema: "TextMessageRoleSchema", name: "TextMessageRole" },
  { schema: "JsonPatchOperationSchema", name: "JsonPatchOperation" },
  { schema: "EncryptedValueSubtypeSchema", name: "EncryptedValueSubtype" },
  ...model.EVENT_TYPES.map((type) => {
    const schema = Object.entries(model).find(([, value]) => value === model.EVENT_SCHEMAS[type])![0] as keyof typeof model;
    return { schema, name: schema.replace(/Schema$/, "") };
  }),
];

/** Schemas of any JSON value: their type, and `unknown` as input (they judge any value). */
const JSON_TYPES = new Map<unknown, string>([
  [model.JsonValueSchema, "JsonValue"],
  [model.JsonObjectSchema, "JsonObject"],
  [model.NonNullJsonSchema, "Exclude<JsonValue, null>"],
]);

/** Schemas written as a type of their own though not in NAMED, and how. */
const OTHER: ReadonlyMap<unknown, string> = new Map<unknown, string>([[model.JsonPointerSchema, "string"]]);

/** The JSDoc of the model, read with the TypeScript checker through src/model/zod-schemas.ts. */
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
      this.exports.set(symbol.name, symbol.flags & ts.SymbolFlags.Alias ? this.checker.getAliasedSymbol(symbol) : symbol);
    }
  }

  /** The JSDoc of `symbol` as written, its lines without the comment's frame. */
  private text(symbol: ts.Symbol | undefined): string {
    if (!symbol) return "";
    const parts = ts.displayPartsToString(symbol.getDocumentationComment(this.checker)).trim();
    return parts;
  }

  private property(type: ts.Type, key: string, where: string): ts.Type {
    const symbol = type.getProperty(key);
    if (!symbol) throw new Error(`${where}: the type has no ${key}`);
    return this.checker.getTypeOfSymbol(symbol);
  }

  /** The description of the export `name`. */
  describe(name: string): string {
    return this.text(this.exports.get(name));
  }

  /** The comment of each field of the object schema `name`, or of its union's option `option`. */
  fields(name: string, option?: number): Map<string, string> {
    const symbol = this.exports.get(name);
    if (!symbol) throw new Error(`src/model/zod-schemas.ts exports no ${name}`);
    let type = this.checker.getTypeOfSymbol(symbol);
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

/** A JSDoc block of `text` at `indent`, or nothing for no text. */
function jsdoc(text: string, indent = ""): string[] {
  if (!text) return [];
  const lines = text.split("\n");
  if (lines.length === 1) return [`${indent}/** ${lines[0]} */`];
  return [`${indent}/**`, ...lines.map((line) => `${indent} *${line ? ` ${line}` : ""}`), `${indent} */`];
}

class Writer {
  private readonly docs = new ModelDocs();
  /** Named schemas, by identity: their entry of NAMED. */
  private readonly named = new Map<unknown, (typeof NAMED)[number]>();
  /** Whether a named schema's input form differs from its output, by identity (memoised). */
  private readonly differs = new Map<unknown, boolean>();

  constructor() {
    for (const entry of NAMED) this.named.set(model[entry.schema], entry);
  }

  private inputName(entry: (typeof NAMED)[number]): string {
    return entry.input ?? `${entry.name}Input`;
  }

  /** Whether `schema`'s input form differs from its output form. */
  private inputDiffers(schema: Schema): boolean {
    const known = this.differs.get(schema);
    if (known !== undefined) return known;
    const differs = this.body(schema, "output", "", "") !== this.body(schema, "input", "", "");
    this.differs.set(schema, differs);
    return differs;
  }

  /** A reference to `schema` as a field's or element's type. */
  type(schema: Schema, mode: Mode, path: string, docsOf: string, indent: string): string {
    const entry = this.named.get(schema);
    if (entry) return mode === "input" && this.inputDiffers(schema) ? this.inputName(entry) : entry.name;
    return this.body(schema, mode, path, docsOf, indent);
  }

  /**
   * The type `schema` stands for, written out (its own fields, options, element).
   *
   * @param docsOf the export whose field comments apply (an object written inline in a named one)
   */
  body(schema: Schema, mode: Mode, path: string, docsOf: string, indent = "", option?: number): string {
    const json = JSON_TYPES.get(schema);
    if (json) return mode === "input" ? "unknown" : json;
    const other = OTHER.get(schema);
    if (other) return other;
    const def = schema._zod.def;
    switch (def.type) {
      case "string":
        return "string";
      case "boolean":
        return "boolean";
      case "number":
        // The model's integers (int.ts) judge any value themselves, as their declared type says.
        if (schema._zod.traits.has("AguiSafeInt")) return mode === "input" ? "unknown" : "number";
        break;
      case "literal":
        return def.values!.map((v) => JSON.stringify(v)).join(" | ");
      case "enum":
        return Object.values(def.entries!).map((v) => JSON.stringify(v)).join(" | ");
      case "array": {
        const element = this.type(def.element!, mode, `${path}[]`, docsOf, indent);
        return /^[\w<>, ]+$/.test(element) ? `${element}[]` : `(${element})[]`;
      }
      case "union": {
        // Text or parts: its declared zod type takes any value as input (its string option's
        // input is zod's default, unknown).
        if (schema._zod.traits.has("AguiTextOrParts")) return mode === "input" ? "unknown" : `string | ${this.type(def.options![1]!, "output", path, docsOf, indent)}`;
        if (!def.discriminator) break;
        return def
          .options!.map((o, i) => {
            const named = this.named.has(o);
            return named ? this.type(o, mode, path, docsOf, indent) : this.body(o, mode, `${path}|${i}`, docsOf, indent, i);
          })
          .join(" | ");
      }
      case "object": {
        const docs = docsOf ? this.docs.fields(docsOf, option) : new Map<string, string>();
        const inner = `${indent}  `;
        const lines = ["{"];
        for (const [key, field] of Object.entries(def.shape!)) {
          let schema = field;
          let optional = false;
          if (schema._zod.def.type === "optional") {
            optional = true;
            schema = schema._zod.def.innerType!;
          } else if (schema._zod.def.type === "default") {
            optional = mode === "input";
            schema = schema._zod.def.innerType!;
          }
          lines.push(...jsdoc(docs.get(key) ?? "", inner));
          lines.push(`${inner}${key}${optional ? "?" : ""}: ${this.type(schema, mode, `${path}.${key}`, "", inner)};`);
        }
        lines.push(`${indent}}`);
        return lines.join("\n");
      }
    }
    throw new Error(`${path}: a "${def.type}" this generator cannot write; name it or give it a rendering`);
  }

  /** One named type, output and (where it differs) input. */
  declare(entry: (typeof NAMED)[number]): string[] {
    const schema = asSchema(model[entry.schema]);
    const out: string[] = [];
    const description = this.docs.describe(entry.schema);
    const forms: [Mode, string][] = [["output", entry.name]];
    if (this.inputDiffers(schema)) forms.push(["input", this.inputName(entry)]);
    for (const [mode, name] of forms) {
      const text = this.body(schema, mode, entry.name, entry.schema);
      const doc = mode === "output" ? description : `What \`${entry.schema}\` accepts as ${entry.name}: its input, before validation.`;
      out.push(...jsdoc(doc));
      // Type aliases, not interfaces: an object type written in an alias is assignable to an index
      // signature (`Record<string, unknown>`), as the inferred types it replaces were; an
      // interface is not.
      out.push(`export type ${name} = ${text};`, "");
    }
    return out;
  }

  /** The text of src/gen/model/types.ts: the declared types, free of zod. */
  types(): string {
    const out = [
      "// Generated by tools/gen-model-types.ts from the zod schemas of src/model (`npm run generate`);",
      "// do not edit. test/model/declared-types.test.ts holds these types to the schemas' inferred ones.",
      "/**",
      " * The model's types, declared: what the published declarations name instead of zod's inferred",
      " * types, so that a consumer's type checker never loads or instantiates zod's (see",
      " * tools/gen-model-types.ts). `XInput` is what the schema of `X` accepts, before validation.",
      " *",
      " * @module",
      " */",
      'import type { JsonObject, JsonValue } from "../../model/json-problem.js";',
      "",
    ];
    for (const entry of NAMED) out.push(...this.declare(entry));
    const events = model.EVENT_TYPES.map((type) => this.named.get(model.EVENT_SCHEMAS[type])!);
    out.push(
      "/** Any event: a union on `type`. */",
      `export type AguiEvent =\n${events.map((e) => `  | ${e.name}`).join("\n")};`,
      "",
      "/** What an event looks like before validation fills in defaults (RUN_STARTED input's lists). */",
      `export type AguiEventInput =\n${events.map((e) => `  | ${this.type(asSchema(model[e.schema]), "input", e.name, "", "")}`).join("\n")};`,
      "",
      "/** The event type whose `type` is `T`. */",
      'export type EventOf<T extends AguiEvent["type"]> = Extract<AguiEvent, { type: T }>;',
      "",
    );
    return out.join("\n");
  }

  /** The text of src/gen/model/schemas.ts: each public schema under its declared type. */
  schemas(): string {
    const list: [string, string][] = [
      ...NAMED.map((e): [string, string] => {
        const input = this.inputDiffers(asSchema(model[e.schema])) ? this.inputName(e) : e.name;
        // An enum's schema keeps its list of values (`RoleSchema.options`).
        if (asSchema(model[e.schema])._zod.def.type === "enum") return [e.schema, `EnumSchema<${e.name}>`];
        return [e.schema, input === e.name ? `Schema<${e.name}>` : `Schema<${e.name}, ${input}>`];
      }),
      ["EventSchema", "Schema<AguiEvent, AguiEventInput>"],
      ["JsonValueSchema", "Schema<JsonValue, unknown>"],
      ["JsonObjectSchema", "Schema<JsonObject, unknown>"],
      ["NonNullJsonSchema", "Schema<Exclude<JsonValue, null>, unknown>"],
      ["JsonPointerSchema", "Schema<string>"],
    ];
    const names = [...new Set(list.flatMap(([, type]) => type.match(/\b[A-Z]\w+\b/g) ?? []))].filter((n) => !["Schema", "EnumSchema", "Exclude", "JsonValue", "JsonObject"].includes(n));
    names.push("EventOf");
    names.sort();
    const out = [
      "// Generated by tools/gen-model-types.ts from the zod schemas of src/model (`npm run generate`);",
      "// do not edit.",
      "/**",
      " * The model's schemas, each the zod schema of src/model (the same object) under a declared type,",
      " * {@link Schema}, so that the published declarations name no zod type (see tools/gen-model-types.ts).",
      " *",
      " * @module",
      " */",
      'import type { JsonObject, JsonValue } from "../../model/json-problem.js";',
      'import type { EnumSchema, Schema } from "../../model/schema.js";',
      'import * as zod from "../../model/zod-schemas.js";',
      `import type {\n${names.map((n) => `  ${n},`).join("\n")}\n} from "./types.js";`,
      "",
    ];
    for (const [name, type] of list) out.push(...jsdoc(this.docs.describe(name)), `export const ${name}: ${type} = zod.${name};`);
    out.push(
      "",
      "/** The schema of each event type, by its `type` string. */",
      `export const EVENT_SCHEMAS: { readonly [T in AguiEvent["type"]]: Schema<EventOf<T>, Extract<AguiEventInput, { type: T }>> } = zod.EVENT_SCHEMAS;`,
      "",
    );
    return out.join("\n");
  }
}

/**
 * The texts of src/gen/model/types.ts and src/gen/model/schemas.ts, generated from the model.
 *
 * @throws {Error} When the model has a form this generator cannot write (see the module comment).
 */
export function generate(): { types: string; schemas: string } {
  const writer = new Writer();
  return { types: writer.types(), schemas: writer.schemas() };
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? join(root, "src/gen/model");
  mkdirSync(dir, { recursive: true });
  const { types, schemas } = generate();
  writeFileSync(join(dir, "types.ts"), types);
  writeFileSync(join(dir, "schemas.ts"), schemas);
}
