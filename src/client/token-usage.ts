/**
 * Token usage helpers of `@ag-ui/core` 1.0: RUN_FINISHED's `usage` entries made from LangChain's or
 * the AI SDK's usage objects, and summed per provider and model.
 *
 * @module
 */
import type { TokenUsage } from "../model/index.js";

/** The six counts of a {@link TokenUsage}, in the order an entry lists them. */
const COUNTS = ["inputTokens", "outputTokens", "totalTokens", "reasoningTokens", "cachedInputTokens", "cacheWriteInputTokens"] as const;
type Count = (typeof COUNTS)[number];
type Counts = { [K in Count]?: number | undefined };

/** The labels an entry may carry besides its counts. */
export interface TokenUsageLabels {
  provider?: string;
  model?: string;
}

// Once per process and count, as theirs: a provider that sends a bad count sends it on every call,
// and a warning per call would bury the log it is meant to explain.
const warned = new Set<Count>();

function describe(value: unknown): string {
  if (value === null) return "null";
  switch (typeof value) {
    case "string":
      return `${JSON.stringify(value)} (a string)`;
    case "number":
      return `${String(value)} (a non-finite number)`;
    case "object":
      return "an object";
    default:
      return `${String(value)} (a ${typeof value})`;
  }
}

/**
 * `value` when it is a finite number, else `undefined`. A value that is there but unusable (a
 * string, null, Infinity) is named once per count with `console.warn`; `undefined` and `NaN` are
 * how providers say "not reported" and pass silently.
 */
function count(value: unknown, name: Count): number | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (value !== undefined && !Number.isNaN(value) && !warned.has(name)) {
    warned.add(name);
    console.warn(`[ag-ui] usage.${name} was ${describe(value)}, not a number — omitted from this run's usage. Reported once per key.`);
  }
  return undefined;
}

/** `value[key]` when `value` is an object, else `undefined`: vendor payloads are untrusted. */
function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

/** An entry of the counts present and the labels given, or `undefined` when no count is present. */
function entry(counts: Counts, { provider, model }: TokenUsageLabels): TokenUsage | undefined {
  if (COUNTS.every((name) => counts[name] === undefined)) return undefined;
  const usage: TokenUsage = {};
  if (provider != null) usage.provider = provider;
  if (model != null) usage.model = model;
  for (const name of COUNTS) if (counts[name] !== undefined) usage[name] = counts[name];
  return usage;
}

/**
 * A {@link TokenUsage} from LangChain's (or LangGraph's) `usage_metadata`: `input_tokens`,
 * `output_tokens`, `total_tokens`, `input_token_details.cache_read` and `.cache_creation`,
 * `output_token_details.reasoning`, passed through as they are (LangChain counts as AG-UI does).
 *
 * Never throws; an unusable count is left out and named once per process with `console.warn`.
 *
 * @returns `undefined` when no count is usable, so that the caller can leave usage out.
 */
export function tokenUsageFromLangChainMetadata(usageMetadata: unknown, labels: TokenUsageLabels): TokenUsage | undefined {
  if (!usageMetadata) return undefined;
  const input = field(usageMetadata, "input_token_details");
  const output = field(usageMetadata, "output_token_details");
  return entry(
    {
      inputTokens: count(field(usageMetadata, "input_tokens"), "inputTokens"),
      outputTokens: count(field(usageMetadata, "output_tokens"), "outputTokens"),
      totalTokens: count(field(usageMetadata, "total_tokens"), "totalTokens"),
      reasoningTokens: count(field(output, "reasoning"), "reasoningTokens"),
      cachedInputTokens: count(field(input, "cache_read"), "cachedInputTokens"),
      cacheWriteInputTokens: count(field(input, "cache_creation"), "cacheWriteInputTokens"),
    },
    labels,
  );
}

/**
 * A {@link TokenUsage} from the AI SDK's `LanguageModelUsage`: v5's top-level counts, and v6's
 * `inputTokenDetails.cacheReadTokens`/`.cacheWriteTokens` and `outputTokenDetails.reasoningTokens`
 * (a count present in both forms is read from the top level).
 *
 * Never throws; an unusable count is left out and named once per process with `console.warn`.
 *
 * @returns `undefined` when no count is usable.
 */
export function tokenUsageFromAiSdkUsage(usage: unknown, labels: TokenUsageLabels): TokenUsage | undefined {
  if (!usage) return undefined;
  const input = field(usage, "inputTokenDetails");
  const output = field(usage, "outputTokenDetails");
  return entry(
    {
      inputTokens: count(field(usage, "inputTokens"), "inputTokens"),
      outputTokens: count(field(usage, "outputTokens"), "outputTokens"),
      totalTokens: count(field(usage, "totalTokens"), "totalTokens"),
      reasoningTokens: count(field(usage, "reasoningTokens"), "reasoningTokens") ?? count(field(output, "reasoningTokens"), "reasoningTokens"),
      cachedInputTokens: count(field(usage, "cachedInputTokens"), "cachedInputTokens") ?? count(field(input, "cacheReadTokens"), "cachedInputTokens"),
      cacheWriteInputTokens: count(field(input, "cacheWriteTokens"), "cacheWriteInputTokens"),
    },
    labels,
  );
}

/**
 * Sums usage entries into one per (provider, model) pair, in order of first appearance. A count
 * no entry of a pair reported stays absent (not 0), so "not reported" stays apart from zero.
 *
 * Each result entry has `provider` and `model` keys, `undefined` when not given, as theirs.
 * Never throws for entries of the model's shape.
 */
export function aggregateTokenUsage(entries: TokenUsage[]): TokenUsage[] {
  const groups = new Map<string, TokenUsage>();
  for (const usage of entries) {
    // Keyed as theirs, so the same entries group the same way: provider "a b" without a model and
    // provider "a" with model "b" share a group there too.
    const key = `${usage.provider ?? ""} ${usage.model ?? ""}`;
    let sum = groups.get(key);
    if (sum === undefined) groups.set(key, (sum = { provider: usage.provider, model: usage.model }));
    for (const name of COUNTS) {
      const value = usage[name];
      if (value != null) sum[name] = (sum[name] ?? 0) + value;
    }
  }
  return [...groups.values()];
}
