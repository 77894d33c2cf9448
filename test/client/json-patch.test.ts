/**
 * Our JSON Patch applier (src/client/reducer/json-patch.ts) against `fast-json-patch` 3.1.1's
 * `applyPatch(document, patch, true, false)`, which `@ag-ui/client` 1.0 uses: on random documents
 * and random valid operations (paths that exist, do not, or are one past an end) both succeed or
 * both fail, with deep-equal results; our input and patch are never changed and the result shares
 * no object with the patch. Then one case per quirk of theirs that ours reproduces.
 */
import fc from "fast-check";
import jsonPatch from "fast-json-patch";
import { describe, expect, it } from "vitest";
import { applyJsonPatch } from "../../src/client/reducer/json-patch.js";
import { isAguiWireError, type JsonPatchOperation } from "../../src/index.js";

type Outcome = { ok: true; doc: unknown } | { ok: false; message?: string };

function theirs(doc: unknown, patch: unknown[]): Outcome {
  try {
    // Theirs may change the patch's values in place: give it its own copy.
    return { ok: true, doc: jsonPatch.applyPatch(doc, structuredClone(patch) as jsonPatch.Operation[], true, false).newDocument };
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
}

function ours(doc: unknown, patch: unknown[]): Outcome {
  try {
    return { ok: true, doc: applyJsonPatch(doc, patch as JsonPatchOperation[]) };
  } catch (error) {
    expect(isAguiWireError(error, "invalid_input")).toBe(true);
    return { ok: false, message: (error as Error).message };
  }
}

/**
 * Deep equality that sees what toEqual does not (an own key whose value is undefined, -0, the
 * prototype) and, unlike toStrictEqual, allows an own "constructor" key.
 */
function same(a: unknown, b: unknown): boolean {
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return Object.is(a, b);
  if (Array.isArray(a) !== Array.isArray(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  if (ka.join("\u0000") !== kb.join("\u0000") || ka.length !== kb.length) return false;
  return ka.every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** Whether `v` contains itself: theirs builds such a document for a move from "" into the document. */
function cyclic(v: unknown, above: object[] = []): boolean {
  if (typeof v !== "object" || v === null) return false;
  if (above.includes(v)) return true;
  return Object.values(v).some((x) => cyclic(x, [...above, v]));
}

/**
 * Whether theirs, operation by operation, ever holds a function or a cycle in the document, which
 * ours refuses: a `move` or `copy` from an inherited property such as /constructor puts the Object
 * function there, a `move` from "" into the document makes it contain itself.
 */
function theirsGoesOdd(doc: unknown, patch: unknown[]): boolean {
  let d = jsonPatch.deepClone(doc) as unknown;
  const holds = (v: unknown, above: unknown[] = []): boolean =>
    typeof v === "function" ||
    (typeof v === "object" && v !== null && (above.includes(v) || Object.values(v).some((x) => holds(x, [...above, v]))));
  for (const op of structuredClone(patch)) {
    try {
      d = jsonPatch.applyOperation(d, op as jsonPatch.Operation, true, true).newDocument;
    } catch {
      return false;
    }
    if (holds(d)) return true;
  }
  return false;
}

const BUILTINS = [Object, Function, Array, String, Number, Boolean];

/**
 * Runs `f` and tells whether it changed an own property of a built-in constructor (theirs can, by
 * a `move` whose `remove` uncovers an inherited /constructor: ours refuses), undoing the change.
 */
function changesBuiltins(f: () => void): boolean {
  const before = BUILTINS.map((b) => Object.getOwnPropertyDescriptors(b));
  f();
  let changed = false;
  BUILTINS.forEach((b, i) => {
    const was = before[i]! as Record<PropertyKey, PropertyDescriptor>;
    for (const key of Reflect.ownKeys(b)) {
      if (!Object.hasOwn(was, key)) {
        changed = true;
        delete (b as unknown as Record<PropertyKey, unknown>)[key];
      }
    }
    for (const key of Reflect.ownKeys(was)) {
      const now = Object.getOwnPropertyDescriptor(b, key);
      if (now === undefined || !Object.is(now.value, was[key]!.value)) {
        changed = true;
        Object.defineProperty(b, key, was[key]!);
      }
    }
  });
  return changed;
}

/** Every object and array inside `v`. */
function containers(v: unknown, into = new Set<object>()): Set<object> {
  if (typeof v === "object" && v !== null && !into.has(v)) {
    into.add(v);
    for (const x of Object.values(v)) containers(x, into);
  }
  return into;
}

const KEYS = ["", "~", "/", "__proto__", "0", "1", "-", "a", "b", "constructor", "length", "~1", "01"];
const escape = (k: string) => k.replace(/~/g, "~0").replace(/\//g, "~1");

/** An object built as JSON.parse builds one: a "__proto__" key is an own key. */
function objectOf(entries: [string, unknown][]): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  return o;
}

const { json } = fc.letrec((tie) => ({
  json: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(null, true, false, 0, 1, "", "x", "ab"),
    fc.integer({ min: -5, max: 5 }),
    fc.array(tie("json"), { maxLength: 4 }),
    fc.array(fc.tuple(fc.constantFrom(...KEYS), tie("json")), { maxLength: 4 }).map(objectOf),
  ),
}));

/** The pointers of every value inside `doc`, with the value. */
function pointers(doc: unknown, at = "", into: [string, unknown][] = []): [string, unknown][] {
  into.push([at, doc]);
  if (typeof doc === "object" && doc !== null)
    for (const [k, v] of Object.entries(doc)) pointers(v, `${at}/${escape(k)}`, into);
  return into;
}

const seed = fc.record({
  op: fc.constantFrom("add", "remove", "replace", "move", "copy", "test"),
  path: fc.tuple(fc.nat(), fc.nat(6), fc.constantFrom(...KEYS), fc.constantFrom(...KEYS)),
  from: fc.tuple(fc.nat(), fc.nat(6), fc.constantFrom(...KEYS), fc.constantFrom(...KEYS)),
  value: json,
  testExisting: fc.boolean(),
});

/**
 * A path into `doc` chosen by `how`: existing, a new child, one past an array's end, "-", made up.
 * A made-up "constructor" is only ever the last token: through it theirs reaches built-in functions
 * and may delete their properties (Boolean.length), which ours refuses and a test must not do.
 */
function pathIn(doc: unknown, [pick, how, k1, k2]: [number, number, string, string]): string {
  if (k1 === "constructor") [k1, k2] = [k2, k1];
  const all = pointers(doc);
  const [at, node] = all[pick % all.length]!;
  switch (how) {
    case 0:
    case 1:
      return at;
    case 2:
      return `${at}/${escape(k1)}`;
    case 3:
      return Array.isArray(node) ? `${at}/${node.length}` : `${at}/${escape(k1)}/${escape(k2)}`;
    case 4:
      return Array.isArray(node) ? `${at}/${node.length + 1}` : `/${escape(k1)}`;
    case 5:
      return Array.isArray(node) ? `${at}/-` : `/${escape(k1)}/${escape(k2)}`;
    default:
      return at === "" ? "" : `${at.slice(0, at.lastIndexOf("/"))}/${escape(k1)}`;
  }
}

const cases = fc
  .record({ doc: fc.oneof({ weight: 1, arbitrary: fc.constant(undefined) }, { weight: 8, arbitrary: json }), seeds: fc.array(seed, { maxLength: 4 }) })
  .map(({ doc, seeds }) => {
    const patch = seeds.map((s) => {
      const path = pathIn(doc, s.path);
      if (s.op === "remove") return { op: s.op, path };
      if (s.op === "move" || s.op === "copy") return { op: s.op, from: pathIn(doc, s.from), path };
      if (s.op === "test" && s.testExisting) {
        const found = pointers(doc).find(([p]) => p === path);
        if (found !== undefined) return { op: s.op, path, value: structuredClone(found[1]) };
      }
      return { op: s.op, path, value: s.value };
    });
    return { doc, patch };
  });

describe("applyJsonPatch against fast-json-patch", () => {
  it("succeeds and fails as theirs, with deep-equal results, never changing its inputs", () => {
    let successes = 0;
    fc.assert(
      fc.property(cases, ({ doc, patch }) => {
        const docBefore = structuredClone(doc);
        const patchBefore = structuredClone(patch);
        let expected = { ok: false } as Outcome;
        const polluted = changesBuiltins(() => (expected = theirs(doc, patch)));
        const actual = ours(doc, patch);
        // The deliberate differences: ours refuses to move a document into itself, to take a
        // function (an inherited property) into it, or to write into one.
        if (polluted || theirsGoesOdd(doc, patch)) {
          if (expected.ok) expect(actual.ok).toBe(false);
        } else {
          expect(actual.ok).toBe(expected.ok);
          // RunState logs the error's message as theirs does: it must be theirs to the letter.
          if (!actual.ok && !expected.ok) expect(actual.message).toBe(expected.message);
          if (actual.ok && expected.ok) {
            successes++;
            expect(same(actual.doc, expected.doc), JSON.stringify({ ours: actual.doc, theirs: expected.doc })).toBe(true);
            const shared = containers(actual.doc);
            for (const c of containers(patch)) expect(shared.has(c)).toBe(false);
          }
        }
        expect(same(doc, docBefore)).toBe(true);
        expect(same(patch, patchBefore)).toBe(true);
      }),
      { numRuns: 6000, seed: 20261123 },
    );
    // The generator must reach both outcomes often, or the comparison says little.
    expect(successes).toBeGreaterThan(1500);
  });
});

describe("applyJsonPatch quirks it shares with fast-json-patch", () => {
  const both = (doc: unknown, patch: unknown[]) => {
    const expected = theirs(doc, patch);
    const actual = ours(doc, patch);
    expect(actual.ok).toBe(expected.ok);
    if (actual.ok && expected.ok) expect(same(actual.doc, expected.doc)).toBe(true);
    if (!actual.ok && !expected.ok) expect(actual.message).toBe(expected.message);
    return expected.ok ? expected : ({ ok: false } as Outcome);
  };

  it("takes an undefined document as null: an empty patch yields null, a path into it fails", () => {
    expect(both(undefined, [])).toEqual({ ok: true, doc: null });
    expect(both(undefined, [{ op: "test", path: "", value: null }])).toEqual({ ok: true, doc: null });
    expect(both(undefined, [{ op: "add", path: "/a", value: 1 }])).toEqual({ ok: false });
    expect(both(undefined, [{ op: "add", path: "", value: { a: 1 } }])).toEqual({ ok: true, doc: { a: 1 } });
  });

  it("yields null for a remove at the root", () => {
    expect(both({ a: 1 }, [{ op: "remove", path: "" }])).toEqual({ ok: true, doc: null });
  });

  it("takes '-' as the array's end for add, and fails remove/replace/test there", () => {
    expect(both([1], [{ op: "add", path: "/-", value: 2 }])).toEqual({ ok: true, doc: [1, 2] });
    expect(both([1], [{ op: "remove", path: "/-" }])).toEqual({ ok: false });
    expect(both([1], [{ op: "replace", path: "/-", value: 2 }])).toEqual({ ok: false });
    expect(both([1], [{ op: "test", path: "/-", value: 1 }])).toEqual({ ok: false });
  });

  it("adds at index = length, refuses index > length", () => {
    expect(both([1], [{ op: "add", path: "/1", value: 2 }])).toEqual({ ok: true, doc: [1, 2] });
    expect(both([1], [{ op: "add", path: "/2", value: 2 }])).toEqual({ ok: false });
  });

  it("parses any run of digits as an index (empty and leading zeros too) and refuses other keys", () => {
    expect(both([1, 2], [{ op: "add", path: "/", value: 0 }])).toEqual({ ok: true, doc: [0, 1, 2] });
    expect(both([1, 2], [{ op: "add", path: "/01", value: 0 }])).toEqual({ ok: true, doc: [1, 0, 2] });
    // remove/replace need the key itself to exist: "01" does not.
    expect(both([1, 2], [{ op: "remove", path: "/01" }])).toEqual({ ok: false });
    expect(both([1, 2], [{ op: "add", path: "/a", value: 0 }])).toEqual({ ok: false });
    expect(both([1, 2], [{ op: "test", path: "/length", value: 2 }])).toEqual({ ok: false });
  });

  it("moves from a non-index key of an array by removing its first element", () => {
    // The `from` check ignores theirs' illegal-index error; splice("length", 1) removes index 0.
    expect(both({ a: [7, 8], b: {} }, [{ op: "move", from: "/a/length", path: "/b/c" }])).toEqual({
      ok: true,
      doc: { a: [8], b: { c: 7 } },
    });
    // copy reads a["length"]... through its non-index read: undefined, copied as null.
    expect(both({ a: [7, 8], b: {} }, [{ op: "copy", from: "/a/length", path: "/b/c" }])).toEqual({
      ok: true,
      doc: { a: [7, 8], b: { c: 2 } },
    });
  });

  it("move/copy to an array index past the end append, where add refuses", () => {
    expect(both({ a: [1], b: 2 }, [{ op: "copy", from: "/b", path: "/a/5" }])).toEqual({ ok: true, doc: { a: [1, 2], b: 2 } });
    expect(both({ a: [1], b: 2 }, [{ op: "move", from: "/b", path: "/a/5" }])).toEqual({ ok: true, doc: { a: [1, 2] } });
  });

  it("move/copy to the root take `from` unvalidated: a missing one yields undefined", () => {
    expect(both({ a: 1 }, [{ op: "move", from: "/b", path: "" }])).toEqual({ ok: true, doc: undefined });
    expect(both({ a: { b: 1 } }, [{ op: "copy", from: "/a", path: "" }])).toEqual({ ok: true, doc: { b: 1 } });
  });

  it("refuses __proto__ and constructor/prototype anywhere in a path, even as a key the document has", () => {
    const doc = JSON.parse('{"__proto__":{"x":1},"constructor":{"prototype":1}}') as unknown;
    expect(both(doc, [{ op: "test", path: "/__proto__/x", value: 1 }])).toEqual({ ok: false });
    expect(both(doc, [{ op: "replace", path: "/constructor/prototype", value: 2 }])).toEqual({ ok: false });
    expect(both({ a: 1 }, [{ op: "copy", from: "/__proto__", path: "/b" }])).toEqual({ ok: false });
    // An own "__proto__" key is kept as an own key by a change elsewhere.
    const result = both(doc, [{ op: "add", path: "/y", value: 1 }]);
    expect(result.ok && Object.getPrototypeOf(result.doc)).toBe(Object.prototype);
  });

  it("sees inherited properties: remove /constructor on {} succeeds, replace creates it", () => {
    expect(both({}, [{ op: "remove", path: "/constructor" }])).toEqual({ ok: true, doc: {} });
    expect(both({}, [{ op: "replace", path: "/constructor", value: 1 }])).toEqual({ ok: true, doc: { constructor: 1 } });
  });

  it("tests with fast-deep-equal: key order ignored, arrays and objects differ, own hasOwnProperty throws", () => {
    expect(both({ a: { x: 1, y: [2] } }, [{ op: "test", path: "/a", value: { y: [2], x: 1 } }]).ok).toBe(true);
    expect(both({ a: [] }, [{ op: "test", path: "/a", value: {} }]).ok).toBe(false);
    expect(both({ a: { hasOwnProperty: 1 } }, [{ op: "test", path: "/a", value: { hasOwnProperty: 1 } }]).ok).toBe(false);
  });

  it("treats primitive documents as theirs do under Node (its CommonJS build: writes do nothing)", () => {
    expect(both(0, [{ op: "remove", path: "/a" }])).toEqual({ ok: true, doc: 0 });
    expect(both("abc", [{ op: "test", path: "/length", value: 3 }])).toEqual({ ok: true, doc: "abc" });
    expect(both("abc", [{ op: "remove", path: "/0" }])).toEqual({ ok: true, doc: "abc" });
    expect(both(5, [{ op: "add", path: "/a", value: 1 }])).toEqual({ ok: true, doc: 5 });
    expect(both(5, [{ op: "remove", path: "/a" }])).toEqual({ ok: false });
    expect(both(null, [{ op: "remove", path: "/a" }])).toEqual({ ok: false });
    expect(both({ a: null }, [{ op: "add", path: "/a/b", value: 1 }])).toEqual({ ok: false });
  });

  it("refuses to move the whole document into itself, where theirs makes it contain itself", () => {
    const patch = [{ op: "move", from: "", path: "/b" }];
    const expected = theirs({ a: 1 }, patch);
    expect(expected.ok && cyclic(expected.doc)).toBe(true);
    expect(ours({ a: 1 }, patch).ok).toBe(false);
    // A copy from "" is fine in both, and so is a move on a primitive document (a no-op write).
    expect(both({ a: 1 }, [{ op: "copy", from: "", path: "/b" }])).toEqual({ ok: true, doc: { a: 1, b: { a: 1 } } });
    expect(both(0, [{ op: "move", from: "", path: "/" }])).toEqual({ ok: true, doc: 0 });
  });

  it("refuses to take an inherited property into the document, where theirs takes the function", () => {
    for (const patch of [
      [{ op: "copy", from: "/constructor", path: "/x" }],
      [{ op: "move", from: "/constructor", path: "/x" }],
      [{ op: "copy", from: "/constructor", path: "" }],
    ]) {
      expect(theirsGoesOdd({}, patch)).toBe(true);
      expect(ours({}, patch).ok).toBe(false);
    }
    // An own "constructor" key is an ordinary key.
    expect(both({ constructor: 1 }, [{ op: "copy", from: "/constructor", path: "/x" }])).toEqual({ ok: true, doc: { constructor: 1, x: 1 } });
  });

  it("refuses to write into a built-in function, where theirs does", () => {
    const patch = [{ op: "move", from: "/constructor", path: "/constructor/" }];
    let expected = { ok: false } as Outcome;
    expect(changesBuiltins(() => (expected = theirs({ constructor: [] }, patch)))).toBe(true);
    expect(expected).toEqual({ ok: true, doc: {} });
    expect(ours({ constructor: [] }, patch).ok).toBe(false);
  });

  it("voids the whole patch when an operation fails", () => {
    const doc = { a: 1 };
    expect(both(doc, [{ op: "add", path: "/b", value: 2 }, { op: "test", path: "/a", value: 2 }])).toEqual({ ok: false });
    expect(doc).toEqual({ a: 1 });
  });
});

describe("applyJsonPatch's copying", () => {
  it("copies only the changed path and shares the rest with the input", () => {
    const doc = { big: { list: [1, 2, 3] }, small: { n: 1 } };
    const result = applyJsonPatch(doc, [{ op: "replace", path: "/small/n", value: 2 }]) as typeof doc;
    expect(result).toEqual({ big: { list: [1, 2, 3] }, small: { n: 2 } });
    expect(result).not.toBe(doc);
    expect(result.small).not.toBe(doc.small);
    expect(result.big).toBe(doc.big);
    expect(doc.small.n).toBe(1);
  });

  it("copies a container once per patch, however many operations change it", () => {
    const doc = { a: { b: [] as number[] } };
    const patch: JsonPatchOperation[] = Array.from({ length: 100 }, (_, i) => ({ op: "add", path: "/a/b/-", value: i }));
    const result = applyJsonPatch(doc, patch) as typeof doc;
    expect(result.a.b).toHaveLength(100);
    expect(doc.a.b).toHaveLength(0);
  });

  it("never hands out the patch's values, even when later operations write into them", () => {
    const value = { x: [1] };
    const patch: JsonPatchOperation[] = [
      { op: "add", path: "/v", value },
      { op: "add", path: "/v/x/-", value: 2 },
    ];
    const result = applyJsonPatch({}, patch) as { v: { x: number[] } };
    expect(result.v).toEqual({ x: [1, 2] });
    expect(result.v).not.toBe(value);
    expect(value).toEqual({ x: [1] });
  });
});
