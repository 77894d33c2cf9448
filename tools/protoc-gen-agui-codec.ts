/**
 * protoc-gen-agui-codec: a protoc plugin (run by `buf generate`) that writes, for every message of
 * a proto file, a specialised `write<Message>` and `read<Message>` working on plain objects of the
 * event model's shape. No reflection and no intermediate message objects are involved at run time.
 *
 * Conventions, which the generated code relies on (set in buf.gen.yaml):
 * - `union=<type name>`: that message's oneof is the event union. Each arm's object carries a
 *   `type` string equal to the arm's name upper-cased (`text_message_start` -> TEXT_MESSAGE_START).
 * - `flatten=<type name>`: a field of that message type (BaseEvent) is not a nested object: its
 *   fields live on the parent object, and its enum field of the union's type enum is written from
 *   the arm and checked against it when read. An error names a type that disagrees by the model's
 *   `EVENT_TYPES` (src/model/event-type.ts), which lists the event types in the enum's order
 *   (test/schema/model-vs-proto.test.ts holds it to that).
 * - `unions=<type name>` (once per message): each of those messages holds one oneof of message arms and is a JSON
 *   union on `type`, whose value is the arm's name as written (`image`): a content part, a part's
 *   source.
 * - `adapt=<type name>` (once per message): the JSON form of those messages differs from the plain mapping (a text
 *   or parts `content`, an outcome folded from a string and lists). Their writer starts with
 *   `toWire<Message>(v)` and their reader ends with `fromWire<Message>(v)`, both from
 *   src/wire/adapters.ts, which says why for each.
 * - Every message gets a reader of its own, a switch on its tags. (Reading the rare ones from a
 *   table of their fields instead was smaller minified, but larger gzipped: the switches of the
 *   readers are alike and compress well, the tables' entries do not.)
 * - Object keys are the fields' JSON (camelCase) names; enum values are their names without the
 *   enum prefix, lower-cased (`add`); int64 is a JS number (safe integers only);
 *   `google.protobuf.Value` is any JSON value and `google.protobuf.Struct` a JSON object, handled by
 *   src/wire/json-value.ts.
 * - Repeated fields of event messages are always arrays; those of nested messages are present
 *   only when non-empty.
 * - Each element of a repeated message field goes through `check<Message>(r, item, keep)` from
 *   src/wire/element-checks.ts as soon as it is read, which returns what to store (the model's validated
 *   copy) and tells the reader when enough bad elements are kept: from then on elements are still
 *   read (the frame must be well-formed) and checked (their problems are counted), but no longer
 *   stored, so a frame of millions of bad elements builds only a few. `keep` is read before the
 *   element, so that an element within which the reader stopped keeping is still stored whole.
 * - An event arm this schema lacks is a `ValidationError` `unknown_event_type`, as a JSON event of
 *   an unknown type is.
 *
 * Field kinds outside what the event schema uses (maps, bytes, floats, repeated non-strings, ...) are
 * refused at generation time rather than generated half-way.
 *
 * @module
 */
import { ScalarType, type DescEnum, type DescField, type DescFile, type DescMessage } from "@bufbuild/protobuf";
import { createEcmaScriptPlugin, runNodeJs, type GeneratedFile } from "@bufbuild/protoplugin";

interface Options {
  union: string;
  flatten: string;
  unions: Set<string>;
  adapt: Set<string>;
}

const VALUE = "google.protobuf.Value";
const STRUCT = "google.protobuf.Struct";
/** Well-known messages that stand for JSON values: not generated, read and written as JSON. */
const isJson = (typeName: string) => typeName === VALUE || typeName === STRUCT;

const plugin = createEcmaScriptPlugin<Options>({
  name: "protoc-gen-agui-codec",
  version: "v1",
  parseOptions(raw) {
    const get = (key: string) => raw.find((o) => o.key === key)?.value ?? "";
    // buf joins all options with commas, so a list option is given once per item.
    const list = (key: string) => new Set(raw.filter((o) => o.key === key).map((o) => o.value));
    return { union: get("union"), flatten: get("flatten"), unions: list("unions"), adapt: list("adapt") };
  },
  generateTs(schema) {
    for (const file of schema.files) {
      generateFile(schema.generateFile(`${file.name}_codec.ts`), file, schema.options);
      const union = allMessages(file).find((m) => m.typeName === schema.options.union);
      if (union) generateSmallFrames(schema.generateFile(`${file.name}_frame.ts`), file, union, schema.options);
    }
  },
});

runNodeJs(plugin);

/** The TS identifier of a message: nested names joined with `_`, as protoc-gen-es does. */
function ident(desc: DescMessage | DescEnum): string {
  return desc.typeName.slice(desc.file.proto.package.length + 1).replace(/\./g, "_");
}

function allMessages(file: DescFile): DescMessage[] {
  const out: DescMessage[] = [];
  const add = (m: DescMessage) => {
    out.push(m);
    m.nestedMessages.forEach(add);
  };
  file.messages.forEach(add);
  return out;
}

