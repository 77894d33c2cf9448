// The zod event model and the protobuf schema describe the same events. This test walks the
// generated descriptors and the zod schemas side by side and fails on any event type, field or
// type that one has and the other lacks, in either direction.
//
// Where the JSON form of an event folds several wire fields into one (src/wire/adapters.ts), the
// fold is named in FOLDED below and checked form by form, rather than the message being skipped.
import { ARMS_1_0 } from "../fixtures/arms.js";
import { ScalarType, create, toBinary, type DescEnum, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { decodeEvent } from "../../src/binary/index.js";
import {
  EventSchema as ProtoEventSchema,
  EventType as ProtoEventType,
  EventTypeSchema as ProtoEventTypeSchema,
  file_agui_wire_v1_events,
} from "../../src/gen/agui/wire/v1/events_pb.js";
import { file_agui_wire_v1_messages } from "../../src/gen/agui/wire/v1/messages_pb.js";
import { EVENT_SCHEMAS, EVENT_TYPES, JsonObjectSchema, JsonValueSchema, NonNullJsonSchema } from "../../src/model/index.js";

type Zod = z.ZodMiniType;
type Def = { type: string } & Record<string, unknown>;
const def = (s: Zod): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** A model field: the schema of each object variant that has it, and whether it may be absent. */
interface ModelField {
  variants: Zod[];
  optional: boolean;
}

/**
 * Wire fields that the JSON form folds into one model field, by proto message: the adapters in
 * src/wire/adapters.ts map between the two, and `@ag-ui/proto` 1.0 fixes the wire side.
 */
interface Fold {
  /** The model field. */
  model: string;
  /** The proto fields (local names) that together carry it. */
  wire: readonly string[];
  /** Why the wire splits it. */
  why: string;
  /** How the model's forms map to the wire fields. */
  check: (where: string, model: ModelField, message: DescMessage, fold: Fold) => void;
}

const FOLDED: Readonly<Record<string, readonly Fold[]>> = {
  "agui.wire.v1.Message": [
    {
      model: "content",
      wire: ["content", "contentParts", "activityContent"],
      why: "a message's content is text, a list of parts (user and tool messages) or an object (activity messages); protobuf has no union of a string, a list and a Struct, so each form has a field of its own",
      check: checkContentForms,
    },
  ],
  "agui.wire.v1.ToolCallResultEvent": [
    {
      model: "content",
      wire: ["content", "contentParts"],
      why: "a tool result's content is text or a list of parts, each with a field of its own",
      check: checkContentForms,
    },
  ],
  "agui.wire.v1.RunFinishedEvent": [
    {
      model: "outcome",
      wire: ["outcome", "interrupts", "pendingToolCallIds"],
      why: "the outcome is an object on `type`; the wire holds the type as a string (empty for none) and the outcome's lists as fields of the event",
      check: checkOutcome,
    },
  ],
  "agui.wire.v1.SubagentFinishedEvent": [
    {
      model: "outcome",
      wire: ["outcome", "interruptIds"],
      why: "as RUN_FINISHED's outcome: its type as a string, its interrupt ids as a field of the event",
      check: checkOutcome,
    },
  ],
};

/**
 * Fields that the wire marks `optional` and the model requires, with why. A field not listed here
 * that is optional on the wire must be optional in the model.
 */
const REQUIRED_THOUGH_OPTIONAL_ON_WIRE: Readonly<Record<string, string>> = {
  "agui.wire.v1.CustomEvent.value":
    "1.0 requires CUSTOM's value (null is the empty one) where @ag-ui/proto 1.0 marks it optional; a frame without it decodes to an event without value, which the model refuses (checked below)",
};

/** Strips optional/default wrappers, saying whether the field may be absent on input. */
function unwrap(schema: Zod): { inner: Zod; optional: boolean } {
  let optional = false;
  let inner = schema;
  for (;;) {
    const d = def(inner);
    if (d.type === "optional" || d.type === "default") {
      optional = true;
      inner = d.innerType as Zod;
    } else return { inner, optional };
  }
}

/** The object variants of an object schema or of a discriminated union of objects. */
function variantsOf(schema: Zod): Zod[] {
  const d = def(schema);
  return d.type === "union" ? (d.options as Zod[]) : [schema];
}

const shapeOf = (variant: Zod) => (variant as unknown as z.ZodMiniObject).shape as Record<string, Zod>;

/** The fields of an object schema, or of every variant of a discriminated union of objects. */
function fieldsOf(schema: Zod): Map<string, ModelField> {
  const variants = variantsOf(schema);
  const fields = new Map<string, ModelField>();
  for (const variant of variants) {
    for (const [key, value] of Object.entries(shapeOf(variant))) {
      const { inner, optional } = unwrap(value);
      const entry = fields.get(key) ?? { variants: [], optional: false };
      entry.variants.push(inner);
      entry.optional ||= optional;
      fields.set(key, entry);
    }
  }
  // A key that some variants lack is optional on the wire.
  for (const entry of fields.values()) if (entry.variants.length < variants.length) entry.optional = true;
  return fields;
}

/** What kind of value a (non-wrapper) model schema holds. */
function kindOf(s: Zod): string {
  if (s === JsonValueSchema || s === NonNullJsonSchema) return "json";
  if (s === JsonObjectSchema) return "jsonObject";
  const d = def(s);
  // The model's int() (src/model/int.ts) holds a safe-integer minimum; other numbers are floats.
  if (d.type === "number") return typeof (d as { minimum?: unknown }).minimum === "number" ? "int" : "float";
  if (d.type === "union") return d.discriminator === undefined ? "textOrParts" : "discriminatedUnion";
  return d.type;
}

const messageTypeName = (field: DescField) => (field.fieldKind === "message" ? field.message.typeName : undefined);

/** Fails unless a model field (all its variants) and a proto field can carry the same values. */
function expectCompatible(where: string, model: ModelField, field: DescField): void {
  const first = model.variants[0]!;
  const kind = kindOf(first);
  for (const v of model.variants) expect(kindOf(v), `${where}: every variant of the field has one kind`).toBe(kind);
  if (field.fieldKind === "list") {
    expect(kind, `${where}: a repeated field needs an array`).toBe("array");
    const element = def(first).element as Zod;
    if (field.listKind === "message") expectSameMessage(where, element, field.message);
    else if (field.listKind === "scalar") {
      expect(kindOf(element), `${where}: a list of strings`).toBe("string");
      expect(field.scalar, where).toBe(ScalarType.STRING);
    } else throw new Error(`${where}: no mapping for a repeated ${field.listKind}`);
    return;
  }
  expect(kind, `${where}: a singular proto field needs a singular model field`).not.toBe("array");

  const proto3Optional = field.proto.proto3Optional === true;
  const key = `${field.parent.typeName}.${field.localName}`;
  if (field.fieldKind === "message") {
    // A message field has presence whether or not it is marked optional, so the model may make it
    // optional either way; one marked optional is optional in the model unless listed.
    if (proto3Optional && !model.optional) {
      expect(REQUIRED_THOUGH_OPTIONAL_ON_WIRE, `${where}: optional on the wire, required in the model`).toHaveProperty([key]);
      exceptionsUsed.add(key);
    }
  } else {
    expect(proto3Optional, `${where}: optional in the model iff optional in proto`).toBe(model.optional);
  }

  switch (kind) {
    case "json":
      expect(messageTypeName(field), `${where}: any JSON needs a Value`).toBe("google.protobuf.Value");
      return;
    case "jsonObject":
      // A Struct holds only objects; a Value holds them too (a metadata or schema field of 1.0's wire).
      expect(["google.protobuf.Struct", "google.protobuf.Value"], `${where}: a JSON object needs a Struct or a Value`).toContain(messageTypeName(field));
      return;
    case "string":
      expect(field.fieldKind === "scalar" && field.scalar, `${where}: string`).toBe(ScalarType.STRING);
      return;
    case "int":
      expect(field.fieldKind === "scalar" && field.scalar, `${where}: integer`).toBe(ScalarType.INT64);
      return;
    case "boolean":
      expect(field.fieldKind === "scalar" && field.scalar, `${where}: boolean`).toBe(ScalarType.BOOL);
      return;
    case "literal":
    case "enum": {
      const values =
        kind === "literal" ? model.variants.flatMap((v) => def(v).values as unknown[]) : Object.values(def(first).entries as Record<string, string>);
      // A proto enum must match the model's values: exactly for a union's discriminator (JSON Patch
      // `op`) or a zod enum, as a superset for a single literal (an event's `type`). A string field
      // carries the value's own text.
      if (field.fieldKind === "enum") expectEnumCovers(where, field.enum, values, kind === "enum" || model.variants.length > 1);
      else expect(field.fieldKind === "scalar" && field.scalar, `${where}: string for ${JSON.stringify(values)}`).toBe(ScalarType.STRING);
      return;
    }
    case "object":
    case "discriminatedUnion":
      if (field.fieldKind !== "message") throw new Error(`${where}: expected a message field`);
      expectSameMessage(where, first, field.message);
      return;
    default:
      throw new Error(`${where}: no mapping for zod kind ${kind}`);
  }
}

/** Literal values match enum value names (without the enum's prefix, compared lower-cased). */
function expectEnumCovers(where: string, desc: DescEnum, values: unknown[], exactly: boolean): void {
  const names = desc.values.map((v) => v.localName.toLowerCase()).sort();
  const wanted = values.map((v) => String(v).toLowerCase()).sort();
  if (exactly) expect(names, where).toEqual(wanted);
  else expect(names, where).toEqual(expect.arrayContaining(wanted));
}

/**
 * A discriminated union whose proto message is one oneof named by the discriminator's values
 * (content parts on `type`, part sources on `type`): each variant, less its discriminator, is its
 * arm's message.
 */
function expectOneofUnion(where: string, model: Zod, message: DescMessage): void {
  const discriminator = def(model).discriminator as string;
  const oneof = message.oneofs[0]!;
  const variants = variantsOf(model);
  const byValue = new Map(variants.map((v) => [def(shapeOf(v)[discriminator]!).values as unknown[], v] as const).map(([values, v]) => [String(values[0]), v]));
  expect(oneof.fields.map((f) => f.localName).sort(), `${where}: ${message.typeName} arms vs ${discriminator} values`).toEqual([...byValue.keys()].sort());
  for (const arm of oneof.fields) {
    if (arm.fieldKind !== "message") throw new Error(`${where}.${arm.localName}: an arm must be a message`);
    expectSameMessage(`${where}.${arm.localName}`, byValue.get(arm.localName)!, arm.message, [discriminator]);
  }
}

/** The proto messages the walk has compared with a model schema. */
const visited = new Set<string>();
/** The entries of REQUIRED_THOUGH_OPTIONAL_ON_WIRE the walk has needed. */
const exceptionsUsed = new Set<string>();

function expectSameMessage(where: string, model: Zod, message: DescMessage, skip: string[] = []): void {
  visited.add(message.typeName);
  if (kindOf(model) === "discriminatedUnion" && message.oneofs.length === 1 && message.oneofs[0]!.fields.length === message.fields.length) {
    expectOneofUnion(where, model, message);
    return;
  }
  const folds = FOLDED[message.typeName] ?? [];
  const fields = fieldsOf(model);
  const folded = new Map(folds.map((fold) => [fold.model, fields.get(fold.model)] as const));
  for (const name of [...skip, ...folds.map((f) => f.model)]) fields.delete(name);
  const hidden = new Set([...skip, ...folds.flatMap((f) => f.wire)]);
  const protoFields = message.fields.filter((f) => !hidden.has(f.localName));
  expect([...fields.keys()].sort(), `${where}: model fields vs ${message.typeName} fields`).toEqual(protoFields.map((f) => f.localName).sort());
  for (const field of protoFields) expectCompatible(`${where}.${field.localName}`, fields.get(field.localName)!, field);
  for (const fold of folds) {
    const model = folded.get(fold.model);
    if (model === undefined) throw new Error(`${where}: the model has no ${fold.model} to fold ${fold.wire.join(", ")} into`);
    fold.check(`${where}.${fold.model}`, model, message, fold);
  }
}

function wireField(where: string, message: DescMessage, name: string): DescField {
  const field = message.fields.find((f) => f.localName === name);
  if (field === undefined) throw new Error(`${where}: ${message.typeName} has no field ${name}`);
  return field;
}

/**
 * A content that is text, parts or an object: text goes to `content` (an optional string), parts
 * to `contentParts` (repeated ContentPart), an object to `activityContent` (a Struct). Each form
 * the model has needs its wire field, and each wire field of the fold a form.
 */
function checkContentForms(where: string, model: ModelField, message: DescMessage, fold: Fold): void {
  const used = new Set<string>();
  for (const variant of model.variants) {
    const kind = kindOf(variant);
    const forms = kind === "textOrParts" ? (def(variant).options as Zod[]) : [variant];
    for (const form of forms) {
      const formKind = kindOf(form);
      if (formKind === "string") {
        const text = wireField(where, message, "content");
        expect(text.fieldKind === "scalar" && text.scalar, `${where}: text goes to an optional string`).toBe(ScalarType.STRING);
        expect(text.proto.proto3Optional, `${where}: text is absent when the content is parts or an object`).toBe(true);
        used.add("content");
      } else if (formKind === "array") {
        const parts = wireField(where, message, "contentParts");
        if (parts.fieldKind !== "list" || parts.listKind !== "message") throw new Error(`${where}: parts go to a repeated message`);
        expectSameMessage(`${where}[]`, def(form).element as Zod, parts.message);
        used.add("contentParts");
      } else if (formKind === "jsonObject") {
        expect(messageTypeName(wireField(where, message, "activityContent")), `${where}: an object goes to a Struct`).toBe("google.protobuf.Struct");
        used.add("activityContent");
      } else {
        throw new Error(`${where}: no wire field for a content of kind ${formKind}`);
      }
    }
  }
  expect([...used].sort(), `${where}: the folded fields are exactly those the model's forms use`).toEqual([...fold.wire].sort());
}

/**
 * An outcome, a union on `type`: the type goes to the string `outcome` (empty for none, so not
 * optional), and each variant's other fields to the event's fields of the same names.
 */
function checkOutcome(where: string, model: ModelField, message: DescMessage, fold: Fold): void {
  expect(model.optional, `${where}: an absent outcome is an empty string on the wire`).toBe(true);
  const union = model.variants[0]!;
  expect(kindOf(union), where).toBe("discriminatedUnion");
  expect(def(union).discriminator, where).toBe("type");
  const type = wireField(where, message, "outcome");
  expect(type.fieldKind === "scalar" && type.scalar, `${where}.type: a string`).toBe(ScalarType.STRING);
  expect(type.proto.proto3Optional ?? false, `${where}.type: the empty string stands for none`).toBe(false);
  const lists = fieldsOf(union);
  lists.delete("type");
  expect([...lists.keys()].sort(), `${where}: the outcome's fields are the folded ones besides outcome`).toEqual(fold.wire.filter((w) => w !== "outcome").sort());
  for (const [name, field] of lists) {
    // On the wire an empty list is an absent one, so a list the model requires is still a list.
    expectCompatible(`${where}.${name}`, { ...field, optional: true }, wireField(where, message, name));
  }
}


/** The fields of every event that the proto keeps in its BaseEvent message (field 1). */
const BASE_FIELDS = ["type", "timestamp", "rawEvent", "metadata"] as const;

describe("event model and protobuf schema", () => {
  const arms = ProtoEventSchema.oneofs[0]!.fields;

  it("have the same 31 event types, numbered as @ag-ui/proto 1.0 numbers them", () => {
    expect(arms.map((f) => f.name.toUpperCase()).sort()).toEqual([...EVENT_TYPES].sort());
    expect(ProtoEventTypeSchema.values.map((v) => v.localName)).toEqual([...EVENT_TYPES]);
    // EVENT_TYPES is in enum order: its index is the EventType number.
    expect(ProtoEventTypeSchema.values.map((v) => v.number)).toEqual(EVENT_TYPES.map((_, i) => i));
    for (const value of ProtoEventTypeSchema.values) {
      // The initial release's arms are one above their EventType; the 1.0 additions' are not.
      const arm = (ARMS_1_0 as Readonly<Record<string, number>>)[value.localName] ?? value.number + 1;
      expect(arms.find((f) => f.name.toUpperCase() === value.localName)?.number, value.localName).toBe(arm);
    }
    expect(ProtoEventSchema.fields).toHaveLength(31);
  });

  it("name every folded field and every exception where it is", () => {
    for (const [typeName, folds] of Object.entries(FOLDED)) {
      for (const fold of folds) expect(fold.why.length, `${typeName}.${fold.model}`).toBeGreaterThan(0);
    }
    expect(Object.keys(FOLDED).sort()).toEqual([
      "agui.wire.v1.Message",
      "agui.wire.v1.RunFinishedEvent",
      "agui.wire.v1.SubagentFinishedEvent",
      "agui.wire.v1.ToolCallResultEvent",
    ]);
  });

  /** Compares the event type's schema with its arm's message, and everything they hold. */
  function expectSameEvent(type: (typeof EVENT_TYPES)[number]): void {
    const arm = arms.find((f) => f.name.toUpperCase() === type)!;
    if (arm.fieldKind !== "message") throw new Error("arm is not a message");
    const base = arm.message.fields.find((f) => f.number === 1)!;
    expect(base.localName).toBe("baseEvent");
    if (base.fieldKind !== "message") throw new Error("field 1 is not a message");
    // The BaseEvent message holds type, timestamp, rawEvent and metadata; the event message the rest.
    const schema = EVENT_SCHEMAS[type] as unknown as z.ZodMiniObject;
    const shape = schema.shape as Record<string, Zod>;
    const baseShape = z.object(Object.fromEntries(BASE_FIELDS.map((k) => [k, shape[k]!])));
    expectSameMessage(`${type}.baseEvent`, baseShape as unknown as Zod, base.message);
    expectSameMessage(type, schema as unknown as Zod, arm.message, ["baseEvent", ...BASE_FIELDS]);
  }

  it.each(EVENT_TYPES)("%s: every field has a counterpart of a compatible type, both ways", (type) => {
    expectSameEvent(type);
  });

  it("compare every message of the proto files with a part of the model", () => {
    visited.clear();
    exceptionsUsed.clear();
    for (const type of EVENT_TYPES) expectSameEvent(type);
    // No exception outlives the difference it was written for.
    expect([...exceptionsUsed].sort()).toEqual(Object.keys(REQUIRED_THOUGH_OPTIONAL_ON_WIRE).sort());
    const all = (messages: readonly DescMessage[]): string[] => messages.flatMap((m) => [m.typeName, ...all(m.nestedMessages)]);
    const defined = [...all(file_agui_wire_v1_events.messages), ...all(file_agui_wire_v1_messages.messages)].filter((n) => n !== "agui.wire.v1.Event");
    expect([...visited].sort()).toEqual(defined.sort());
  });

  it("a CUSTOM frame without value (optional on the wire) decodes to an error naming value", () => {
    const bytes = toBinary(
      ProtoEventSchema,
      create(ProtoEventSchema, { event: { case: "custom", value: { baseEvent: { type: ProtoEventType.CUSTOM }, name: "n" } } }),
    );
    expect(() => decodeEvent(bytes)).toThrow(expect.objectContaining({ code: "invalid_event", message: "invalid CUSTOM event: value: expected a JSON value, found nothing" }));
  });
});
