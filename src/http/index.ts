/**
 * HTTP plumbing shared by the server, the client and the proxy: the `AG-UI-Run-Id` header and
 * resume tokens, request options parsed once per URL, and a node:http response body read as chunks.
 *
 * @module
 */
export { httpTargets } from "./http-target.js";
export { incomingBody, incomingHeader, type IterableBody } from "./incoming-body.js";
export { digestOf, newResumeToken, RESUME_TOKEN_HEADER, RESUME_TOKEN_PARAM, resumeTokenProblem } from "./resume-token.js";
export { RUN_ID_HEADER, runIdProblem } from "./run-id-header.js";