function allEnums(file: DescFile): DescEnum[] {
  return [...file.enums, ...allMessages(file).flatMap((m) => m.nestedEnums)];
}

/** Bytes of a field's tag varint, as a literal list. */
function tagBytes(no: number, wireType: number): number[] {
  let v = (no << 3) | wireType;
  const out: number[] = [];
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return out;
}

function tagValue(no: number, wireType: number): number {
  return ((no << 3) | wireType) >>> 0;
}

function hex(n: number): string {
  return `0x${n.toString(16).padStart(2, "0")}`;
}

function writeTag(f: DescField, wireType: number): string {
  const bytes = tagBytes(f.number, wireType);
  return `w.ensure(${bytes.length}); ${bytes.map((b) => `w.byte(${hex(b)});`).join(" ")}`;
}

function wireTypeOf(field: DescField): number {
  if (field.fieldKind === "message" || field.fieldKind === "list") return 2;
  if (field.fieldKind === "enum") return 0;
  if (field.fieldKind === "scalar") {
    switch (field.scalar) {
      case ScalarType.STRING:
        return 2;
      case ScalarType.INT64:
      case ScalarType.BOOL:
        return 0;
      case ScalarType.DOUBLE:
        return 1;
    }
  }
  throw new Error(`protoc-gen-agui-codec: field ${field.parent.typeName}.${field.name} has an unsupported kind`);
}

function knownMask(message: DescMessage): number {
  let mask = 0;
  for (const f of message.fields) {
    if (f.number >= 32) throw new Error(`protoc-gen-agui-codec: field numbers above 31 are not supported (${f.name})`);
    mask |= 1 << f.number;
  }
  return mask >>> 0;
}

function generateFile(f: GeneratedFile, file: DescFile, options: Options): void {
  f.preamble(file);
  const depth = file.name.split("/").length - 1;
  const up = "../".repeat(depth + 1);
  f.print(`import { AguiWireError, ValidationError } from "${up}util/index.js";`);
  if (allMessages(file).some((m) => m.typeName === options.flatten)) f.print(`import { EVENT_TYPES } from "${up}model/event-type.js";`);
  f.print(`import type { JsonValue } from "${up}model/json-problem.js";`);
  // Everything the codec calls of the wire runtime (src/wire/), through its one entry.
  const wire = ["enumName", "malformed", "readStruct", "readValue", "skipField", "type Reader", "type Writer", "writeStructField", "writeValueField"];
  // Messages of other files are imported from their generated codec files.
  const foreign = new Map<string, Set<string>>();
  for (const m of allMessages(file)) {
    for (const field of m.fields) {
      const target = field.fieldKind === "message" || (field.fieldKind === "list" && field.listKind === "message") ? field.message : undefined;
      if (target && target.file !== file && !isJson(target.typeName)) {
        const from = `./${target.file.name.split("/").pop()}_codec.js`;
        const set = foreign.get(from) ?? new Set();
        set.add(`read${ident(target)}`).add(`write${ident(target)}`).add(`type ${ident(target)}Fields`);
        foreign.set(from, set);
      }
    }
  }
  for (const [from, names] of foreign) f.print(`import { ${[...names].sort().join(", ")} } from "${from}";`);
  // The element checks of this file's repeated message fields.
  const checks = new Set<string>();
  for (const m of allMessages(file)) {
    for (const field of m.fields) {
      if (field.fieldKind === "list" && field.listKind === "message" && !isJson(field.message.typeName)) checks.add(checkName(field.message));
    }
  }
  wire.push(...checks);
  const adapted = allMessages(file).filter((m) => options.adapt.has(m.typeName));
  wire.push(...adapted.flatMap((m) => [`fromWire${ident(m)}`, `toWire${ident(m)}`]));
  const sortKey = (name: string) => name.replace(/^type /, "");
  f.print(`import { ${wire.sort((a, b) => sortKey(a).localeCompare(sortKey(b))).join(", ")} } from "${up}wire/index.js";`);
  f.print("");
  f.print("// Unused imports are kept so that every generated file has the same header.");
  f.print("void AguiWireError; void ValidationError; void enumName; void malformed; void readValue; void writeValueField; void readStruct; void writeStructField;");
  f.print("");

  const union = allMessages(file).find((m) => m.typeName === options.union);
  const unionArms = new Map<string, { arm: DescField; type: string }>();
  if (union) {
    for (const arm of union.oneofs[0]!.fields) {
      if (arm.fieldKind !== "message") throw new Error("protoc-gen-agui-codec: union arms must be messages");
      unionArms.set(arm.message.typeName, { arm, type: arm.name.toUpperCase() });
    }
  }

  for (const e of allEnums(file)) {
    const names = e.values.map((v) => v.localName.toLowerCase());
    f.print(`/** Names of ${e.typeName} values, by number. */`);
    f.print(`export const ${ident(e)}_NAMES: readonly string[] = ${JSON.stringify(names)};`);
    f.print(`/** Numbers of ${e.typeName} values, by name. */`);
    f.print(`export const ${ident(e)}_NUMBERS: Readonly<Record<string, number>> = { ${e.values.map((v) => `${JSON.stringify(v.localName.toLowerCase())}: ${v.number}`).join(", ")} };`);
    f.print("");
  }

  // Arms of the nested JSON unions: their objects carry `type` = the arm's name.
  const armTypes = new Map<string, string>();
  for (const m of allMessages(file)) {
    if (!options.unions.has(m.typeName)) continue;
    for (const arm of unionOneof(m).fields) armTypes.set(arm.message!.typeName, arm.name);
  }

  for (const m of allMessages(file)) {
    if (m.typeName === options.union) generateUnion(f, m, [...unionArms.values()], EVENT_WORDS);
    else if (options.unions.has(m.typeName)) generateUnion(f, m, unionOneof(m).fields.map((arm) => ({ arm, type: arm.name })), nestedWords(m));
    else if (m.typeName === options.flatten) generateFlattened(f, m, options);
    else generateMessage(f, m, unionArms.get(m.typeName)?.type, options, armTypes.get(m.typeName));
  }
}

