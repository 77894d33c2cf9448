// Browsers judge with the plain validators of src/model/forms.ts (src/model/check.browser.ts,
// through the generated src/gen/model/event_forms.ts) instead of the zod schemas (check.ts). The
// two must agree on everything a caller sees: the output (keys and their order included), and every
// issue (code, path, message, input and the rest), hence the error's wording. Differential: the
// same values through both, valid 1.0 values of every form, mutations of them, and any value at all.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as zodJudges from "../../src/model/check.js";
import * as formJudges from "../../src/model/check.browser.js";
import { formatIssues } from "../../src/model/issues.js";
import { MAX_ARRAY_ISSUES } from "../../src/model/problems.js";
import { EVENT_TYPES, type EventType } from "../../src/index.js";
import { generate } from "../../tools/gen-model-forms.js";
import {
  EVENT_ARBS,
  contentPart,
  context,
  interrupt,
  message,
  mutate,
  mutation,
  patchOp,
  resumeEntry,
  runAgentInput,
  tool,
  toolCall,
  usageEntry,
  validEvent,
} from "../fixtures/arbitraries-1.0.js";

type Judge = (value: unknown) => { value: unknown; issues: unknown[] };

/** A value's shape with its keys in order, at every depth, for comparing outputs key order included. */
function ordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(ordered);
  if (typeof value === "object" && value !== null) return Object.keys(value).map((key) => [key, ordered((value as Record<string, unknown>)[key])]);
  return value;
}

/** What a caller sees of one judgement. */
function verdict(judge: Judge, finish: (issue: never) => unknown, value: unknown) {
  const result = judge(value);
  const issues = result.issues.map((issue) => finish(issue as never));
  return issues.length === 0
    ? { ok: true, value: result.value, order: ordered(result.value) }
    : { ok: false, issues, message: formatIssues(issues as never) };
}

/** Asserts that both judges see `value` alike. */
function agree(zod: Judge, forms: Judge, value: unknown): void {
  const expected = verdict(zod, zodJudges.finalize, value);
  const actual = verdict(forms, formJudges.finalize, value);
  expect(actual).toStrictEqual(expected);
}

const ELEMENTS: [string, Judge, Judge, fc.Arbitrary<Record<string, unknown>>][] = [
  ["message", zodJudges.checkMessage, formJudges.checkMessage, message as fc.Arbitrary<Record<string, unknown>>],
  ["tool call", zodJudges.checkToolCall, formJudges.checkToolCall, toolCall],
  ["patch operation", zodJudges.checkJsonPatchOperation, formJudges.checkJsonPatchOperation, patchOp as fc.Arbitrary<Record<string, unknown>>],
  ["content part", zodJudges.checkContentPart, formJudges.checkContentPart, contentPart as fc.Arbitrary<Record<string, unknown>>],
  ["interrupt", zodJudges.checkInterrupt, formJudges.checkInterrupt, interrupt],
  ["token usage", zodJudges.checkTokenUsage, formJudges.checkTokenUsage, usageEntry],
  ["tool", zodJudges.checkTool, formJudges.checkTool, tool],
  ["context", zodJudges.checkContext, formJudges.checkContext, context],
  ["resume entry", zodJudges.checkResumeEntry, formJudges.checkResumeEntry, resumeEntry],
];

const eventJudges = (type: EventType): [Judge, Judge] => [(v) => zodJudges.checkEvent(type, v), (v) => formJudges.checkEvent(type, v)];

/** Values JSON cannot carry, and other values no arbitrary of valid ones makes. */
class Point {
  x = 1;
}
const ODD = [undefined, null, NaN, -0, Infinity, 2 ** 53, 1.5, -1, "", [], {}, [undefined], [, 1], new Point(), new Date(0), () => 1, Symbol("s"), 10n, Object.create(null)];

