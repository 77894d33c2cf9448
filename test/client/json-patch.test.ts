/**
 * Our JSON Patch applier (src/client/reducer/json-patch.ts) against `fast-json-patch` 3.1.1's
 * `applyPatch(document, patch, true, false)`, which `@ag-ui/client` 1.0 uses: on random documents
 * and random operations (paths that exist, do not, or are one past an end) both succeed with
 * deep-equal results, or both fail, or theirs succeeds where RFC 6902 refuses (checked here by an
 * independent reading of the RFC's preconditions) and ours refuses. Our input and patch are never
 * changed and the result shares no object with the patch. Then the choices it shares with theirs,
 * and the cases where it follows the RFC instead.
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

/** The reference tokens of a pointer, unescaped. */
const tokensOf = (pointer: string): string[] => (pointer === "" ? [] : pointer.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~")));
const isIndex = (t: string) => /^\d*$/.test(t);

/** What `tokens` reaches in `doc` through own keys and in-bounds indexes, RFC 6901's way. */
function reach(doc: unknown, tokens: string[]): { found: boolean; value?: unknown } {
  let node = doc;
  for (const t of tokens) {
    if (typeof node !== "object" || node === null) return { found: false };
    if (Array.isArray(node) ? String(+t) !== t || +t >= node.length : !Object.hasOwn(node, t)) return { found: false };
    node = (node as Record<string, unknown>)[Array.isArray(node) ? +t : t];
  }
  return { found: true, value: node };
}

/** Whether RFC 6902 refuses `op` on `doc`: a missing target or parent, a bad index, a move into itself. */
function rfcRefuses(doc: unknown, op: { op: string; path: string; from?: string }): boolean {
  const path = tokensOf(op.path);
  const inserts = op.op === "add" || op.op === "move" || op.op === "copy";
  if (op.op === "move" || op.op === "copy") {
    if (!reach(doc, tokensOf(op.from!)).found) return true;
    if (op.op === "move" && op.path.startsWith(`${op.from}/`)) return true;
  }
  if (path.length === 0) return false;
  const parent = reach(doc, path.slice(0, -1));
  if (!parent.found || typeof parent.value !== "object" || parent.value === null) return true;
  const last = path[path.length - 1]!;
  if (Array.isArray(parent.value)) {
    if (inserts && last === "-") return false;
    if (!isIndex(last)) return true;
    return inserts ? +last > parent.value.length : String(+last) !== last || +last >= parent.value.length;
  }
  return !inserts && !Object.hasOwn(parent.value, last);
}

/** Whether RFC 6902 refuses some operation of `patch`, replayed on theirs' documents as they go. */
function rfcRefusesPatch(doc: unknown, patch: unknown[]): boolean {
  let d = jsonPatch.deepClone(doc === undefined ? null : doc) as unknown;
  for (const op of structuredClone(patch) as { op: string; path: string; from?: string }[]) {
    if (rfcRefuses(d, op)) return true;
    try {
      d = jsonPatch.applyOperation(d, op as jsonPatch.Operation, true, true).newDocument;
    } catch {
      return false;
    }
  }
  return false;
}

/** Every object and array inside `v`. */
function containers(v: unknown, into = new Set<object>()): Set<object> {
  if (typeof v === "object" && v !== null && !into.has(v)) {
    into.add(v);
    for (const x of Object.values(v)) containers(x, into);
  }
  return into;
}

// No "__proto__" or "constructor": fast-json-patch reads inherited properties through them (and
// may change built-ins), which the cases below cover one by one.
const KEYS = ["", "~", "/", "0", "1", "-", "a", "b", "length", "~1", "01"];
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
  it("succeeds as theirs with deep-equal results, or fails where theirs or RFC 6902 refuses; never changes its inputs", () => {
    let successes = 0;
    let failures = 0;
    let rfcOnly = 0;
    fc.assert(
      fc.property(cases, ({ doc, patch }) => {
        const docBefore = structuredClone(doc);
        const patchBefore = structuredClone(patch);
        const expected = theirs(doc, patch);
        const actual = ours(doc, patch);
        if (actual.ok && expected.ok) {
          successes++;
          expect(same(actual.doc, expected.doc), JSON.stringify({ ours: actual.doc, theirs: expected.doc })).toBe(true);
          const shared = containers(actual.doc);
          for (const c of containers(patch)) expect(shared.has(c)).toBe(false);
        } else if (expected.ok) {
          // Theirs accepts what the RFC refuses (a path into a string, a move or copy past an
          // array's end...): ours must refuse only then.
          rfcOnly++;
          expect(rfcRefusesPatch(doc, patch), JSON.stringify({ doc, patch, ours: actual })).toBe(true);
        } else {
          failures++;
          expect(actual.ok, JSON.stringify({ doc, patch, theirs: expected.message })).toBe(false);
          expect((actual as { message?: string }).message).toMatch(/^JSON Patch operation \d+ \(/);
        }
        expect(same(doc, docBefore)).toBe(true);
        expect(same(patch, patchBefore)).toBe(true);
      }),
      { numRuns: 6000, seed: 20261123 },
    );
    // The generator must reach every outcome often, or the comparison says little.
    expect(successes).toBeGreaterThan(1500);
    expect(failures).toBeGreaterThan(1000);
    expect(rfcOnly).toBeGreaterThan(20);
  });
});