/** The one oneof of a union message, whose arms must all be messages. */
function unionOneof(m: DescMessage) {
  const oneof = m.oneofs[0];
  if (m.oneofs.length !== 1 || !oneof || oneof.fields.length !== m.fields.length) {
    throw new Error(`protoc-gen-agui-codec: union ${m.typeName} must hold exactly one oneof and no other field`);
  }
  for (const arm of oneof.fields) {
    if (arm.fieldKind !== "message") throw new Error(`protoc-gen-agui-codec: arm ${m.typeName}.${arm.name} must be a message`);
  }
  return oneof;
}

/** The element check of a repeated field of message type `m`, exported by src/wire/element-checks.ts. */
function checkName(m: DescMessage): string {
  return `check${ident(m)}`;
}

function tsType(field: DescField): string {
  const single = (kind: DescField) => {
    if (kind.fieldKind === "scalar") return kind.scalar === ScalarType.STRING ? "string" : kind.scalar === ScalarType.BOOL ? "boolean" : "number";
    if (kind.fieldKind === "enum") return "string";
    const json = (typeName: string) => (typeName === VALUE ? "JsonValue" : "{ [key: string]: JsonValue }");
    if (kind.fieldKind === "message") return isJson(kind.message.typeName) ? json(kind.message.typeName) : `${ident(kind.message)}Fields`;
    if (kind.fieldKind === "list" && kind.listKind === "message") return isJson(kind.message.typeName) ? json(kind.message.typeName) : `${ident(kind.message)}Fields`;
    if (kind.fieldKind === "list" && kind.listKind === "scalar" && kind.scalar === ScalarType.STRING) return "string";
    throw new Error(`protoc-gen-agui-codec: unsupported field ${kind.parent.typeName}.${kind.name}`);
  };
  return field.fieldKind === "list" ? `${single(field)}[]` : single(field);
}

function isOptional(field: DescField, inEvent: boolean): boolean {
  if (field.fieldKind === "list") return !inEvent;
  return field.fieldKind === "message" || field.proto.proto3Optional === true;
}

function generateFields(f: GeneratedFile, m: DescMessage, eventType: string | undefined, options: Options, armType?: string): DescField[] {
  const own = m.fields.filter((fl) => !(fl.fieldKind === "message" && fl.message.typeName === options.flatten));
  f.print(`/** Plain-object form of ${m.typeName}${options.adapt.has(m.typeName) ? ", as on the wire (adapters.ts maps it to and from the model's)" : ""}. */`);
  f.print(`export interface ${ident(m)}Fields {`);
  if (armType !== undefined) f.print(`  type: ${JSON.stringify(armType)};`);
  if (eventType) {
    f.print(`  type: ${JSON.stringify(eventType)};`);
    f.print("  timestamp?: number;");
    f.print("  rawEvent?: JsonValue;");
    f.print("  metadata?: { [key: string]: JsonValue };");
  }
  for (const field of own) f.print(`  ${field.localName}${isOptional(field, !!eventType) ? "?" : ""}: ${tsType(field)};`);
  f.print("}");
  f.print("");
  return own;
}

/**
 * The call that writes a JSON-valued well-known message's length and body (the JSON writer knows
 * the length before it copies the body, so no fork and join), or undefined for other messages.
 */
function jsonWriter(typeName: string, access: string): string | undefined {
  return typeName === VALUE ? `writeValueField(w, ${access})` : typeName === STRUCT ? `writeStructField(w, ${access})` : undefined;
}

/** The expression that reads a message field's body at the reader, JSON-valued ones included. */
function messageReader(typeName: string, target: DescMessage): string {
  return typeName === VALUE ? "readValue(r, r.delimited(), 0)" : typeName === STRUCT ? "readStruct(r, r.delimited(), 0)" : `read${ident(target)}(r, r.delimited())`;
}

