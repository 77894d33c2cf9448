// The zod event model and the protobuf schema describe the same events. This test walks the
// generated descriptors and the zod schemas side by side and fails on any event type, field or
// type that one has and the other lacks, in either direction.
import { ScalarType, type DescEnum, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { EventSchema as ProtoEventSchema, EventTypeSchema as ProtoEventTypeSchema } from "../../src/gen/agui/wire/v1/events_pb.js";
import { EVENT_SCHEMAS, EVENT_TYPES, JsonObjectSchema, JsonValueSchema } from "../../src/index.js";

type Zod = z.ZodMiniType;
const def = (s: Zod) => (s as unknown as { def: { type: string } & Record<string, unknown> }).def;

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

/** The fields of an object schema, or of every variant of a discriminated union of objects. */
function fieldsOf(schema: Zod): Map<string, { variants: Zod[]; optional: boolean }> {
  const d = def(schema);
  const variants = d.type === "union" ? (d.options as Zod[]) : [schema];
  const fields = new Map<string, { variants: Zod[]; optional: boolean }>();
  for (const variant of variants) {
    const shape = (variant as unknown as z.ZodMiniObject).shape as Record<string, Zod>;
    for (const [key, value] of Object.entries(shape)) {
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

const isJson = (s: Zod) => s === JsonValueSchema || s === JsonObjectSchema;

/** Fails unless a model field (all its variants) and a proto field can carry the same values. */
function expectCompatible(where: string, model: { variants: Zod[]; optional: boolean }, field: DescField): void {
  const first = model.variants[0]!;
  const kind = def(first).type;
  if (kind === "array") {
    expect(field.fieldKind, `${where}: an array needs a repeated field`).toBe("list");
    if (field.fieldKind !== "list" || field.listKind !== "message") throw new Error(`${where}: expected a repeated message`);
    expectSameMessage(where, def(first).element as Zod, field.message);
    return;
  }
  expect(field.fieldKind, `${where}: a singular model field needs a singular proto field`).not.toBe("list");
  expect(field.proto.proto3Optional, `${where}: optional in the model iff optional in proto`).toBe(model.optional);
  if (isJson(first)) {
    expect(field.fieldKind === "message" && field.message.typeName, where).toBe("google.protobuf.Value");
  } else if (kind === "string") {
    expect(field.fieldKind === "scalar" && field.scalar, `${where}: string`).toBe(ScalarType.STRING);
  } else if (kind === "number") {
    expect(field.fieldKind === "scalar" && field.scalar, `${where}: integer`).toBe(ScalarType.INT64);
  } else if (kind === "literal") {
    const values = model.variants.flatMap((v) => def(v).values as unknown[]);
    // A union's discriminator (JSON Patch `op`) must cover the enum exactly; a single literal (an
    // event's `type`) must be one of its values.
    if (field.fieldKind === "enum") expectEnumCovers(where, field.enum, values, model.variants.length > 1);
    else expect(field.fieldKind === "scalar" && field.scalar, `${where}: string literal`).toBe(ScalarType.STRING);
  } else if (kind === "enum") {
    const values = Object.values(def(first).entries as Record<string, string>);
    if (field.fieldKind !== "enum") throw new Error(`${where}: expected an enum field`);
    expectEnumCovers(where, field.enum, values, true);
  } else if (kind === "object") {
    if (field.fieldKind !== "message") throw new Error(`${where}: expected a message field`);
    expectSameMessage(where, first, field.message);
  } else {
    throw new Error(`${where}: no mapping for zod type ${kind}`);
  }
}

/** Literal values match enum value names (without the enum's prefix, compared lower-cased). */
function expectEnumCovers(where: string, desc: DescEnum, values: unknown[], exactly: boolean): void {
  const names = desc.values.map((v) => v.localName.toLowerCase()).sort();
  const wanted = values.map((v) => String(v).toLowerCase()).sort();
  if (exactly) expect(names, where).toEqual(wanted);
  else expect(names, where).toEqual(expect.arrayContaining(wanted));
}

function expectSameMessage(where: string, model: Zod, message: DescMessage, skip: string[] = []): void {
  const fields = fieldsOf(model);
  for (const name of skip) fields.delete(name);
  const protoFields = message.fields.filter((f) => !skip.includes(f.localName));
  expect([...fields.keys()].sort(), `${where}: model fields vs ${message.typeName} fields`).toEqual(
    protoFields.map((f) => f.localName).sort(),
  );
  for (const field of protoFields) expectCompatible(`${where}.${field.localName}`, fields.get(field.localName)!, field);
}

describe("event model and protobuf schema", () => {
  const arms = ProtoEventSchema.oneofs[0]!.fields;

  it("have the same 16 event types, with arm numbers one above the EventType numbers", () => {
    expect(arms.map((f) => f.name.toUpperCase()).sort()).toEqual([...EVENT_TYPES].sort());
    expect(ProtoEventTypeSchema.values.map((v) => v.localName).sort()).toEqual([...EVENT_TYPES].sort());
    for (const value of ProtoEventTypeSchema.values) {
      expect(arms.find((f) => f.name.toUpperCase() === value.localName)?.number, value.localName).toBe(value.number + 1);
    }
    expect(ProtoEventSchema.fields).toHaveLength(16);
  });

  it.each(EVENT_TYPES)("%s: every field has a counterpart of a compatible type, both ways", (type) => {
    const arm = arms.find((f) => f.name.toUpperCase() === type)!;
    if (arm.fieldKind !== "message") throw new Error("arm is not a message");
    const base = arm.message.fields.find((f) => f.number === 1)!;
    expect(base.localName).toBe("baseEvent");
    if (base.fieldKind !== "message") throw new Error("field 1 is not a message");
    // The BaseEvent message holds type, timestamp and rawEvent; the event message holds the rest.
    const schema = EVENT_SCHEMAS[type] as unknown as z.ZodMiniObject;
    const { type: typeField, timestamp, rawEvent } = schema.shape as Record<string, Zod>;
    const baseShape = z.object({ type: typeField!, timestamp: timestamp!, rawEvent: rawEvent! });
    expectSameMessage(`${type}.baseEvent`, baseShape as unknown as Zod, base.message, []);
    expectSameMessage(type, schema as unknown as Zod, arm.message, ["baseEvent", "type", "timestamp", "rawEvent"]);
  });
});
