/**
 * RFC 6902 JSON Patch, applied as `@ag-ui/client` 1.0 applies it: like `fast-json-patch` 3.1.1's
 * `applyPatch(document, patch, validate = true, mutate = false)`, which theirs calls. This is a port
 * of that function's algorithm (its walk, its validator, its `test` equality), so that every
 * success and failure is the same, quirks included: a `remove` at the root yields `null`, an
 * `undefined` document is taken as `null`, an empty array index token means 0, `move`/`copy`
 * resolve `from` without validating it, `__proto__` in a path is refused. A differential test
 * (test/client/json-patch.test.ts) holds it to the library.
 *
 * What differs is the copying: theirs deep-clones the whole document (a JSON round trip) before
 * patching it; this copies only the objects and arrays along the paths it changes and shares the
 * rest with `document` (copy-on-write), so a small patch on a big state costs the size of its paths.
 * One consequence of theirs' JSON round trip is not reproduced: a `-0` in an unchanged part of the
 * document stays `-0` here, where theirs turns it into `0`.
 *
 * Theirs' errors are reproduced to the letter (RunState logs them as `@ag-ui/client` does). Writes
 * on a string, number or boolean do nothing and succeed, as in the CommonJS build Node loads for
 * `@ag-ui/client` (the ESM build a bundler picks runs in strict mode and throws there). Refused here
 * where theirs succeeds: moving the whole document into itself (theirs makes it cyclic), and
 * taking an inherited property such as `/constructor` into the document or writing into one
 * (theirs takes or changes the built-in function).
 *
 * @module
 */
import { AguiWireError } from "../../errors.js";
import type { JsonPatchOperation } from "../../model/index.js";

type Container = Record<string, unknown> | unknown[];
// `ref`: insert `value` as it is (a value `move` or `copy` took from the document itself).
type Op = { op: string; path: string; from?: string; value?: unknown; ref?: true };
// `root`: the operation was at the root, and `doc` is the document it leaves (which only the
// patch's own loop installs: a `move` from "" removes nothing, as in theirs).
type Result = { removed?: unknown; value?: unknown; root?: true; doc?: unknown };

/**
 * A patch failure fast-json-patch reports as a `JsonPatchError`; `reason` is its `name`. The
 * message is theirs to the letter (text, name, index, operation, document as pretty JSON), since
 * `@ag-ui/client` puts it in the warning it logs for a failed patch, and RunState logs the same.
 */
class PatchFailure extends AguiWireError {
  constructor(
    readonly reason: string,
    message: string,
    index?: number,
    operation?: unknown,
    tree?: unknown,
  ) {
    const parts = [message];
    for (const [key, v] of Object.entries({ name: reason, index, operation, tree })) {
      const shown = typeof v === "object" ? JSON.stringify(v, null, 2) : v;
      if (shown !== undefined) parts.push(`${key}: ${shown}`);
    }
    super("invalid_input", parts.join("\n"));
  }
}

const UNRESOLVABLE = "OPERATION_PATH_UNRESOLVABLE";
const BANNED =
  "JSON-Patch: modifying `__proto__` or `constructor/prototype` prop is banned for security reasons, if this was on purpose, please set `banPrototypeModifications` flag false and pass it to this function. More info in fast-json-patch README";
const OPS = new Set(["add", "remove", "replace", "move", "copy", "test", "_get"]);
const isObject = (v: unknown): v is Container => typeof v === "object" && v !== null;
// fast-json-patch's isInteger: only ASCII digits, and the empty string counts.
const isIndex = (key: string): boolean => /^\d*$/.test(key);

/**
 * Deep equality as fast-json-patch's `_areEquals` (fast-deep-equal): key order does not matter,
 * `NaN` equals `NaN`, and `b.hasOwnProperty` is called as a method (so a `b` with its own
 * `hasOwnProperty` key throws, as theirs does).
 */
