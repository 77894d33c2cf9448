/**
 * RFC 6902 JSON Patch, applied as `@ag-ui/client` 1.0 applies it: `fast-json-patch`'s
 * `applyPatch(document, patch, validate = true, mutate = false)`. Using the same library (3.8 KB
 * min+gzip) keeps every success and failure identical to theirs, quirks included (a `remove` at
 * the root yields `null`, a missing document throws), which a differential test can then assert.
 *
 * @module
 */
import jsonPatch from "fast-json-patch";
import type { JsonPatchOperation } from "../../model/index.js";

/**
 * Applies `patch` to a copy of `document` and returns the new document; `document` is not changed.
 *
 * @throws Error (fast-json-patch's `JsonPatchError`, or a `SyntaxError` when `document` is
 *   `undefined`) when an operation is invalid, a path does not resolve, or a `test` fails.
 */
export function applyJsonPatch(document: unknown, patch: readonly JsonPatchOperation[]): unknown {
  return jsonPatch.applyPatch(document, patch as jsonPatch.Operation[], true, false).newDocument;
}
