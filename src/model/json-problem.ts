/**
 * What "any JSON" means for the model: the types, the nesting bound, and the check that finds the
 * first part of a value JSON cannot carry. Free of zod, so that browsers' validators
 * (src/model/check.browser.ts) and the binary codec use it without bringing zod along.
 *
 * @module
 */
import { describeFound } from "./issues.js";

/** A value that JSON can represent exactly: what `JSON.parse` can return. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object (a JSON Schema, for example). */
export type JsonObject = { [key: string]: JsonValue };

/**
 * How deeply arrays and objects may nest inside one JSON value. Both transports enforce the same
 * bound, so that a value that travels in one travels in the other, and so that a hostile value
 * cannot overflow a decoder's stack.
 */
export const MAX_JSON_DEPTH = 100;

/** Where and why a value is not JSON, as found by {@link findJsonProblem}. */
export interface JsonProblem {
  /** Path from the checked value down to the offending part. */
  path: (string | number)[];
  /** What was expected and what was found. */
  message: string;
}

/** Describes a value that is not JSON, briefly (a class instance by its constructor's name). */
export function describeNonJson(value: unknown): string {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const proto = Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null;
    return proto?.constructor?.name ? `an instance of ${proto.constructor.name}` : "object";
  }
  // Issues' wording for the rest, but for the two kinds it words by value.
  return typeof value === "boolean" || typeof value === "symbol" ? typeof value : describeFound(value);
}

/**
 * Finds the first part of `value` that JSON cannot represent: `undefined`, a function, a symbol, a
 * bigint, NaN or ±Infinity, an object that is not a plain object or array (Date, Map, class
 * instances), a sparse array, a cycle, or nesting deeper than {@link MAX_JSON_DEPTH}.
 *
 * @returns `undefined` when `value` is JSON, otherwise the path and the problem.
 */
export function findJsonProblem(value: unknown): JsonProblem | undefined {
  // At the root, undefined means the field is missing altogether.
  if (value === undefined) return { path: [], message: "expected a JSON value, found nothing" };
  const path: (string | number)[] = [];
  const message = visit(value, [], path);
  // Each level pushes its key while unwinding from the failure, so the path comes out reversed; on
  // the happy path nothing is pushed at all.
  return message === undefined ? undefined : { path: path.reverse(), message };
}

function isForeignObjectPrototype(proto: object): boolean {
  const ctor = (proto as { constructor?: unknown }).constructor;
  return Object.getPrototypeOf(proto) === null && typeof ctor === "function" && ctor.name === "Object";
}

/**
 * Whether `proto` is the prototype of a plain object as {@link findJsonProblem} accepts one: null,
 * or some realm's `Object.prototype` (objects made in a vm context or an iframe). For the binary
 * encoder's JSON writer, which checks values as it writes them and must accept the same ones.
 */
export function isPlainObjectPrototype(proto: object | null): boolean {
  return proto === Object.prototype || proto === null || isForeignObjectPrototype(proto);
}

function visit(v: unknown, ancestors: object[], failedAt: (string | number)[]): string | undefined {
  switch (typeof v) {
    case "string":
    case "boolean":
      return undefined;
    case "number":
      return Number.isFinite(v) ? undefined : `expected a finite number, found ${describeNonJson(v)}`;
    case "object": {
      if (v === null) return undefined;
      if (ancestors.length >= MAX_JSON_DEPTH) {
        // A cycle is unbounded nesting, so it is only looked for once the depth bound is reached.
        return ancestors.includes(v)
          ? "expected a JSON value, found a circular reference"
          : `expected JSON nested at most ${MAX_JSON_DEPTH} levels deep, found deeper nesting`;
      }
      ancestors.push(v);
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          const problem = i in v ? visit(v[i], ancestors, failedAt) : "expected a JSON value, found an empty array slot";
          if (problem !== undefined) {
            failedAt.push(i);
            return problem;
          }
        }
      } else {
        // A plain object's prototype is null or some realm's Object.prototype (whose own prototype
        // is null), so objects made in a vm context or an iframe are accepted too.
        // isPlainObjectPrototype's test, written out: a browser bundle keeps this walk alone.
        const proto = Object.getPrototypeOf(v) as object | null;
        if (proto !== Object.prototype && proto !== null && !isForeignObjectPrototype(proto)) {
          return `expected a plain object, found ${describeNonJson(v)}`;
        }
        for (const key in v) {
          const problem = visit((v as Record<string, unknown>)[key], ancestors, failedAt);
          if (problem !== undefined) {
            failedAt.push(key);
            return problem;
          }
        }
      }
      ancestors.pop();
      return undefined;
    }
    case "undefined":
      return "expected a JSON value, found undefined";
    default:
      return `expected a JSON value, found ${typeof v}`;
  }
}

/**
 * The problem of a value that must be JSON but not `null` (1.0's optional fields that are absent
 * or a value), as {@link findJsonProblem} words problems.
 *
 * @returns `undefined` when `value` is such a value.
 */
export function findNonNullJsonProblem(value: unknown): JsonProblem | undefined {
  return value === null ? { path: [], message: "expected a JSON value other than null, found null" } : findJsonProblem(value);
}

/**
 * The problem of a value that must be a JSON object (a plain object whose values are JSON), as
 * {@link findJsonProblem} words problems.
 *
 * @returns `undefined` when `value` is a JSON object.
 */
export function findJsonObjectProblem(value: unknown): JsonProblem | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { path: [], message: `expected a JSON object, found ${describeNonJson(value)}` };
  return findJsonProblem(value);
}

/** A JSON Pointer (RFC 6901): empty, or `/`-separated tokens where `~` only starts `~0` or `~1`. */
export const JSON_POINTER = /^(\/([^/~]|~[01])*)*$/;

/** What a string that is no JSON Pointer is told. */
export const JSON_POINTER_EXPECTED = "expected a JSON Pointer (RFC 6901) such as /a/0";
