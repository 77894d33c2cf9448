/**
 * What a benchmark suite is, and the one helper every timed suite uses: run groups of tasks with
 * tinybench and turn the results into rows with events/s, MB/s and ratios to a reference.
 *
 * A suite is a module in bench/suites/ whose default export is a {@link Suite}; the runner finds
 * it by listing that folder, so adding a suite is adding one file.
 */
import { Bench } from "tinybench";
import type { ChartPanel } from "./chart.js";
import type { Table } from "./format.js";
import type { Measurement, TaskSpec } from "./measurement.js";

export type { Impl, Measurement, TaskSpec } from "./measurement.js";

/** What the runner hands to a suite. */
export interface SuiteContext {
  /** Short runs and small traces (CI): checks that the suite still works, not how fast it is. */
  quick: boolean;
  /** One line of progress, to stderr. */
  progress(message: string): void;
}

/** What a suite hands back. */
export interface SuiteResult {
  /** Printed, one after the other. */
  tables: Table[];
  /** Named numbers that goals read (see bench/goals.ts), e.g. `codec/encode mixed/ours`. */
  values: Record<string, number>;
  /** Every timed task, for the JSON report. */
  measurements: Measurement[];
  /** Bar-chart panels for the SVG report. */
  charts: ChartPanel[];
  /** Printed under the tables. */
  notes: string[];
}

export interface Suite {
  /** Matched by the runner's name filter. */
  name: string;
  /** One line, printed above the suite's tables. */
  description: string;
  run(ctx: SuiteContext): Promise<SuiteResult>;
}

/** Tasks measured together and compared with one reference task (and with our SSE task). */
export interface TaskGroup {
  id: string;
  title: string;
  tasks: TaskSpec[];
  /** Key of the task every row's "x ref" is relative to. */
  reference: string;
  /** Key of our SSE task in this group, if any: binary rows also get "x our SSE". */
  sse?: string;
}

/** Timing budget of one task. */
export interface Budget {
  /** ms per task. */
  time: number;
  /** Minimum calls per task. */
  iterations: number;
  warmupTime: number;
  warmupIterations: number;
}

/** Anything a task returns goes here, so that no work can be optimised away. */
export let sink: unknown;

/** Keeps `value` alive. */
export function consume(value: unknown): void {
  sink = value;
}

/**
 * Runs each group in its own tinybench `Bench` (so its tasks are timed back to back) and returns
 * one measurement per task. A task that throws is reported with `error` and zero throughput.
 */
export async function measureGroups(suite: string, groups: TaskGroup[], budget: Budget, ctx: SuiteContext): Promise<Measurement[]> {
  const out: Measurement[] = [];
  const total = groups.reduce((n, g) => n + g.tasks.length, 0);
  let done = 0;
  for (const group of groups) {
    const bench = new Bench({ ...budget, warmup: true, throws: false });
    for (const task of group.tasks) bench.add(task.key, task.fn);
    bench.addEventListener("cycle", (e) => {
      done++;
      ctx.progress(`[${suite}] ${done}/${total} ${group.title}: ${e.task.name}`);
    });
    await bench.run();
    const rows = group.tasks.map((task): Measurement => {
      const result = bench.getTask(task.key)!.result;
      const base = { id: `${suite}/${group.id}/${task.key}`, group: group.id, key: task.key, label: task.label, impl: task.impl, validates: task.validates, events: task.events, bytes: task.bytes };
      if (result.state !== "completed") {
        const error = result.state === "errored" ? String(result.error?.message ?? result.error) : result.state;
        return { ...base, medianMs: NaN, meanMs: NaN, rme: NaN, samples: 0, eventsPerSec: 0, mbPerSec: 0, vsReference: NaN, error };
      }
      // Rates come from the median time of one call, not the mean (`period`): on a shared machine
      // a few calls slowed down by other processes would otherwise drag a whole task down.
      const perSec = 1000 / result.latency.p50;
      return {
        ...base,
        medianMs: result.latency.p50,
        meanMs: result.period,
        rme: result.latency.rme,
        samples: result.latency.samplesCount,
        eventsPerSec: task.events * perSec,
        mbPerSec: (task.bytes * perSec) / 1e6,
        vsReference: NaN,
      };
    });
    const rate = (key: string | undefined) => rows.find((r) => r.key === key && !r.error)?.eventsPerSec;
    const ref = rate(group.reference);
    const sse = rate(group.sse);
    for (const row of rows) {
      if (ref) row.vsReference = row.eventsPerSec / ref;
      if (sse && row.key !== group.sse && row.impl !== "ours-sse") row.vsSse = row.eventsPerSec / sse;
    }
    out.push(...rows);
  }
  return out;
}

/** Each measurement's events/s under its id, for goals. */
export function valuesOf(measurements: Measurement[]): Record<string, number> {
  const values: Record<string, number> = {};
  for (const m of measurements) if (!m.error) values[m.id] = m.eventsPerSec;
  return values;
}
