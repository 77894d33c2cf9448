/**
 * HTTP plumbing shared by the server, the client and the proxy: the `AG-UI-Run-Id` header, request
 * options parsed once per URL, and a node:http response body read as chunks.
 *
 * @module
 */
export { httpTargets } from "./http-target.js";
export { incomingBody, incomingHeader, type IterableBody } from "./incoming-body.js";
export { RUN_ID_HEADER, runIdProblem } from "./run-id-header.js";
