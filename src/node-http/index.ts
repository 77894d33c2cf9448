/**
 * node:http plumbing shared by the Node HTTP clients (the client's Node transport and the proxy's
 * upstream requests): request options parsed once per URL, and a node:http response body read as
 * chunks. Apart from http/, which is isomorphic, so that the declarations a browser's client
 * reaches never name node:http's types.
 *
 * @module
 */
export { httpTargets } from "./http-target.js";
export { incomingBody, incomingHeader } from "./incoming-body.js";
