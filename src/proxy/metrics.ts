/**
 * The proxy's counters, and their Prometheus text exposition (format 0.0.4) for `GET /metrics`.
 *
 * @module
 */

/** The media type of the Prometheus text format. */
export const METRICS_MEDIA_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** Escapes a label value as the text format requires (backslash, quote, newline). */
function label(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** Counters kept by the proxy, by agent (and outcome or status). */
export class ProxyMetrics {
  readonly #runs = new Map<string, number>();
  readonly #events = new Map<string, number>();
  readonly #bytes = new Map<string, number>();
  readonly #active = new Map<string, number>();
  readonly #refused = new Map<string, number>();

  /** A run was admitted for `agent` and is now streaming. */
  started(agent: string): void {
    this.#active.set(agent, (this.#active.get(agent) ?? 0) + 1);
  }

  /** A run of `agent` ended with `outcome`, having sent `events` events and `bytes` bytes. */
  ended(agent: string, outcome: string, events: number, bytes: number): void {
    this.#active.set(agent, (this.#active.get(agent) ?? 1) - 1);
    const key = `${agent}\u0000${outcome}`;
    this.#runs.set(key, (this.#runs.get(key) ?? 0) + 1);
    this.#events.set(agent, (this.#events.get(agent) ?? 0) + events);
    this.#bytes.set(agent, (this.#bytes.get(agent) ?? 0) + bytes);
  }

  /** A request was answered with an error `status` before any run started. */
  refused(status: number): void {
    const key = String(status);
    this.#refused.set(key, (this.#refused.get(key) ?? 0) + 1);
  }

  /**
   * The counters in the Prometheus text format.
   *
   * @throws Never.
   */
  render(): string {
    const lines: string[] = [];
    const family = (name: string, type: "counter" | "gauge", help: string, rows: [string, number][]) => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
      for (const [labels, value] of rows) lines.push(`${name}${labels} ${value}`);
    };
    const byAgent = (map: Map<string, number>): [string, number][] => [...map].map(([agent, n]) => [`{agent="${label(agent)}"}`, n]);
    family(
      "agui_proxy_runs_total",
      "counter",
      "Runs relayed, by agent and outcome.",
      [...this.#runs].map(([key, n]) => {
        const [agent, outcome] = key.split("\u0000") as [string, string];
        return [`{agent="${label(agent)}",outcome="${label(outcome)}"}`, n];
      }),
    );
    family("agui_proxy_events_total", "counter", "Events relayed to clients, by agent.", byAgent(this.#events));
    family("agui_proxy_bytes_total", "counter", "Bytes sent to clients in event streams, by agent.", byAgent(this.#bytes));
    family("agui_proxy_active_runs", "gauge", "Runs streaming now, by agent.", byAgent(this.#active));
    family(
      "agui_proxy_refused_total",
      "counter",
      "Requests answered with an error before a run started, by HTTP status.",
      [...this.#refused].map(([status, n]) => [`{status="${status}"}`, n]),
    );
    return `${lines.join("\n")}\n`;
  }
}
