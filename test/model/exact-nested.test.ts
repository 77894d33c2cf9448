// The generated checks for the event types with nested forms (STATE_DELTA, MESSAGES_SNAPSHOT,
// TOOL_CALL_RESULT, ACTIVITY_DELTA: patch operations, messages, tool calls, content parts), held
// to parseEvent differentially: the fast path passes a value exactly when parseEvent returns a
// copy deep-equal to it, and the ordered fast path only when that copy's JSON text is the value's.
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EVENT_TYPES, parseEvent } from "../../src/index.js";
import { EXACT_EVENT_TYPES, isExactEvent, isExactEventInOrder } from "../../src/gen/model/event_checks.js";
import { validEvent, validEventInOrder } from "../../src/model/exact.js";
import { CORPUS } from "../fixtures/corpus.js";
import { CORPUS_1_0 } from "../interop/corpus-1.0.js";
import { EVENT_ARBS } from "../fixtures/arbitraries-1.0.js";
import { Point } from "./helpers.js";

/** The event types that went to zod before their nested forms were compiled. */
const NESTED_TYPES = ["STATE_DELTA", "MESSAGES_SNAPSHOT", "TOOL_CALL_RESULT", "ACTIVITY_DELTA"] as const;

type Plain = Record<string, unknown>;

/**
 * Whether some object in `value`, itself included, has an own key whose value is undefined. An
 * array's other keys are not looked at: parseEvent copies an array of the schema (so deep equality
 * already sees them) and keeps a JSON value's as it is (so they are no difference).
 */
function hasUndefinedKey(value: unknown, seen = new Set<unknown>()): boolean {
  if (typeof value !== "object" || value === null || seen.has(value)) return false;
  seen.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (hasUndefinedKey(value[i], seen)) return true;
    return false;
  }
  for (const key of Object.keys(value)) {
    const field = (value as Plain)[key];
    if (field === undefined || hasUndefinedKey(field, seen)) return true;
  }
  return false;
}

/**
 * What the fast paths must say of `value`: `exact` when parseEvent returns a copy deep-equal to it
 * (prototypes, array keys and all) and no key of it is present but undefined, `inOrder` when the
 * copy's JSON text is also the value's.
 */
function oracle(value: unknown): { exact: boolean; inOrder: boolean; parsed?: unknown } {
  let parsed: unknown;
  try {
    parsed = parseEvent(value);
  } catch {
    return { exact: false, inOrder: false };
  }
  const exact = isDeepStrictEqual(parsed, value) && !hasUndefinedKey(value);
  return { exact, inOrder: exact && JSON.stringify(parsed) === JSON.stringify(value), parsed };
}

/**
 * Holds the fast paths to the oracle on `value`: both ways when `complete` (every form in it is
 * compiled), otherwise only that what they pass the oracle passes too.
 */
function expectAgreement(value: unknown, label: string, complete = true): void {
  const { exact, inOrder, parsed } = oracle(value);
  const agrees = (fast: boolean, truth: boolean, what: string): void => {
    if (complete || fast) expect(fast, `${what}: ${label}`).toBe(truth);
  };
  const plainTop = typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype;
  if (plainTop) {
    agrees(isExactEvent(value), exact, "isExactEvent");
    agrees(isExactEventInOrder(value), inOrder, "isExactEventInOrder");
  }
  let fast: unknown;
  let ordered: unknown;
  try {
    fast = validEvent(value);
    ordered = validEventInOrder(value);
  } catch {
    expect(parsed, `threw where parseEvent did not: ${label}`).toBeUndefined();
    return;
  }
  agrees(fast === value, exact, "validEvent");
  agrees(ordered === value, inOrder, "validEventInOrder");
  // Whatever the path, the text an encoder writes is parseEvent's.
  expect(JSON.stringify(ordered), label).toBe(JSON.stringify(parsed));
}