function equals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a && b && typeof a == "object" && typeof b == "object") {
    const arrA = Array.isArray(a);
    if (arrA && Array.isArray(b)) {
      if (a.length != b.length) return false;
      for (let i = a.length; i-- !== 0; ) if (!equals(a[i], b[i])) return false;
      return true;
    }
    if (arrA != Array.isArray(b)) return false;
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    for (const key of keys) if (!(b as { hasOwnProperty(k: string): boolean }).hasOwnProperty(key)) return false;
    for (const key of keys) if (!equals((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
    return true;
  }
  return a !== a && b !== b;
}

/** fast-json-patch's `hasUndefined`: is `undefined` anywhere in `v`? */
function hasUndefined(v: unknown): boolean {
  if (v === undefined) return true;
  if (isObject(v)) for (const x of Array.isArray(v) ? v : Object.values(v)) if (hasUndefined(x)) return true;
  return false;
}

/**
 * The patch being applied: its current document and the containers this application created,
 * which alone may be changed in place (everything else may belong to the caller).
 */
class Patching {
  readonly owned = new WeakSet<object>();
  constructor(public doc: unknown) {}

  /**
   * A deep copy of `v`, owned. With `json`, as a JSON round trip would make it (fast-json-patch's
   * `_deepClone`, used by `copy`): `undefined` becomes `null` in arrays and at the top, vanishes
   * from objects, and `-0` becomes `0`.
   */
  clone(v: unknown, json: boolean): unknown {
    if (!isObject(v)) return json && (v === undefined || v === 0) ? (v === 0 ? 0 : null) : v;
    let out: Container;
    if (Array.isArray(v)) out = v.map((x) => (json && x === undefined ? null : this.clone(x, json)));
    else {
      // Spread, not assignment, so an own "__proto__" key stays an own key.
      const o: Record<string, unknown> = { ...v };
      for (const k of Object.keys(o)) {
        if (json && o[k] === undefined) delete o[k];
        else o[k] = this.clone(o[k], json);
      }
      out = o;
    }
    this.owned.add(out);
    return out;
  }

  /** Theirs' error for `op` (the validator always reports index 0), showing the current document. */
  #fail(reason: string, message: string, op: Op, index = 0): PatchFailure {
    return new PatchFailure(reason, message, index, op, this.doc);
  }

  /** Theirs' error for an operation of the wrong shape: its validator is given no document then. */
  #shape(reason: string, message: string, op: Op): PatchFailure {
    return new PatchFailure(reason, message, 0, op);
  }

  /** `v` itself when this patching owns it, or a shallow copy that it owns. */
  #own(v: Container): Container {
    if (this.owned.has(v)) return v;
    const copy = Array.isArray(v) ? v.slice() : { ...v };
    this.owned.add(copy);
    return copy;
  }

  /**
   * The container reached from the document through `steps`, made changeable: it and every
   * container above it are copied unless owned, and the copies linked in place of the originals.
   */
  writable(steps: readonly (string | number)[]): Container {
    if (!isObject(this.doc)) throw new PatchFailure(UNRESOLVABLE, "the document is not an object");
    let node = (this.doc = this.#own(this.doc));
    for (const step of steps) {
      const child = (node as Record<string | number, unknown>)[step];
      // Only a path that an earlier `move` shifted under theirs leads through a non-container
      // here (theirs would then change a built-in such as String); refuse it.
      if (!isObject(child)) throw new PatchFailure(UNRESOLVABLE, "the path leads through a value that is not an object");
      node = (node as Record<string | number, unknown>)[step] = this.#own(child);
    }
    return node;
  }

  /**
   * `value`, read at `from` by a `move` or `copy`, unless it is a function: an inherited property
   * such as `/constructor`, which theirs would put in the document (and later write into). `into`:
   * whether it would go into the document (not when the write lands on a primitive, a no-op).
   */
  taken(value: unknown, op: Op, into: boolean): unknown {
    if (into && typeof value === "function") throw new PatchFailure(UNRESOLVABLE, `${op.op}: ${op.from} is not a JSON value`);
    return value;
  }

  /** fast-json-patch's `getValueByPointer`: an unvalidated `_get`. */
  get(pointer: string): unknown {
    if (pointer == "") return this.doc;
    return this.apply({ op: "_get", path: pointer }, false).value;
  }

  /**
   * fast-json-patch's `validator(operation, 0, document, existingPathFragment)` (without a
   * `fragment`: the checks of the operation alone).
   */
  validate(op: Op, fragment?: string): void {
    if (!OPS.has(op.op)) throw this.#shape("OPERATION_OP_INVALID", "Operation `op` property is not one of operations defined in RFC-6902", op);
    if (typeof op.path !== "string") throw this.#shape("OPERATION_PATH_INVALID", "Operation `path` property is not a string", op);
    if (op.path.length > 0 && op.path[0] !== "/")
      throw this.#shape("OPERATION_PATH_INVALID", 'Operation `path` property must start with "/"', op);
    if ((op.op === "move" || op.op === "copy") && typeof op.from !== "string")
      throw this.#shape("OPERATION_FROM_REQUIRED", "Operation `from` property is not present (applicable in `move` and `copy` operations)", op);
    if ((op.op === "add" || op.op === "replace" || op.op === "test") && hasUndefined(op.value))
      throw this.#shape(
        op.value === undefined ? "OPERATION_VALUE_REQUIRED" : "OPERATION_VALUE_CANNOT_CONTAIN_UNDEFINED",
        "Operation `value` property is not present (applicable in `add`, `replace` and `test` operations)",
        op,
      );
    if (fragment === undefined || !this.doc) return;
    if (op.op === "add") {
      const pathLen = op.path.split("/").length;
      const existingLen = fragment.split("/").length;
      if (pathLen !== existingLen + 1 && pathLen !== existingLen)
        throw this.#fail("OPERATION_PATH_CANNOT_ADD", "Cannot perform an `add` operation at the desired path", op);
    } else if (op.op === "replace" || op.op === "remove" || op.op === "_get") {
      if (op.path !== fragment) throw this.#fail(UNRESOLVABLE, "Cannot perform the operation at a path that does not exist", op);
    } else if (op.op === "move" || op.op === "copy") {
      // Theirs runs a validated `_get` of `from` on a JSON copy of the document and fails only
      // when it reports the path unresolvable; any other patch error it reports is ignored.
      try {
        if (op.from !== "") this.apply({ op: "_get", path: op.from! }, true, true);
      } catch (error) {
        if (!(error instanceof PatchFailure)) throw error;
        if (error.reason === UNRESOLVABLE)
          throw this.#fail("OPERATION_FROM_UNRESOLVABLE", "Cannot perform the operation from a path that does not exist", op);
      }
    }
  }

  /**
   * fast-json-patch's `applyOperation(this.doc, op, validate, true, true)`, changing only owned
   * containers. `viaClone` reads the document as theirs' JSON copy of it would read (an
   * `undefined` array element is `null` there).
   */
  apply(op: Op, validate: boolean, viaClone = false, index = 0): Result {
    if (validate) this.validate(op);
    const doc = this.doc;
    if (op.path === "") {
      switch (op.op) {
        case "add":
        case "replace":
          return { root: true, doc: this.clone(op.value, false), removed: doc };
        case "move":
        case "copy":
          // By reference, `from` unvalidated: the rest of the document is gone anyway.
          return { root: true, doc: this.taken(this.get(op.from!), op, true), removed: doc };
        case "test":
          if (!equals(doc, op.value)) throw this.#fail("TEST_OPERATION_FAILED", "Test operation failed", op, index);
          return { root: true, doc };
        case "remove":
          return { root: true, doc: null, removed: doc };
        case "_get":
          return { root: true, doc, value: doc };
      }
      if (validate) throw this.#fail("OPERATION_OP_INVALID", "Operation `op` property is not one of operations defined in RFC-6902", op, index);
      return { root: true, doc };
    }
    const keys = (op.path || "").split("/");
    const len = keys.length;
    const steps: (string | number)[] = [];
    let obj: unknown = doc;
    let fragment: string | undefined;
    for (let t = 1; ; ) {
      let key: string | number = keys[t]!;
      if (key && key.indexOf("~") != -1) key = key.replace(/~1/g, "/").replace(/~0/g, "~");
      // Not a PatchFailure: theirs throws a TypeError here, which a `from` check does not swallow.
      if (key == "__proto__" || (key == "prototype" && t > 0 && keys[t - 1] == "constructor"))
        throw new AguiWireError("invalid_input", BANNED);
      if (validate && fragment === undefined) {
        let found = (obj as Record<string, unknown>)[key];
        if (viaClone && found === undefined && Array.isArray(obj) && Object.hasOwn(obj, key)) found = null;
        if (found === undefined) fragment = keys.slice(0, t).join("/");
        else if (t == len - 1) fragment = op.path;
        if (fragment !== undefined) this.validate(op, fragment);
      }
      t++;
      if (Array.isArray(obj)) {
        if (key === "-") key = obj.length;
        else if (validate && !isIndex(key))
          throw this.#fail(
            "OPERATION_PATH_ILLEGAL_ARRAY_INDEX",
            "Expected an unsigned base-10 integer value, making the new referenced value the array element with the zero-based index",
            op,
            index,
          );
        else if (isIndex(key)) key = ~~key;
        if (t >= len) {
          if (validate && op.op === "add" && (key as number) > obj.length)
            throw this.#fail("OPERATION_VALUE_OUT_OF_BOUNDS", "The specified index MUST NOT be greater than the number of elements in the array", op, index);
          return this.#final(op, obj, key, steps, true, index);
        }
      } else if (t >= len) return this.#final(op, obj, key, steps, false, index);
      obj = (obj as Record<string | number, unknown>)[key];
      steps.push(key);
      if (validate && t < len && (!obj || typeof obj !== "object"))
        throw this.#fail(UNRESOLVABLE, "Cannot perform operation at the desired path", op, index);
    }
  }

  /** fast-json-patch's `objOps`/`arrOps` on `obj[key]`, the container found at `steps`. */
  #final(op: Op, obj: unknown, key: string | number, steps: readonly (string | number)[], array: boolean, index: number): Result {
    switch (op.op) {
      case "test":
        if (!equals((obj as Record<string | number, unknown>)[key], op.value))
          throw this.#fail("TEST_OPERATION_FAILED", "Test operation failed", op, index);
        return {};
      case "_get":
        return { value: (obj as Record<string | number, unknown>)[key] };
      case "move": {
        // Theirs moves the whole document into itself here, making a cycle: refuse it instead.
        if (op.from === "" && isObject(this.doc))
          throw new PatchFailure(UNRESOLVABLE, `cannot move the whole document into itself at ${op.path}`);
        const removed = this.taken(this.apply({ op: "remove", path: op.from! }, false).removed, op, isObject(this.doc));
        this.apply({ op: "add", path: op.path, value: removed, ref: true }, false);
        return {};
      }
      case "copy":
        this.apply({ op: "add", path: op.path, value: this.clone(this.taken(this.get(op.from!), op, isObject(this.doc)), true), ref: true }, false);
        return {};
    }
    // add, remove, replace change `obj`: change an owned copy of it. On a string, number or
    // boolean the write does nothing and succeeds, as in the CommonJS build of fast-json-patch
    // that Node loads for @ag-ui/client (not strict mode; the ESM build bundlers pick would throw).
    if (obj === null || obj === undefined) {
      // The same access as theirs, for the same TypeError and message.
      const none = obj as unknown as Record<string | number, unknown>;
      if (op.op === "add") none[key] = undefined;
      return { removed: none[key] };
    }
    if (typeof obj === "function") {
      // Reached through an inherited property (an unvalidated `from` on a falsy document): theirs
      // would change a built-in function. Removing a key it does not have changes nothing.
      if (op.op === "remove" && !Object.hasOwn(obj, key)) return { removed: (obj as unknown as Record<string | number, unknown>)[key] };
      throw new PatchFailure(UNRESOLVABLE, `${op.path} is not in the document`);
    }
    if (!isObject(obj)) return { removed: (obj as Record<string | number, unknown>)[key] };
    const target = this.writable(steps);
    const at = target as Record<string | number, unknown>;
    // A value from the patch is copied so the result never shares objects with the event; `move`
    // and `copy` hand over values that are already the document's own.
    const value = op.op === "remove" ? undefined : op.ref ? op.value : this.clone(op.value, false);
    if (op.op === "remove") {
      const removed = array ? (target as unknown[]).splice(key as number, 1)[0] : at[key];
      if (!array) delete at[key];
      return { removed };
    }
    const removed = at[key];
    if (array && op.op === "add" && typeof key === "number") (target as unknown[]).splice(key, 0, value);
    else at[key] = value;
    return { removed };
  }
}

