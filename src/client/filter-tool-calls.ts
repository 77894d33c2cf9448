/**
 * `@ag-ui/client` 1.0's `FilterToolCallsMiddleware`, as one of our middleware: hides the tool calls
 * of some tools from the agent's subscribers and from everything after it in the chain.
 *
 * @module
 */
import type { AguiEvent, RunAgentInput } from "../model/index.js";
import { Middleware, type NextAgent } from "./middleware.js";

/** Which tools to let through: only those listed, or all but those listed (never both). */
export type FilterToolCallsConfig =
  | { allowedToolCalls: string[]; disallowedToolCalls?: never }
  | { disallowedToolCalls: string[]; allowedToolCalls?: never };

/**
 * Drops the calls of filtered tools: a TOOL_CALL_START naming one, and the TOOL_CALL_ARGS,
 * TOOL_CALL_END and TOOL_CALL_RESULT of the same call id. Chunk events are expanded first (as
 * `runNext` does), so a TOOL_CALL_CHUNK call is filtered too. Everything else goes through.
 *
 * @example
 * agent.use(new FilterToolCallsMiddleware({ disallowedToolCalls: ["delete_file"] }));
 */
export class FilterToolCallsMiddleware extends Middleware {
  readonly #allowed: ReadonlySet<string> | undefined;
  readonly #disallowed: ReadonlySet<string> | undefined;

  /**
   * @throws {Error} When `config` names both lists ("Cannot specify both allowedToolCalls and
   *   disallowedToolCalls") or neither ("Must specify either allowedToolCalls or
   *   disallowedToolCalls"), with theirs' messages.
   */
  constructor(config: FilterToolCallsConfig) {
    super();
    // Checked at run time too: JavaScript callers, and `as` casts, get past the union type.
    if (config.allowedToolCalls && config.disallowedToolCalls) throw new Error("Cannot specify both allowedToolCalls and disallowedToolCalls");
    if (!config.allowedToolCalls && !config.disallowedToolCalls) throw new Error("Must specify either allowedToolCalls or disallowedToolCalls");
    if (config.allowedToolCalls) this.#allowed = new Set(config.allowedToolCalls);
    else this.#disallowed = new Set(config.disallowedToolCalls);
  }

  /**
   * The events of the rest of the chain, chunks expanded, without the filtered tools' calls.
   * Throws what the run throws.
   */
  async *run(input: RunAgentInput, next: NextAgent): AsyncGenerator<AguiEvent, void, undefined> {
    // Per run, not per instance: one middleware serves every run of an agent, and runs may overlap.
    // RUN_STARTED clears it, for a stream that carries several runs.
    const blocked = new Set<string>();
    for await (const event of this.runNext(input, next)) {
      switch (event.type) {
        case "RUN_STARTED":
          blocked.clear();
          break;
        case "TOOL_CALL_START":
          if (!this.#lets(event.toolCallName)) {
            blocked.add(event.toolCallId);
            continue;
          }
          break;
        case "TOOL_CALL_ARGS":
        case "TOOL_CALL_END":
          if (blocked.has(event.toolCallId)) continue;
          break;
        case "TOOL_CALL_RESULT":
          // The result is a call's last event: forget the id, so a later call reusing it is judged anew.
          if (blocked.delete(event.toolCallId)) continue;
          break;
      }
      yield event;
    }
  }

  /** Whether the calls of tool `name` go through. */
  #lets(name: string): boolean {
    return this.#allowed ? this.#allowed.has(name) : !this.#disallowed!.has(name);
  }
}