function writeStatements(field: DescField, access: string): string[] {
  const wt = wireTypeOf(field);
  const tag = writeTag(field, field.fieldKind === "list" ? 2 : wt);
  if (field.fieldKind === "list" && field.listKind === "scalar" && field.scalar === ScalarType.STRING) {
    return [`{ const list = ${access}; if (list !== undefined) for (let i = 0; i < list.length; i++) { ${tag} w.string(list[i]!); } }`];
  }
  if (field.fieldKind === "list") {
    if (field.listKind !== "message") throw new Error(`protoc-gen-agui-codec: repeated ${field.parent.typeName}.${field.name} must hold messages or strings`);
    const json = jsonWriter(field.message.typeName, "item");
    const inner = json ? `${json};` : `const m = w.fork(); write${ident(field.message)}(w, item); w.join(m);`;
    return [`{ const list = ${access}; if (list !== undefined) for (let i = 0; i < list.length; i++) { const item = list[i]!; ${tag} ${inner} } }`];
  }
  if (field.fieldKind === "message") {
    const json = jsonWriter(field.message.typeName, access);
    const inner = json ? `${json};` : `const m = w.fork(); write${ident(field.message)}(w, ${access}); w.join(m);`;
    return [`if (${access} !== undefined) { ${tag} ${inner} }`];
  }
  const optional = field.proto.proto3Optional === true;
  if (field.fieldKind === "enum") {
    const num = `${ident(field.enum)}_NUMBERS[${access}]`;
    return optional
      ? [`if (${access} !== undefined) { ${tag} w.uint32(${num}!); }`]
      : [`{ const n = ${num}; if (n) { ${tag} w.uint32(n); } }`];
  }
  const cond = optional ? `${access} !== undefined` : field.scalar === ScalarType.STRING ? `${access} !== ""` : field.scalar === ScalarType.BOOL ? `${access}` : `${access} !== 0`;
  // Ids (message_id, tool_call_id, run_id, ...) repeat from one event to the next: the writer
  // copies the bytes of the last one it wrote instead of encoding it again.
  const write =
    field.scalar === ScalarType.STRING ? `w.${field.name.endsWith("_id") ? "id" : "string"}(${access})` : field.scalar === ScalarType.INT64 ? `w.int64(${access})` : field.scalar === ScalarType.BOOL ? `w.ensure(1); w.byte(${access} ? 1 : 0)` : `w.double(${access})`;
  return [`if (${cond}) { ${tag} ${write}; }`];
}

function readCase(field: DescField, target: string, inEvent: boolean): string {
  const tag = tagValue(field.number, field.fieldKind === "list" ? 2 : wireTypeOf(field));
  let read: string;
  if (field.fieldKind === "list" && field.listKind === "scalar") {
    read = "r.string()";
  } else if (field.fieldKind === "list" || field.fieldKind === "message") {
    read = messageReader(field.message.typeName, field.message);
  } else if (field.fieldKind === "enum") {
    read = `enumName(${ident(field.enum)}_NAMES, r.uint32())`;
  } else {
    read = field.scalar === ScalarType.STRING ? "r.string()" : field.scalar === ScalarType.INT64 ? "r.int64()" : field.scalar === ScalarType.BOOL ? "r.uint32() !== 0" : "r.double()";
  }
  if (field.fieldKind === "list") {
    const list = inEvent ? `${target}.${field.localName}` : `(${target}.${field.localName} ??= [])`;
    if (field.listKind === "scalar" || isJson(field.message.typeName)) return `case ${hex(tag)}: ${list}.push(${read}); break;`;
    return `case ${hex(tag)}: { const keep = r.keeping; const item = ${checkName(field.message)}(r, ${read}, keep); if (keep) ${list}.push(item); break; }`;
  }
  return `case ${hex(tag)}: ${target}.${field.localName} = ${read}; break;`;
}

function initialValue(field: DescField, inEvent: boolean): string | undefined {
  if (field.fieldKind === "list") return inEvent ? "[]" : undefined;
  if (field.fieldKind === "message" || field.proto.proto3Optional) return undefined;
  if (field.fieldKind === "enum") return `${ident(field.enum)}_NAMES[0]!`;
  return field.scalar === ScalarType.STRING ? '""' : field.scalar === ScalarType.BOOL ? "false" : "0";
}

