/**
 * HTTP plumbing shared by the server, the client and the proxy: the `AG-UI-Run-Id` header and
 * resume tokens, request headers and response bodies as the client takes them. Isomorphic: what
 * needs node:http is in node-http/.
 *
 * @module
 */
export type { BodyReader, BodyReadResult, IterableBody } from "./body-reader.js";
export type { HeadersLike } from "./headers-like.js";
export { digestOf, newResumeToken, RESUME_TOKEN_HEADER, RESUME_TOKEN_PARAM, resumeTokenProblem } from "./resume-token.js";
export { RUN_ID_HEADER, runIdProblem } from "./run-id-header.js";