describe("applyJsonPatch's choices where RFC 6902 leaves room: fast-json-patch's", () => {
  const both = (doc: unknown, patch: unknown[]) => {
    const expected = theirs(doc, patch);
    const actual = ours(doc, patch);
    expect(actual.ok).toBe(expected.ok);
    if (actual.ok && expected.ok) expect(same(actual.doc, expected.doc)).toBe(true);
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

  it("reads a run of digits as an index (empty and leading zeros too) and refuses other keys", () => {
    expect(both([1, 2], [{ op: "add", path: "/", value: 0 }])).toEqual({ ok: true, doc: [0, 1, 2] });
    expect(both([1, 2], [{ op: "add", path: "/01", value: 0 }])).toEqual({ ok: true, doc: [1, 0, 2] });
    expect(both([1, 2], [{ op: "add", path: "/a", value: 0 }])).toEqual({ ok: false });
    expect(both([1, 2], [{ op: "test", path: "/length", value: 2 }])).toEqual({ ok: false });
  });

  it("tests equality with key order ignored; an array never equals an object", () => {
    expect(both({ a: { x: 1, y: [2] } }, [{ op: "test", path: "/a", value: { y: [2], x: 1 } }]).ok).toBe(true);
    expect(both({ a: [] }, [{ op: "test", path: "/a", value: {} }]).ok).toBe(false);
  });

  it("refuses __proto__ in a path, even as a key the document has, and keeps an own __proto__ key", () => {
    const doc = JSON.parse('{"__proto__":{"x":1}}') as unknown;
    expect(both(doc, [{ op: "test", path: "/__proto__/x", value: 1 }])).toEqual({ ok: false });
    expect(both({ a: 1 }, [{ op: "copy", from: "/__proto__", path: "/b" }])).toEqual({ ok: false });
    const result = both(doc, [{ op: "add", path: "/y", value: 1 }]);
    expect(result.ok && Object.getPrototypeOf(result.doc)).toBe(Object.prototype);
  });

  it("voids the whole patch when an operation fails, naming the operation", () => {
    const doc = { a: 1 };
    const patch = [{ op: "add", path: "/b", value: 2 }, { op: "test", path: "/a", value: 2 }];
    expect(both(doc, patch)).toEqual({ ok: false });
    expect(doc).toEqual({ a: 1 });
    expect(ours(doc, patch)).toEqual({ ok: false, message: 'JSON Patch operation 1 (test "/a"): the value at /a is not the one expected' });
  });
});

describe("applyJsonPatch follows RFC 6902 where fast-json-patch does not", () => {
  const rfc = (doc: unknown, patch: unknown[], message: RegExp) => {
    expect(theirs(doc, patch).ok).toBe(true);
    const actual = ours(doc, patch);
    expect(actual.ok).toBe(false);
    expect((actual as { message?: string }).message).toMatch(message);
  };

  it("a path through an inherited property is not in the document", () => {
    rfc({}, [{ op: "remove", path: "/constructor" }], /"constructor" is not in the document/);
    rfc({}, [{ op: "replace", path: "/constructor", value: 1 }], /"constructor" is not in the document/);
    expect(ours({}, [{ op: "copy", from: "/constructor", path: "/x" }]).ok).toBe(false);
    // An own "constructor" key is an ordinary key.
    expect(ours({ constructor: 1 }, [{ op: "copy", from: "/constructor", path: "/x" }])).toEqual({ ok: true, doc: { constructor: 1, x: 1 } });
  });

  it("a string or number has no members to write or read", () => {
    rfc(5, [{ op: "add", path: "/a", value: 1 }], /the document is not an object or array/);
    rfc("abc", [{ op: "test", path: "/length", value: 3 }], /length is not in the document/);
  });

  it("move and copy need `from` to exist, and land within an array's bounds", () => {
    rfc({ a: 1 }, [{ op: "move", from: "/b", path: "" }], /"b" is not in the document/);
    rfc({ a: [1], b: 2 }, [{ op: "copy", from: "/b", path: "/a/5" }], /index "5" is out of bounds/);
    rfc({ a: [7, 8], b: {} }, [{ op: "move", from: "/a/length", path: "/b/c" }], /expected an array index, found "length"/);
  });

  it("a location cannot move into itself (theirs makes the document contain itself)", () => {
    rfc({ a: 1 }, [{ op: "move", from: "", path: "/b" }], /cannot be moved into itself/);
    expect(ours({ a: 1 }, [{ op: "copy", from: "", path: "/b" }])).toEqual({ ok: true, doc: { a: 1, b: { a: 1 } } });
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