function generateMessage(f: GeneratedFile, m: DescMessage, eventType: string | undefined, options: Options, armType?: string): void {
  const own = generateFields(f, m, eventType, options, armType);
  const name = ident(m);
  const base = m.fields.find((fl) => fl.fieldKind === "message" && fl.message.typeName === options.flatten);
  if (eventType && !base) throw new Error(`protoc-gen-agui-codec: event message ${m.typeName} lacks its ${options.flatten} field`);
  const adapt = options.adapt.has(m.typeName);

  f.print(`/** Writes the fields of ${m.typeName} from \`v\` (the caller writes the tag and length). */`);
  if (adapt) {
    f.print(`export function write${name}(w: Writer, model: ${name}Fields): void {`);
    f.print(`  const v = toWire${name}(model);`);
  } else f.print(`export function write${name}(w: Writer, v: ${name}Fields): void {`);
  for (const field of m.fields) {
    if (field === base) {
      f.print(`  ${writeTag(field, 2)} const b = w.fork(); write${ident(field.message as DescMessage)}(w, v, ${eventTypeNumber(field.message as DescMessage, eventType!)}); w.join(b);`);
      continue;
    }
    for (const line of writeStatements(field, `v.${field.localName}`)) f.print(`  ${line}`);
  }
  f.print("}");
  f.print("");

  const inits = own.map((fl) => [fl.localName, initialValue(fl, !!eventType)] as const).filter(([, v]) => v !== undefined);
  const typeValue = eventType ?? armType;
  const initFields = [...(typeValue !== undefined ? [`type: ${JSON.stringify(typeValue)}`] : []), ...inits.map(([k, v]) => `${k}: ${v}`)];
  f.print(`/** Reads a ${m.typeName} whose fields end at \`end\`. */`);
  f.print(`export function read${name}(r: Reader, end: number): ${name}Fields {`);
  const strings = base && !adapt && !PER_TOKEN.has(eventType!) ? stringFields(m, base) : undefined;
  if (strings) {
    const type = eventTypeNumber(base.message as DescMessage, eventType!);
    f.print(`  return readStringEvent(r, end, { ${initFields.join(", ")} }, ${type}, ${JSON.stringify(strings)});`);
    f.print("}");
    f.print("");
    return;
  }
  f.print(`  const v: ${name}Fields = { ${initFields.join(", ")} };`);
  if (base) f.print("  let hasBase = false;");
  f.print("  while (r.pos < end) {");
  f.print("    const tag = r.tag();");
  f.print("    switch (tag) {");
  for (const field of m.fields) {
    if (field === base) {
      f.print(`      case ${hex(tagValue(field.number, 2))}: read${ident(field.message as DescMessage)}(r, r.delimited(), v, ${eventTypeNumber(field.message as DescMessage, eventType!)}); hasBase = true; break;`);
    } else f.print(`      ${readCase(field, "v", !!eventType)}`);
  }
  // An event's errors name it by its type (already a string on the object); other messages by
  // their protobuf name.
  const label = eventType ? "v.type" : JSON.stringify(m.typeName);
  f.print(`      default: skipField(r, tag, ${hex(knownMask(m))}, ${label});`);
  f.print("    }");
  f.print("  }");
  if (base) {
    // Reader.endEvent words the error for a missing BaseEvent (field 1); other names or numbers
    // would need their own wording.
    if (base.message!.name !== "BaseEvent" || base.number !== 1) throw new Error(`protoc-gen-agui-codec: ${m.typeName}'s base must be BaseEvent, field 1`);
    f.print(`  // Other implementations reject an event without its ${base.message!.name}; so do we, rather than guess its type.`);
    f.print("  r.endEvent(end, v.type, hasBase);");
  } else f.print(`  r.checkEnd(end, ${label});`);
  f.print(adapt ? `  return fromWire${name}(v);` : "  return v;");
  f.print("}");
  f.print("");
}

/**
 * The events read once per token of a stream: they keep a reader of their own (a switch on the
 * tag), the fastest there is, rather than share {@link stringFields}' loop.
 */
const PER_TOKEN = new Set(["TEXT_MESSAGE_CONTENT", "TOOL_CALL_ARGS", "REASONING_MESSAGE_CONTENT"]);

/**
 * The names of an event's own fields when they are all plain strings numbered from 2 on (its base
 * being field 1), in number order; undefined otherwise. Such events share one generated reader,
 * readStringEvent: a dozen loops alike cost a browser bundle about as much as their fields.
 */
function stringFields(m: DescMessage, base: DescField): string[] | undefined {
  const own = m.fields.filter((fl) => fl !== base).sort((a, b) => a.number - b.number);
  if (base.number !== 1) return undefined;
  const plain = own.every((fl, i) => fl.number === i + 2 && fl.fieldKind === "scalar" && fl.scalar === ScalarType.STRING);
  return plain && own.length < 29 ? own.map((fl) => fl.localName) : undefined;
}

/** The number of the flattened message's `type` enum value named like the event type. */
function eventTypeNumber(flattened: DescMessage, eventType: string): number {
  const typeField = flattened.fields.find((fl) => fl.localName === "type");
  if (typeField?.fieldKind !== "enum") throw new Error(`protoc-gen-agui-codec: ${flattened.typeName} needs an enum field "type"`);
  const value = typeField.enum.values.find((v) => v.localName === eventType);
  if (!value) throw new Error(`protoc-gen-agui-codec: ${typeField.enum.typeName} has no value for ${eventType}`);
  return value.number;
}