/**
 * Applies `patch` to `document` and returns the new document, as `@ag-ui/client` 1.0 does
 * (fast-json-patch's `applyPatch(document, patch, true, false).newDocument`). `document` is never
 * changed: the result shares with it the parts the patch did not change (all of it when nothing
 * changed), and never shares objects with `patch`. An `undefined` document is taken as `null`.
 *
 * @throws AguiWireError (`invalid_input`) when an operation's path or `from` does not resolve as
 *   fast-json-patch requires, an array index is not an integer or is past the end, a path goes
 *   through `__proto__` or `constructor/prototype`, a `test` fails, or a path goes into `null`
 *   (the message is fast-json-patch's); also for the refusals listed in the module comment. The
 *   whole patch is then void.
 */
export function applyJsonPatch(document: unknown, patch: readonly JsonPatchOperation[]): unknown {
  if (!Array.isArray(patch)) throw new PatchFailure("SEQUENCE_NOT_AN_ARRAY", "Patch sequence must be an array");
  const patching = new Patching(document === undefined ? null : document);
  try {
    for (const [i, op] of patch.entries()) {
      const result = patching.apply(op as Op, true, false, i);
      if (result.root) patching.doc = result.doc;
    }
  } catch (error) {
    if (error instanceof AguiWireError) throw error;
    // A TypeError from a read of null, as theirs throws it (same message).
    throw new AguiWireError("invalid_input", error instanceof Error ? error.message : String(error), { cause: error });
  }
  return patching.doc;
}
