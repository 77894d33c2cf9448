/**
 * agui-wire/ag-ui: agui-wire's transport inside `@ag-ui/client`'s own `HttpAgent`, for programs
 * built on that class: rxjs operators and middleware, a `requestInit` override, CopilotKit's
 * runtime (which takes `@ag-ui/client` agents and tests `instanceof HttpAgent`).
 *
 * `HttpAgent` here *is* a subclass of `@ag-ui/client`'s `HttpAgent` (an optional peer dependency,
 * `>=0.0.59 <2`, with `rxjs`), which replaces only `run(input)`: binary frames asked for first,
 * compression, validation by AG-UI 1.1's processing rules with warnings, and resumable runs
 * against an agui-wire server with a run store. `withAguiWire(HttpAgentClass)` builds the same
 * subclass from another copy of the class (CopilotKit's, say).
 *
 * Node only imports `@ag-ui/client` and `rxjs` through this entry: `agui-wire/client` needs neither.
 *
 * @module
 */
import { HttpAgent as AgUiHttpAgent } from "@ag-ui/client";
import { withAguiWire } from "./factory.js";

export { withAguiWire, type AguiWireHttpAgentClass, type HttpAgentConstructor, type HttpAgentLike } from "./factory.js";
export type { AguiWireOptions } from "./options.js";

/**
 * `@ag-ui/client`'s `HttpAgent` with agui-wire's transport: `withAguiWire` applied to the
 * `HttpAgent` of the `@ag-ui/client` this module resolves. Its config is theirs (`url`, `headers`,
 * `fetch`, `agentId`, `threadId`, `initialMessages`, `initialState`, `debug`) plus agui-wire's
 * {@link AguiWireOptions} (`transport`, `redirect`, `idleTimeoutMs`, `resume`, `onUnknownEvent`,
 * `onWarning`).
 *
 * @example
 * import { HttpAgent } from "agui-wire/ag-ui";
 * const agent = new HttpAgent({ url: "http://localhost:8000/agent", headers: { authorization: "Bearer …" } });
 * const { newMessages } = await agent.runAgent();
 *
 * @throws (constructor) What theirs throws; `TypeError` or `RangeError` for an invalid agui-wire option.
 */
export const HttpAgent = withAguiWire(AgUiHttpAgent);
/** An instance of {@link HttpAgent}: to TypeScript, an instance of `@ag-ui/client`'s `HttpAgent`. */
export type HttpAgent = InstanceType<typeof HttpAgent>;