function generateFlattened(f: GeneratedFile, m: DescMessage, options: Options): void {
  const name = ident(m);
  const typeField = m.fields.find((fl) => fl.fieldKind === "enum" && fl.localName === "type");
  if (!typeField || typeField.fieldKind !== "enum") throw new Error(`protoc-gen-agui-codec: ${m.typeName} needs an enum field "type"`);
  const rest = m.fields.filter((fl) => fl !== typeField);
  f.print(`/** The ${m.typeName} fields that live on every event object. */`);
  f.print(`export interface ${name}Fields {`);
  f.print("  type: string;");
  for (const field of rest) f.print(`  ${field.localName}${isOptional(field, false) ? "?" : ""}: ${tsType(field)};`);
  f.print("}");
  f.print("");
  f.print(`/** Writes ${m.typeName} from an event object, with \`type\` set from the event's arm. */`);
  f.print(`export function write${name}(w: Writer, v: ${name}Fields, type: number): void {`);
  f.print(`  if (type) { ${writeTag(typeField, 0)} w.uint32(type); }`);
  for (const field of rest) for (const line of writeStatements(field, `v.${field.localName}`)) f.print(`  ${line}`);
  f.print("}");
  f.print("");
  f.print(`/**`);
  f.print(` * Reads ${m.typeName} into the event object \`v\`, checking that its type is \`expected\`: the`);
  f.print(` * number of the arm the event arrived in.`);
  f.print(` */`);
  f.print(`export function read${name}(r: Reader, end: number, v: ${name}Fields, expected: number): void {`);
  f.print("  let type = 0;");
  f.print("  while (r.pos < end) {");
  f.print("    const tag = r.tag();");
  f.print("    switch (tag) {");
  f.print(`      case ${hex(tagValue(typeField.number, 0))}: type = r.uint32(); break;`);
  for (const field of rest) f.print(`      ${readCase(field, "v", false)}`);
  f.print(`      default: skipField(r, tag, ${hex(knownMask(m))}, ${JSON.stringify(m.typeName)});`);
  f.print("    }");
  f.print("  }");
  f.print(`  r.checkEnd(end, ${JSON.stringify(m.typeName)});`);
  f.print("  if (type !== expected) {");
  // The model's names of the event types, rather than this enum's lower-cased ones upper-cased
  // again: a browser bundle holds those already.
  f.print("    const found = EVENT_TYPES[type] ?? String(type);");
  f.print("    throw malformed(`${v.type} event carries ${" + JSON.stringify(m.name) + "}.type ${found}, which disagrees with it`);");
  f.print("  }");
  f.print("}");
  f.print("");
  f.print("/**");
  f.print(" * Reads an event whose own fields are all strings, field n being `keys[n - 2]` (field 1 is its");
  f.print(` * ${m.name}), into \`v\`, which holds its type and its required fields' defaults. The readers of`);
  f.print(" * such events share this loop (the generator's stringFields says which); the per-token events keep");
  f.print(" * their own. `type` is the number of the event's arm.");
  f.print(" */");
  f.print(`function readStringEvent<T extends ${name}Fields>(r: Reader, end: number, v: T, type: number, keys: readonly string[]): T {`);
  f.print("  const fields = v as unknown as Record<string, string>;");
  f.print("  let hasBase = false;");
  f.print("  while (r.pos < end) {");
  f.print("    const tag = r.tag();");
  f.print("    const key = (tag & 7) === 2 ? keys[(tag >>> 3) - 2] : undefined;");
  f.print(`    if (tag === ${hex(tagValue(1, 2))}) {`);
  f.print(`      read${name}(r, r.delimited(), v, type);`);
  f.print("      hasBase = true;");
  f.print("    } else if (key !== undefined) fields[key] = r.string();");
  f.print("    // Fields 1 to keys.length + 1 are known: another wire type for one of them is malformed.");
  f.print("    else skipField(r, tag, (2 << (keys.length + 1)) - 2, v.type);");
  f.print("  }");
  f.print("  r.endEvent(end, v.type, hasBase);");
  f.print("  return v;");
  f.print("}");
  f.print("");
  void options;
}

/**
 * How a union's generated code words its documentation and its errors: the event union's are part
 * of the public contract (an unknown arm is `unknown_event_type`), a nested union's are faults of
 * the frame.
 */
interface UnionWords {
  /** What one object of the union is, for the type's doc comment. */
  what: string;
  /** The statement of the writer's default branch. */
  writeUnknown: string;
  /** The reader's doc comment, after its first line. */
  readDoc: string[];
  /** The statement for a second arm (`v` and `next` in scope). */
  twoArms: string;
  /** The statements after the loop when no known arm was read (`unknownField` in scope). */
  noArm: string[];
}

