/**
 * The names agui-wire's spans, events and attributes use: OpenTelemetry's GenAI conventions
 * (status "Development") where they say something (`invoke_agent`, `gen_ai.conversation.id`,
 * `gen_ai.usage.*`), HTTP's for statuses, and `agui.*` for the rest.
 *
 * @module
 */

/** `SpanKind` of the API, by value (the module is not imported where these are used). */
export const SPAN_KIND = { INTERNAL: 0, SERVER: 1, CLIENT: 2 } as const;

/** `SpanStatusCode.ERROR` of the API. */
export const STATUS_ERROR = 2;

/** The GenAI operation of a run, and the first word of its span's name. */
export const INVOKE_AGENT = "invoke_agent";

/** Span names of the requests that are not runs: a reattach to a stored run, a cancel of one. */
export const REATTACH_SPAN = "agui.reattach";
export const CANCEL_SPAN = "agui.cancel";

/** Attribute keys. */
export const ATTR = {
  operation: "gen_ai.operation.name",
  agentName: "gen_ai.agent.name",
  conversation: "gen_ai.conversation.id",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  provider: "gen_ai.provider.name",
  model: "gen_ai.response.model",
  runId: "agui.run.id",
  component: "agui.component",
  transport: "agui.transport",
  upstreamTransport: "agui.upstream.transport",
  upstreamStatus: "agui.upstream.status_code",
  coding: "agui.content_coding",
  events: "agui.events",
  bytes: "agui.bytes",
  replayed: "agui.events.replayed",
  reattaches: "agui.reattaches",
  outcome: "agui.outcome",
  principal: "agui.principal",
  after: "agui.after_seq",
  errorType: "error.type",
  method: "http.request.method",
  status: "http.response.status_code",
} as const;

/** Span event names. */
export const EVENT = {
  reattach: "agui.reattach",
  cancel: "agui.cancel",
  storeCreate: "agui.store.create",
  storeAppend: "agui.store.append",
  storeRead: "agui.store.read",
  storeError: "agui.store.error",
  leaseLost: "agui.store.lease_lost",
} as const;

/** How a run ended, as `agui.outcome` says. */
export type RunOutcome = "success" | "interrupt" | "cancelled" | "error";
