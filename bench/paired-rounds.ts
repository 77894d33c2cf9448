/**
 * Speed ratios of tasks measured in one process, paired: for goals that hold one of our paths to
 * another (the batch decoder to the push decoder, encodeFrame to encodeSSE). Separate tinybench
 * tasks, timed minutes apart, swing by up to 1.7x between two runs of the same code on a shared
 * virtual machine (a fixed JSON.parse loop here took from 1.9 to 3.0 s of CPU from one process to
 * the next), and a ratio of two of them inherits that; the tasks of one round share its spell.
 *
 * @module
 */
import type { TaskSpec } from "./measurement.js";
import { median } from "./stats.js";

/** ms of this process's CPU for `reps` calls of `task` (awaited when it returns a promise). */
async function cpuMs(task: TaskSpec, reps: number): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < reps; i++) await task.fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/**
 * For each of `keys`, the median over `rounds` of the per-round speed ratio of that task to task
 * `base` (the base's CPU ms over the task's: above 1, the task is faster). Every round calls each
 * task once per sample, the order turning round by round; a sample repeats the call until it takes
 * about `minMs` (sized on `base`). CPU time, not the wall clock: a process that waits for a core
 * has done no work meanwhile.
 *
 * @throws Error when a key names no task; what a task throws.
 */
export async function pairedSpeeds(tasks: readonly TaskSpec[], base: string, keys: readonly string[], rounds: number, minMs = 0): Promise<Record<string, number>> {
  const of = (key: string) => tasks.find((t) => t.key === key) ?? raise(`no task ${key}`);
  const order = [...keys, base].map(of);
  const reps = minMs > 0 ? Math.max(1, Math.round(minMs / Math.max(0.01, await cpuMs(of(base), 1)))) : 1;
  const ms = new Map<string, number[]>(order.map((t) => [t.key, []]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < order.length; i++) {
      const task = order[(round + i) % order.length]!;
      ms.get(task.key)!.push(await cpuMs(task, reps));
    }
  }
  const baseMs = ms.get(base)!;
  return Object.fromEntries(keys.map((key) => [key, median(ms.get(key)!.map((m, round) => baseMs[round]! / m))]));
}

function raise(message: string): never {
  throw new Error(message);
}