/** The union of `m`'s oneof: a `type` on each arm's object, written and read by the arm. */
function generateUnion(f: GeneratedFile, m: DescMessage, arms: readonly { arm: DescField; type: string }[], words: UnionWords): void {
  const name = ident(m);
  // A union of many arms numbered 1, 2, 3... (the events) reads the arm from a table rather than
  // a switch: alike as they are, its cases cost more in a bundle than the table's entries.
  const table = arms.length > 8 && arms.every(({ arm }, i) => arm.number === i + 1);
  f.print(`/** ${words.what}: a union on \`type\`. */`);
  f.print(`export type ${name}Fields = ${arms.map(({ arm }) => `${ident(arm.message!)}Fields`).join(" | ")};`);
  f.print("");
  f.print(`/** Writes one ${m.typeName}: the arm named by \`v.type\`. */`);
  f.print(`export function write${name}(w: Writer, v: ${name}Fields): void {`);
  f.print("  switch (v.type) {");
  for (const { arm, type } of arms) {
    f.print(`    case ${JSON.stringify(type)}: { ${writeTag(arm, 2)} const m = w.fork(); write${ident(arm.message!)}(w, v); w.join(m); return; }`);
  }
  f.print("    default:");
  f.print(`      ${words.writeUnknown}`);
  f.print("  }");
  f.print("}");
  f.print("");
  if (table) {
    f.print(`/** The reader of each arm of ${m.typeName}, by field number less one. */`);
    f.print(`const ${name}_ARMS: readonly ((r: Reader, end: number) => ${name}Fields)[] = [${arms.map(({ arm }) => `read${ident(arm.message!)}`).join(", ")}];`);
    f.print("");
  }
  f.print(`/**`);
  f.print(` * Reads one ${m.typeName} whose fields end at \`end\`.`);
  for (const line of words.readDoc) f.print(` *${line && ` ${line}`}`);
  f.print(` */`);
  f.print(`export function read${name}(r: Reader, end: number): ${name}Fields {`);
  f.print(`  let v: ${name}Fields | undefined;`);
  f.print("  let unknownField = 0;");
  f.print("  while (r.pos < end) {");
  f.print("    const tag = r.tag();");
  if (table) {
    f.print(`    const read = (tag & 7) === 2 ? ${name}_ARMS[(tag >>> 3) - 1] : undefined;`);
    f.print("    if (read === undefined) {");
  } else {
    f.print("    let next: typeof v;");
    f.print("    switch (tag) {");
    for (const { arm } of arms) f.print(`      case ${hex(tagValue(arm.number, 2))}: next = read${ident(arm.message!)}(r, r.delimited()); break;`);
    f.print("      default:");
  }
  const pad = table ? "      " : "        ";
  // An unknown arm is a member of unknown kind, not an unknown property: `true` keeps it unreported.
  f.print(`${pad}skipField(r, tag, ${hex(knownMask(m))}, ${JSON.stringify(m.typeName)}, true);`);
  f.print(`${pad}unknownField ||= tag >>> 3;`);
  f.print(`${pad}continue;`);
  f.print("    }");
  if (table) f.print("    const next = read(r, r.delimited());");
  f.print(`    ${words.twoArms}`);
  f.print("    v = next;");
  f.print("  }");
  f.print(`  r.checkEnd(end, ${JSON.stringify(m.typeName)});`);
  for (const line of words.noArm) f.print(line);
  f.print("  return v;");
  f.print("}");
  f.print("");
}

/** The event union's words: an arm this schema lacks is an event type it does not know. */
const EVENT_WORDS: UnionWords = {
  what: "Any event object",
  writeUnknown: "throw new ValidationError(\"unknown_event_type\", `cannot encode unknown event type ${JSON.stringify((v as { type: unknown }).type)}`);",
  readDoc: [
    "",
    "Fields that are not arms of this schema are skipped when a known arm is present, so that a",
    "peer's newer envelope fields do not break decoding; with no known arm they mean an event",
    "type this schema lacks.",
    "",
    "@throws {ValidationError} `unknown_event_type` when the only arms present are unknown ones.",
    "@throws {AguiWireError} `malformed_frame` for no arm at all, two known arms, or any wire-level",
    "  fault.",
  ],
  twoArms: "if (v !== undefined) throw malformed(`the Event message holds two events (${v.type} and ${next.type})`);",
  noArm: [
    "  if (v === undefined && unknownField) {",
    "    throw new ValidationError(\"unknown_event_type\", `unknown event type: the Event message holds field ${unknownField}, which is not an event this schema knows`);",
    "  }",
    `  if (v === undefined) throw malformed("the Event message holds no event");`,
  ],
};

/** A nested union's words (a content part, a part's source): anything but one known arm is a fault. */
function nestedWords(m: DescMessage): UnionWords {
  return {
    what: `Any ${m.typeName} object`,
    writeUnknown: `throw new ValidationError("invalid_event", \`cannot encode ${m.name} of type \${JSON.stringify((v as { type: unknown }).type)}\`);`,
    readDoc: [
      "",
      "For a tolerant reader (`r.tolerant`), an arm this schema lacks reads as a member of unknown",
      "kind, `{ type: \"field N\" }`, which the model's tolerant judge strips where it sits.",
      "",
      "@throws {AguiWireError} `malformed_frame` for no arm this schema knows (unless tolerant), two",
      "  arms, or any wire-level fault.",
    ],
    twoArms: `if (v !== undefined) throw malformed(\`${m.name} holds two arms (\${v.type} and \${next.type})\`);`,
    noArm: [
      "  if (v === undefined) {",
      "    if (unknownField && r.tolerant) return { type: `field ${unknownField}` } as never;",
      `    throw malformed(unknownField ? \`${m.name} holds field \${unknownField}, which is not a kind this schema knows\` : ${JSON.stringify(`${m.name} holds nothing`)});`,
      "  }",
    ],
  };
}

