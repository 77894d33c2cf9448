/**
 * Request headers as a caller may give them, declared without the DOM lib.
 *
 * @module
 */

/**
 * Headers as `fetch` and `new Headers()` accept them: a `Headers`, a record, or a list of
 * name–value pairs. The DOM lib calls this `HeadersInit`; a Node project's types (ES and
 * @types/node, no DOM) have no such global, so the published declarations name this instead. A
 * DOM `HeadersInit` is assignable to it, and it to a DOM or undici `HeadersInit`.
 */
export type HeadersLike = Headers | Record<string, string> | [string, string][];
