/**
 * The declared model (src/gen/model/types.ts and schemas.ts, which tools/gen-model-types.ts writes)
 * against the zod schemas it stands for: each public schema is the zod schema itself at run time,
 * and its declared output and input types are the ones zod infers, both ways. The type half is
 * checked by `npm run lint` (tsc over test/): a declared type that drifts from its schema is a
 * compile error naming the schema.
 */
import type * as z from "zod/mini";
import { describe, expect, it } from "vitest";
import * as declared from "../../src/gen/model/schemas.js";
import * as zod from "../../src/model/zod-schemas.js";
import * as model from "../../src/model/index.js";

type Declared = typeof declared;
type Zod = typeof zod;
/** Whether each of A and B is assignable to the other. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type OutputOf<K extends keyof Declared> = Declared[K] extends { parse(data: unknown): infer O } ? O : never;
type InputOf<K extends keyof Declared> = Declared[K] extends { "~standard": { types?: infer T } } ? (NonNullable<T> extends { input: infer I } ? I : never) : never;

/** The public schemas whose declared output differs from zod's inferred one (none, or a compile error). */
type OutputDrift = {
  [K in Exclude<keyof Declared, "EVENT_SCHEMAS">]: Same<OutputOf<K>, z.output<Zod[K]>> extends true ? never : K;
}[Exclude<keyof Declared, "EVENT_SCHEMAS">];
/** The same for the declared input. */
type InputDrift = {
  [K in Exclude<keyof Declared, "EVENT_SCHEMAS">]: Same<InputOf<K>, z.input<Zod[K]>> extends true ? never : K;
}[Exclude<keyof Declared, "EVENT_SCHEMAS">];
export const outputsAgree: [OutputDrift] extends [never] ? true : OutputDrift = true;
export const inputsAgree: [InputDrift] extends [never] ? true : InputDrift = true;

// The unions and lists the events make, declared and inferred.
type EventsOut = z.output<Zod["EVENT_SCHEMAS"][keyof Zod["EVENT_SCHEMAS"]]>;
type EventsIn = z.input<Zod["EVENT_SCHEMAS"][keyof Zod["EVENT_SCHEMAS"]]>;
export const eventsAgree: [Same<model.AguiEvent, EventsOut>, Same<model.AguiEventInput, EventsIn>] = [true, true];
export const inputAgrees: [Same<model.RunAgentInput, z.output<Zod["RunAgentInputSchema"]>>, Same<model.RunAgentInputInit, z.input<Zod["RunAgentInputSchema"]>>] = [true, true];

describe("the declared model", () => {
  it("exports each schema as the zod schema itself: only its type is declared", () => {
    const names = Object.keys(declared);
    expect(names.length).toBeGreaterThan(60);
    for (const name of names) expect({ name, same: declared[name as keyof Declared] === (zod[name as keyof Zod] as unknown) }).toEqual({ name, same: true });
    expect(model.EventSchema).toBe(zod.EventSchema);
    expect(model.EVENT_SCHEMAS).toBe(zod.EVENT_SCHEMAS);
  });

  it("parses as zod does, under the declared types", () => {
    const event = model.EventSchema.parse({ type: "TEXT_MESSAGE_START", messageId: "m", extra: 1 });
    expect(event).toEqual({ type: "TEXT_MESSAGE_START", messageId: "m" });
    const refused = model.EventSchema.safeParse({ type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "" });
    expect(refused.success).toBe(false);
    if (!refused.success) expect(refused.error.issues[0]!.path).toEqual(["delta"]);
    const input = model.RunAgentInputSchema.parse({ threadId: "t", runId: "r", messages: [] });
    expect(input.tools).toEqual([]);
  });
});
