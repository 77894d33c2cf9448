/**
 * The client's own HTTP transport, as browsers get it (package.json `browser` field): none, so
 * runs use fetch, and node:http stays out of the bundle. Node's is in `platform-send.ts`.
 *
 * @module
 */
import type { Send } from "./response.js";

/** No transport of the platform's own here: runs use fetch. */
export const platformSend: Send | undefined = undefined;