/** A copy of a plain value, keys in the same order, own "__proto__" keys kept as keys. */
function clone<T>(value: T): T {
  if (Array.isArray(value)) return value.map(clone) as T;
  if (typeof value === "object" && value !== null) {
    const out: Plain = {};
    for (const key of Object.keys(value)) {
      Object.defineProperty(out, key, { value: clone((value as Plain)[key]), enumerable: true, writable: true, configurable: true });
    }
    return out as T;
  }
  return value;
}

/** Sets an own enumerable key, "__proto__" included. */
function put(target: object, key: PropertyKey, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The same keys and values in another order (the keys reversed). */
function reversed(value: Plain): Plain {
  const out: Plain = {};
  for (const key of Object.keys(value).reverse()) put(out, key, value[key]);
  return out;
}

class ArraySub<T> extends Array<T> {}

/** Every object and array in `value` below its root, with the container and key that hold it. */
function nodesIn(value: unknown, out: { parent: Plain | unknown[]; key: string | number; node: object }[] = []) {
  if (Array.isArray(value)) {
    // A plain loop: a mutated array may have lost Array.prototype.
    for (let i = 0; i < value.length; i++) {
      const child: unknown = value[i];
      if (typeof child === "object" && child !== null) {
        out.push({ parent: value, key: i, node: child });
        nodesIn(child, out);
      }
    }
  } else if (typeof value === "object" && value !== null) {
    for (const key of Object.keys(value)) {
      const child = (value as Plain)[key];
      if (typeof child === "object" && child !== null) {
        out.push({ parent: value as Plain, key, node: child });
        nodesIn(child, out);
      }
    }
  }
  return out;
}

/** Odd values for a field: wrong types, empties, undefined, instances, other tags and pointers. */
const ODD_VALUES: readonly (() => unknown)[] = [
  () => undefined, () => null, () => "", () => "x", () => 0, () => 1.5, () => NaN, () => true, () => [], () => ({}), () => [1],
  () => new Point(), () => new Date(0), () => "function", () => "tool", () => "user", () => "assistant", () => "text", () => "url",
  () => "add", () => "remove", () => "move", () => "/a", () => "a", () => "~2", () => [{ type: "text", text: "t" }],
  () => ({ op: "remove", path: "" }), () => ({ id: "m", role: "user", content: "hi" }), () => ({ k: undefined }), () => 2n,
];

/** The ways a nested object or array is changed. */
const MUTATIONS = [
  "extra key", "drop key", "odd value", "reverse keys", "class instance", "null prototype", "hole", "undefined element",
  "array key", "array subclass", "array-like", "odd node", "undefined key",
] as const;
type Mutation = (typeof MUTATIONS)[number];

/** Applies `mutation` to `event`'s nested node number `at` (mod their count); `pick` chooses keys and values. */
function mutate(event: Plain, mutation: Mutation, at: number, pick: number): void {
  const nodes = nodesIn(event);
  if (nodes.length === 0) return;
  const { parent, key, node } = nodes[at % nodes.length]!;
  const replace = (next: unknown): void => put(parent, key, next);
  const keys = Object.keys(node);
  const someKey = keys.length > 0 ? keys[pick % keys.length]! : "id";
  const odd = ODD_VALUES[pick % ODD_VALUES.length]!;
  switch (mutation) {
    case "extra key":
      put(node, pick % 2 === 0 ? "extra" : "__proto__", 1);
      return;
    case "drop key":
      delete (node as Plain)[someKey];
      return;
    case "odd value":
      put(node, someKey, odd());
      return;
    case "undefined key":
      put(node, ["name", "metadata", "toolCalls", "encryptedValue", "id", "error", "mimeType"][pick % 7]!, undefined);
      return;
    case "reverse keys":
      if (!Array.isArray(node)) replace(reversed(node as Plain));
      return;
    case "class instance":
      Object.setPrototypeOf(node, Array.isArray(node) ? ArraySub.prototype : Point.prototype);
      return;
    case "null prototype":
      Object.setPrototypeOf(node, null);
      return;
    case "hole":
      if (Array.isArray(node)) {
        if (node.length === 0) node.length = 1;
        else delete node[pick % node.length];
      }
      return;
    case "undefined element":
      if (Array.isArray(node)) node[node.length] = undefined;
      return;
    case "array key":
      if (Array.isArray(node)) put(node, "extra", 1);
      return;
    case "array subclass":
      if (Array.isArray(node)) replace(ArraySub.from(node));
      return;
    case "array-like":
      if (Array.isArray(node)) replace({ ...node, length: node.length });
      return;
    case "odd node":
      replace(odd());
      return;
  }
}

/** Valid events of the four types from the corpora. */
const FIXTURES = [...CORPUS, ...CORPUS_1_0]
  .filter(({ event }) => (NESTED_TYPES as readonly string[]).includes(event.type))
  .map(({ name, event }) => ({ name, event: event as unknown as Plain }));

describe("the generated checks of nested forms", () => {
  it("cover the four event types that used to go to zod", () => {
    for (const type of NESTED_TYPES) expect(EXACT_EVENT_TYPES).toContain(type);
    // The fixtures hold every type, so that the agreement below is not vacuous.
    expect(new Set(FIXTURES.map(({ event }) => event.type))).toEqual(new Set(NESTED_TYPES));
  });

  it("pass every fixture of the four types, itself and in order, as parseEvent returns it unchanged", () => {
    let passed = 0;
    for (const { name, event } of FIXTURES) {
      expectAgreement(event, name);
      // Fixtures written in the schema's order take the ordered fast path too.
      const canonical = parseEvent(event) as unknown as Plain;
      expect(validEventInOrder(canonical), name).toBe(canonical);
      expect(validEvent(canonical), name).toBe(canonical);
      if (validEvent(event) === event) passed++;
    }
    expect(passed).toBeGreaterThan(FIXTURES.length / 2);
  });

  it("agree with parseEvent on every single nested mutation of every fixture", () => {
    let mutants = 0;
    for (const { name, event } of FIXTURES) {
      const canonical = clone(parseEvent(event) as unknown as Plain);
      const count = nodesIn(canonical).length;
      for (const mutation of MUTATIONS) {
        for (let at = 0; at < Math.min(count, 40); at++) {
          const mutant = clone(canonical);
          mutate(mutant, mutation, at, at * 7 + mutation.length);
          expectAgreement(mutant, `${name}, ${mutation} at node ${at}`);
          mutants++;
        }
      }
    }
    expect(mutants).toBeGreaterThan(1000);
  });

  it("agree with parseEvent on generated events of the four types and mutations of them", () => {
    const mutation = fc.tuple(fc.constantFrom(...MUTATIONS), fc.nat(), fc.nat());
    let fast = 0;
    let slow = 0;
    fc.assert(
      fc.property(fc.constantFrom(...NESTED_TYPES).chain((type) => EVENT_ARBS[type]), fc.array(mutation, { maxLength: 2 }), (generated, mutations) => {
        const event = clone(generated);
        for (const [kind, at, pick] of mutations) mutate(event, kind, at, pick);
        expectAgreement(event, JSON.stringify(event, (_, v: unknown) => (typeof v === "bigint" ? `${v}n` : v)));
        if (isExactEventInOrder(event)) fast++;
        else slow++;
      }),
      { numRuns: 5_000 },
    );
    // Both verdicts were reached often: the agreement was tested on each side.
    expect(fast).toBeGreaterThan(500);
    expect(slow).toBeGreaterThan(500);
  });

  it("agree with parseEvent on generated events of every type and nested mutations of them", () => {
    const mutation = fc.tuple(fc.constantFrom(...MUTATIONS), fc.nat(), fc.nat());
    fc.assert(
      fc.property(fc.constantFrom(...EVENT_TYPES).chain((type) => EVENT_ARBS[type]), fc.array(mutation, { maxLength: 2 }), (generated, mutations) => {
        const event = clone(generated);
        for (const [kind, at, pick] of mutations) mutate(event, kind, at, pick);
        // An interrupt outcome (its list has a minimum length) is the one form left to zod.
        const outcome = event.outcome as { type?: unknown } | undefined;
        const complete = !(event.type === "RUN_FINISHED" && typeof outcome === "object" && outcome !== null && outcome.type === "interrupt");
        expectAgreement(event, JSON.stringify(event, (_, v: unknown) => (typeof v === "bigint" ? `${v}n` : v)), complete);
      }),
      { numRuns: 10_000 },
    );
  });

  it("refuse each nested irregularity by name, and take the fast path when there is none", () => {
    const message = { id: "m", role: "assistant", content: "hi", toolCalls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }] };
    const snapshot = { type: "MESSAGES_SNAPSHOT", messages: [message] };
    expect(validEventInOrder(snapshot)).toBe(snapshot);
    const cases: [string, Plain][] = [
      ["an extra key in a tool call's function", { ...snapshot, messages: [{ ...message, toolCalls: [{ ...message.toolCalls[0], function: { name: "f", arguments: "{}", x: 1 } }] }] }],
      ["a wrong type in a message", { ...snapshot, messages: [{ ...message, content: 1 }] }],
      ["an undefined optional field in a message", { ...snapshot, messages: [{ ...message, name: undefined }] }],
      ["a hole in the messages", { ...snapshot, messages: [message, , message] }],
      ["a message that is a class instance", { ...snapshot, messages: [Object.assign(new Point(), message)] }],
      ["a bad JSON Pointer", { type: "STATE_DELTA", delta: [{ op: "remove", path: "a" }] }],
      ["a patch operation of an unknown op", { type: "STATE_DELTA", delta: [{ op: "merge", path: "" }] }],
      ["a value missing from an add", { type: "ACTIVITY_DELTA", messageId: "m", activityType: "a", patch: [{ op: "add", path: "" }] }],
      ["a content part without its source", { type: "TOOL_CALL_RESULT", messageId: "m", toolCallId: "c", content: [{ type: "image" }] }],
      ["a source with an extra key", { type: "TOOL_CALL_RESULT", messageId: "m", toolCallId: "c", content: [{ type: "image", source: { type: "url", value: "u", x: 1 } }] }],
    ];
    for (const [label, event] of cases) {
      expect(isExactEvent(event), label).toBe(false);
      expectAgreement(event, label);
    }
  });

  it("tell key order apart only on the ordered path, nested objects included", () => {
    const outOfOrder = [
      { type: "STATE_DELTA", delta: [{ path: "/a", op: "add", value: 1 }] },
      { type: "MESSAGES_SNAPSHOT", messages: [{ role: "user", id: "u", content: "hi" }] },
      { type: "MESSAGES_SNAPSHOT", messages: [{ id: "a", role: "assistant", toolCalls: [{ type: "function", id: "c", function: { arguments: "{}", name: "f" } }] }] },
      { type: "TOOL_CALL_RESULT", messageId: "m", toolCallId: "c", content: [{ text: "t", type: "text" }] },
      { type: "TOOL_CALL_RESULT", messageId: "m", toolCallId: "c", content: [{ type: "image", source: { value: "u", type: "url" } }] },
      { type: "ACTIVITY_DELTA", messageId: "m", activityType: "a", patch: [{ op: "move", path: "/b", from: "/a" }] },
    ];
    for (const event of outOfOrder) {
      expect(validEvent(event), JSON.stringify(event)).toBe(event);
      const ordered = validEventInOrder(event);
      expect(ordered, JSON.stringify(event)).not.toBe(event);
      expect(JSON.stringify(ordered)).not.toBe(JSON.stringify(event));
      expect(JSON.stringify(ordered)).toBe(JSON.stringify(parseEvent(event)));
      expectAgreement(event, JSON.stringify(event));
    }
  });
});