describe("the browsers' judges (forms.ts) and the zod schemas", () => {
  it("agree on valid 1.0 events of every type", () => {
    fc.assert(
      fc.property(validEvent, (event) => {
        const [zod, forms] = eventJudges(event.type as EventType);
        agree(zod, forms, event);
      }),
      { numRuns: 1500 },
    );
  });

  it("agree on mutations of them, judged as the type they started as", () => {
    fc.assert(
      fc.property(validEvent, mutation, (event, m) => {
        const [zod, forms] = eventJudges(event.type as EventType);
        agree(zod, forms, mutate(event, m));
      }),
      { numRuns: 4000 },
    );
  });

  it("agree on any value, as an event of any type", () => {
    fc.assert(
      fc.property(fc.constantFrom(...EVENT_TYPES), fc.anything({ withNullPrototype: true, withBigInt: true, withDate: true, withSparseArray: true, withBoxedValues: true, withObjectString: true }), (type, value) => {
        const [zod, forms] = eventJudges(type);
        agree(zod, forms, value);
        agree(zod, forms, { ...(typeof value === "object" ? value : { value }), type });
      }),
      { numRuns: 2000 },
    );
  });

  it("agree on odd values in every field of every event type", () => {
    for (const type of EVENT_TYPES) {
      const [zod, forms] = eventJudges(type);
      for (const event of fc.sample(EVENT_ARBS[type], { numRuns: 3, seed: 7 })) {
        for (const key of [...Object.keys(event), "zzUnknown"]) {
          for (const odd of ODD) agree(zod, forms, { ...event, [key]: odd });
        }
      }
    }
  });

  it("agree on run request bodies, valid and mutated", () => {
    fc.assert(
      fc.property(runAgentInput, mutation, (body, m) => {
        agree(zodJudges.checkRunAgentInput, formJudges.checkRunAgentInput, body);
        agree(zodJudges.checkRunAgentInput, formJudges.checkRunAgentInput, mutate(body, m));
      }),
      { numRuns: 1500 },
    );
  });

  for (const [name, zod, forms, arbitrary] of ELEMENTS) {
    it(`agree on each ${name}, valid and mutated, and on odd values`, () => {
      fc.assert(
        fc.property(arbitrary, mutation, (element, m) => {
          agree(zod, forms, element);
          agree(zod, forms, mutate(element, m));
        }),
        { numRuns: 500 },
      );
      for (const odd of ODD) agree(zod, forms, odd);
    });
  }

  it("agree on arrays with more bad elements than they keep issues for", () => {
    const bad = { id: 1, role: "user", content: [{ type: "gif" }, { type: "text" }] };
    const good = { id: "m", role: "user", content: "hi" };
    for (const n of [MAX_ARRAY_ISSUES - 1, MAX_ARRAY_ISSUES, MAX_ARRAY_ISSUES + 1, 40]) {
      const messages = Array.from({ length: n }, (_, i) => (i % 3 === 1 ? good : bad));
      agree(zodJudges.checkRunAgentInput, formJudges.checkRunAgentInput, { threadId: "t", runId: "r", messages });
      agree(...eventJudges("MESSAGES_SNAPSHOT"), { type: "MESSAGES_SNAPSHOT", messages });
    }
    const interrupts = Array.from({ length: 30 }, () => ({ id: 1, reason: null }));
    agree(...eventJudges("RUN_FINISHED"), { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "interrupt", interrupts } });
    agree(...eventJudges("RUN_FINISHED"), { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "interrupt", interrupts: [] } });
    agree(...eventJudges("RUN_FINISHED"), { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "interrupt", interrupts: "" } });
    agree(...eventJudges("TEXT_MESSAGE_CONTENT"), { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: [] });
  });
});

describe("the generated forms", () => {
  it("refuse to generate a form the browsers' validators do not have", async () => {
    // The generator reads the model it imports; the committed file's freshness is checked in
    // test/schema/generated.test.ts. Here: a form it cannot express stops it with the path.
    const z = await import("zod/mini");
    const model = await import("../../src/model/index.js");
    const events = model.EVENT_SCHEMAS as unknown as Record<string, unknown>;
    const saved = events.RAW;
    events.RAW = z.object({ type: z.literal("RAW"), when: z.date() });
    try {
      expect(() => generate()).toThrow(/RAW\.when: forms\.ts has no validator for a zod "date"/);
    } finally {
      events.RAW = saved;
    }
  });
});
