/**
 * RFC 6902 JSON Patch, applied copy-on-write: only the objects and arrays along the paths a patch
 * changes are copied; the rest of the result is shared with the input, which is never changed. A
 * small patch on a big state costs the size of its paths (`@ag-ui/client`, through fast-json-patch,
 * deep-clones the whole state per patch).
 *
 * Where RFC 6902 leaves room, fast-json-patch's choices are followed: a `remove` at the root
 * yields `null`, an `undefined` document is taken as `null`, an array index may have leading zeros
 * (and an empty one is 0). Where fast-json-patch accepts what RFC 6902 refuses, this refuses: a
 * path through an inherited property (`/constructor`) or into a string or number, a `move` or
 * `copy` from a location that does not exist, a `move` or `copy` to an array index past the end,
 * a `move` of a location into itself. A path through `__proto__` is refused, as there.
 *
 * @module
 */
import { AguiWireError, assignOwn } from "../../util/index.js";
import type { JsonPatchOperation } from "../../model/index.js";

type Container = Record<string, unknown> | unknown[];
type Op = { op: string; path: string; from?: string; value?: unknown };

const isContainer = (v: unknown): v is Container => typeof v === "object" && v !== null;
const own = (c: Container, key: string): boolean => Object.hasOwn(c, key);

/** Deep equality for `test`: key order does not matter, arrays and objects never equal each other. */
function equals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!isContainer(a) || !isContainer(b) || Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => own(b, k) && equals((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** The reference tokens of a JSON Pointer ("" is the root: no tokens). */
function tokens(pointer: unknown, what: string): string[] {
  if (pointer === "") return [];
  if (typeof pointer !== "string" || pointer[0] !== "/") throw new Error(`${what} must be "" or start with "/", found ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split("/")
    .map((t) => {
      if (t === "__proto__") throw new Error(`${what} goes through __proto__`);
      return t.replace(/~1/g, "/").replace(/~0/g, "~");
    });
}

/**
 * An array index token. Where something is inserted (`insert`), "-" is the end and any run of
 * digits is read as a number (leading zeros, and "" as 0), as fast-json-patch reads them; where an
 * element must exist, the token must name it exactly ("1", not "01").
 */
function index(token: string, length: number, insert: boolean): number {
  if (insert && token === "-") return length;
  if (!/^\d*$/.test(token)) throw new Error(`expected an array index, found "${token}"`);
  const i = +token;
  if (i > length || (!insert && (i === length || String(i) !== token))) throw new Error(`index "${token}" is out of bounds (length ${length})`);
  return i;
}

/** One patch's work: the current document and the containers it made, which alone it may change. */
class Patching {
  readonly #made = new WeakSet<object>();
  // Declared and assigned rather than a parameter property, which would also define it: a definition
  // the bundle need not carry.
  declare doc: unknown;
  constructor(doc: unknown) {
    this.doc = doc;
  }

  /** The value at `path`. @throws Error when it does not exist. */
  get(path: string[]): unknown {
    let node = this.doc;
    for (const t of path) {
      if (!isContainer(node)) throw new Error(`${t} is not in the document`);
      if (Array.isArray(node)) node = node[index(t, node.length, false)];
      else if (own(node, t)) node = node[t];
      else throw new Error(`"${t}" is not in the document`);
    }
    return node;
  }

  /** The container holding `path`'s last token, copied (with those above it) unless this patch made it. */
  #parent(path: string[]): Container {
    const mine = (v: unknown, t: string): Container => {
      if (!isContainer(v)) throw new Error(`${t === "" ? "the document" : `"${t}"`} is not an object or array`);
      if (this.#made.has(v)) return v;
      const c = Array.isArray(v) ? v.slice() : assignOwn({}, v);
      this.#made.add(c);
      return c;
    };
    let node = (this.doc = mine(this.doc, ""));
    for (let k = 0; k < path.length - 1; k++) {
      const t = path[k]!;
      const key = Array.isArray(node) ? index(t, node.length, false) : own(node, t) ? t : undefined;
      if (key === undefined) throw new Error(`"${t}" is not in the document`);
      node = (node as Record<string | number, unknown>)[key] = mine((node as Record<string | number, unknown>)[key], t);
    }
    return node;
  }

  /** Puts `value` at `path`: inserted into an array (`insert`) or set in place. */
  put(path: string[], value: unknown, insert: boolean): void {
    if (path.length === 0) {
      this.doc = value;
      return;
    }
    const parent = this.#parent(path);
    const t = path[path.length - 1]!;
    if (Array.isArray(parent)) {
      const i = index(t, parent.length, insert);
      if (insert) parent.splice(i, 0, value);
      else parent[i] = value;
    } else {
      if (!insert && !own(parent, t)) throw new Error(`"${t}" is not in the document`);
      Object.defineProperty(parent, t, { value, enumerable: true, writable: true, configurable: true });
    }
  }

  /** Removes what is at `path` and returns it. */
  remove(path: string[]): unknown {
    if (path.length === 0) {
      const was = this.doc;
      this.doc = null;
      return was;
    }
    const parent = this.#parent(path);
    const t = path[path.length - 1]!;
    if (Array.isArray(parent)) return parent.splice(index(t, parent.length, false), 1)[0];
    if (!own(parent, t)) throw new Error(`"${t}" is not in the document`);
    const was = parent[t];
    delete parent[t];
    return was;
  }

  apply(op: Op): void {
    const path = tokens(op.path, "path");
    const needsValue = op.op === "add" || op.op === "replace" || op.op === "test";
    if (needsValue && op.value === undefined) throw new Error(`expected a value for ${op.op}`);
    switch (op.op) {
      case "add":
        return this.put(path, structuredClone(op.value), true);
      case "replace":
        this.get(path);
        return this.put(path, structuredClone(op.value), false);
      case "remove":
        this.remove(path);
        return;
      case "test":
        if (!equals(this.get(path), op.value)) throw new Error(`the value at ${op.path} is not the one expected`);
        return;
      case "move":
      case "copy": {
        const from = tokens(op.from, "from");
        const value = this.get(from);
        if (op.op === "copy") return this.put(path, structuredClone(value), true);
        if (op.path === op.from) return;
        if (op.path.startsWith(`${op.from}/`)) throw new Error("a location cannot be moved into itself");
        this.remove(from);
        return this.put(path, value, true);
      }
      default:
        throw new Error(`expected op add, remove, replace, move, copy or test, found ${JSON.stringify(op.op)}`);
    }
  }
}

/**
 * Applies `patch` to `document` (RFC 6902) and returns the new document. `document` is never
 * changed: the result shares with it the parts the patch did not change, and never shares objects
 * with `patch`. An `undefined` document is taken as `null`.
 *
 * @throws AguiWireError `invalid_input` naming the operation and why it failed: a path or `from`
 *   that does not resolve, an array index that is not one or is out of bounds, a failed `test`,
 *   an unknown `op`, a missing `value`. The whole patch is then void.
 */
export function applyJsonPatch(document: unknown, patch: readonly JsonPatchOperation[]): unknown {
  const patching = new Patching(document === undefined ? null : document);
  patch.forEach((op, i) => {
    try {
      patching.apply(op as Op);
    } catch (error) {
      const o = op as Op;
      throw new AguiWireError("invalid_input", `JSON Patch operation ${i} (${o.op} ${JSON.stringify(o.path)}): ${(error as Error).message}`, { cause: error });
    }
  });
  return patching.doc;
}
