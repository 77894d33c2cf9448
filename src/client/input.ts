/**
 * What a caller gives to start a run, and the ids runs are given.
 *
 * @module
 */
import type { JsonValue } from "../model/index.js";
import type { Context, Tool } from "../model/index.js";
import type { Message } from "../model/index.js";
import type { ResumeEntry } from "../model/index.js";

/**
 * What `runAgent` and `events` take: every field optional. `state` and `messages` replace the
 * agent's in the input sent (the agent's own are not changed).
 */
export interface RunAgentParameters {
  /** The run's id; a new UUID when absent. */
  runId?: string;
  /** Tools the client offers the agent; default `[]`. */
  tools?: Tool[];
  /** Context for the agent; default `[]`. */
  context?: Context[];
  /** The state sent with the run; default the agent's `state`. */
  state?: JsonValue;
  /** The conversation sent with the run; default the agent's `messages`. */
  messages?: Message[];
  /** Anything the agent's server should pass on; default `{}`. */
  forwardedProps?: JsonValue;
  /** Answers to the interrupts the previous run ended with (see `pendingInterrupts`). */
  resume?: ResumeEntry[];
  /** Cancels the run when it fires. */
  signal?: AbortSignal;
  /**
   * The run's resume token, for an agent whose server keeps runs (`HttpAgent` against an
   * agui-wire server with a store). With `connectAgent`, the token the run was started with (see
   * `HttpAgent.activeRun`): without it the server answers 404. With `runAgent`, a token chosen
   * ahead (22 to 128 base64url characters, at least 128 random bits), so that an app that saved
   * it with the runId can reattach even when the POST's answer never arrived; default a new
   * random one.
   */
  resumeToken?: string;
}

/**
 * A random (version 4) UUID: `crypto.randomUUID` where it exists, which browsers offer only in
 * secure contexts, otherwise built from `crypto.getRandomValues` (or `Math.random` where even
 * that is missing). Never throws.
 */
export function randomId(): string {
  const c = globalThis.crypto;
  if (typeof c?.randomUUID === "function") return c.randomUUID();
  const b = new Uint8Array(31);
  if (typeof c?.getRandomValues === "function") c.getRandomValues(b);
  // A Uint8Array keeps the low 8 bits of what it is given.
  else for (let i = 0; i < 31; i++) b[i] = Math.random() * 256;
  // One random byte per hex digit of the template: 0 and 1 take 4 random bits, 8 takes 2 (the
  // variant 10xx); the version digit 4 stays.
  let i = 0;
  return "10000000-1000-4000-8000-100000000000".replace(/[018]/g, (d) => (+d ^ (b[i++]! & (15 >> (+d / 4)))).toString(16));
}
