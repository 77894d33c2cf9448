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
 * CPU ms of each of `keys` in each of `rounds` rounds: every round calls each task once per sample,
 * the order turning round by round; a sample repeats the call until it takes about `minMs` (sized
 * on the first key). CPU time, not the wall clock: a process that waits for a core has done no
 * work meanwhile.
 *
 * @throws Error when a key names no task; what a task throws.
 */
export async function pairedRounds(tasks: readonly TaskSpec[], keys: readonly string[], rounds: number, minMs = 0): Promise<Map<string, number[]>> {
  const of = (key: string) => tasks.find((t) => t.key === key) ?? raise(`no task ${key}`);
  const order = keys.map(of);
  const reps = minMs > 0 ? Math.max(1, Math.round(minMs / Math.max(0.01, await cpuMs(order[0]!, 1)))) : 1;
  const ms = new Map<string, number[]>(order.map((t) => [t.key, []]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < order.length; i++) {
      const task = order[(round + i) % order.length]!;
      ms.get(task.key)!.push(await cpuMs(task, reps));
    }
  }
  return ms;
}

/** The median over rounds of `base`'s time over `key`'s in the same round (above 1, `key` is faster). */
export function speedOver(ms: ReadonlyMap<string, readonly number[]>, key: string, base: string): number {
  const baseMs = ms.get(base) ?? raise(`no rounds of ${base}`);
  return median((ms.get(key) ?? raise(`no rounds of ${key}`)).map((m, round) => baseMs[round]! / m));
}

/**
 * For each of `keys`, the median over `rounds` of the per-round speed ratio of that task to task
 * `base` (see {@link pairedRounds}; samples sized on the base).
 *
 * @throws Error when a key names no task; what a task throws.
 */
export async function pairedSpeeds(tasks: readonly TaskSpec[], base: string, keys: readonly string[], rounds: number, minMs = 0): Promise<Record<string, number>> {
  const ms = await pairedRounds(tasks, [base, ...keys], rounds, minMs);
  return Object.fromEntries(keys.map((key) => [key, speedOver(ms, key, base)]));
}

function raise(message: string): never {
  throw new Error(message);
}
