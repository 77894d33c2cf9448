/**
 * What the proxy suite asks its proxy process between runs, over that process's stdin and stdout
 * (a JSON line each way, so that asking costs the proxy no HTTP request): the CPU it has used so
 * far, and its own time to first event for the runs since it was last asked.
 */
import { createInterface } from "node:readline";
import type { ProxyTiming } from "../../../src/proxy/index.js";
import type { Child } from "./child.js";

/** The proxy process's answer. */
export interface ProxyStats {
  /** `process.cpuUsage()` of the proxy process, user plus system, µs since it started. */
  cpuUs: number;
  /** The proxy's `onTiming` reports since the last question, oldest first. */
  timings: ProxyTiming[];
}

/** How long the bench waits for an answer. */
const STATS_TIMEOUT_MS = 10_000;

/**
 * Asks the proxy process for its stats.
 *
 * @throws {Error} (rejects) When it does not answer in time, or answers something else.
 */
export async function proxyStats(child: Child): Promise<ProxyStats> {
  child.send({ stats: true });
  const answer = await child.next(STATS_TIMEOUT_MS);
  if (typeof answer.cpuUs !== "number" || !Array.isArray(answer.timings)) throw new Error(`expected the proxy's stats, found ${JSON.stringify(answer).slice(0, 300)}`);
  return answer as unknown as ProxyStats;
}

/**
 * In the proxy process: answers each line on stdin with the process's stats, taking the timings
 * collected since the last line. Never throws.
 */
export function answerStats(timings: ProxyTiming[]): void {
  createInterface({ input: process.stdin }).on("line", () => {
    const cpu = process.cpuUsage();
    const stats: ProxyStats = { cpuUs: cpu.user + cpu.system, timings: timings.splice(0) };
    process.stdout.write(`${JSON.stringify(stats)}\n`);
  });
}