/** The most string fields a small frame's event may have (src/wire/small-frame.ts sizes for it). */
const SMALL_FRAME_FIELDS = 6;

/**
 * The union's arms whose own fields are all strings (required or optional, tags of one byte) and
 * whose JSON form is the plain mapping: the events {@link generateSmallFrames} writes in one pass.
 */
function smallArms(union: DescMessage, options: Options): { arm: DescField; type: string; fields: DescField[] }[] {
  const out: { arm: DescField; type: string; fields: DescField[] }[] = [];
  for (const arm of union.oneofs[0]!.fields) {
    const m = arm.message!;
    if (options.adapt.has(m.typeName)) continue;
    const fields = m.fields.filter((fl) => !(fl.fieldKind === "message" && fl.message.typeName === options.flatten));
    const strings = fields.every((fl) => fl.fieldKind === "scalar" && fl.scalar === ScalarType.STRING && fl.number < 16);
    if (strings && fields.length <= SMALL_FRAME_FIELDS) out.push({ arm, type: arm.name.toUpperCase(), fields });
  }
  return out;
}

/**
 * `<file>_frame.ts`: `frameSmallEvent`, the one-pass frame of a string-only event (see
 * src/wire/small-frame.ts), encoder-only and in a file of its own so that nothing the decoder
 * imports holds it. Its bytes are those of writeEvent's, framed (test/binary holds them to that).
 */
function generateSmallFrames(f: GeneratedFile, file: DescFile, union: DescMessage, options: Options): void {
  f.preamble(file);
  const depth = file.name.split("/").length - 1;
  const up = "../".repeat(depth + 1);
  const arms = smallArms(union, options);
  const base = allMessages(file).find((m) => m.typeName === options.flatten);
  if (!base) throw new Error(`protoc-gen-agui-codec: ${options.flatten} is not in ${file.name}`);
  const baseFields = base.fields.filter((fl) => fl.localName !== "type");
  f.print(`import { closeSmallFrame, openSmallFrame, putSmallString, SMALL_STRING_UNITS } from "${up}wire/index.js";`);
  f.print(`import type { ${ident(union)}Fields } from "./${file.name.split("/").pop()}_codec.js";`);
  f.print("");
  f.print("/**");
  f.print(` * The frame (4-byte length, then the ${union.typeName} message) of \`v\`, written in one pass, when`);
  f.print(" * it is a small string-only event: of a type whose own fields are all strings, with no base field");
  f.print(" * but its type, and at most SMALL_STRING_UNITS UTF-16 units a string. Undefined otherwise, for");
  f.print(" * the general writer. The bytes are writeEvent's. `v` has been validated.");
  f.print(" *");
  f.print(" * The base fields are looked at within each type's case rather than once before the switch, where");
  f.print(" * every event type's objects would meet on one property lookup and make it megamorphic.");
  f.print(" */");
  f.print(`export function frameSmallEvent(v: ${ident(union)}Fields): Uint8Array | undefined {`);
  f.print("  switch (v.type) {");
  for (const { arm, type, fields } of arms) {
    const tagBytesList = tagBytes(arm.number, 2);
    if (tagBytesList.length > 2) throw new Error(`protoc-gen-agui-codec: arm ${arm.name} needs a tag of more than two bytes`);
    const tag = tagBytesList[0]! | ((tagBytesList[1] ?? 0) << 8);
    const typeNo = eventTypeNumber(base, type);
    const names = fields.map((fl) => `f${fl.number}`);
    f.print(`    case ${JSON.stringify(type)}: {`);
    f.print(`      if (${baseFields.map((fl) => `v.${fl.localName} !== undefined`).join(" || ")}) return undefined;`);
    f.print(`      const ${fields.map((fl, i) => `${names[i]} = v.${fl.localName}`).join(", ")};`);
    const long = fields.map((fl, i) => (fl.proto.proto3Optional ? `(${names[i]} !== undefined && ${names[i]}.length > SMALL_STRING_UNITS)` : `${names[i]}.length > SMALL_STRING_UNITS`));
    f.print(`      if (${long.join(" || ")}) return undefined;`);
    f.print(`      const w = openSmallFrame(${hex(tag)}, ${typeNo});`);
    fields.forEach((fl, i) => {
      const cond = fl.proto.proto3Optional ? `${names[i]} !== undefined` : `${names[i]} !== ""`;
      f.print(`      if (${cond}) putSmallString(w, ${hex(tagValue(fl.number, 2))}, ${names[i]});`);
    });
    f.print(`      return closeSmallFrame(w, ${hex(tag)});`);
    f.print("    }");
  }
  f.print("    default:");
  f.print("      return undefined;");
  f.print("  }");
  f.print("}");
}
