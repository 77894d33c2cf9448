/**
 * A run store's failures, told to the handler's `onError` once per kind: a store that is
 * misconfigured (ioredis missing) or unreachable (`ECONNREFUSED 127.0.0.1:6379`) fails every
 * request alike, and an operator needs to hear of it once, not once per client, nor never (the
 * clients alone get the 503).
 *
 * @module
 */
import type { RunAgentInput } from "../model/index.js";
import type { RunStore } from "../store/run-store.js";
import { reportError, type RunErrorContext } from "./options.js";

/** The kinds of failure told already, by store, until the store works again. */
const told = new WeakMap<RunStore, Set<string>>();

/** At most this many kinds are remembered per store: a failure whose words vary (an id in them) cannot grow the set without bound. */
const MAX_KINDS = 64;

/**
 * A failure's kind: its code and the words of its deepest cause (a Redis client's "connect
 * ECONNREFUSED 127.0.0.1:6379"), or its own message.
 */
function kindOf(error: unknown): string {
  let cause: unknown = error;
  for (let depth = 0; depth < 4 && cause instanceof Error && cause.cause !== undefined; depth++) cause = cause.cause;
  const code = (error as { code?: unknown } | null)?.code;
  return `${typeof code === "string" ? code : ""}\u0000${cause instanceof Error ? cause.message : String(cause)}`;
}

/**
 * Tells `onError` of a store's failure unless a failure of its kind was told since the store last
 * worked. A reattach or a cancel carries no input: its context's `input` holds only the runId.
 *
 * @throws Never.
 */
export function reportStoreFailure<R>(
  store: RunStore,
  onError: (error: unknown, context: RunErrorContext<R>) => void,
  error: unknown,
  request: R,
  input: RunAgentInput | { runId: string },
): void {
  let kinds = told.get(store);
  if (kinds === undefined) told.set(store, (kinds = new Set()));
  const kind = kindOf(error);
  if (kinds.has(kind) || kinds.size >= MAX_KINDS) return;
  kinds.add(kind);
  const full: RunAgentInput = "threadId" in input ? input : { threadId: "", runId: input.runId, messages: [], tools: [], context: [], state: undefined, forwardedProps: undefined };
  reportError(onError, error, { input: full, request });
}

/**
 * The store worked: a failure of any kind is told again when it comes back.
 *
 * @throws Never.
 */
export function storeRecovered(store: RunStore): void {
  const kinds = told.get(store);
  if (kinds !== undefined && kinds.size > 0) kinds.clear();
}
