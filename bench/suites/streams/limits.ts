/**
 * The open-file limit of this process, which bounds how many sockets it may hold: the streams
 * suite sizes its client processes by it.
 */
import { readFileSync } from "node:fs";

/**
 * The soft "Max open files" limit of this process, from /proc/self/limits; undefined where there
 * is no such file (not Linux) or it says "unlimited". Never throws.
 */
export function openFileLimit(): number | undefined {
  try {
    const line = readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((l) => l.startsWith("Max open files"));
    const soft = line?.slice("Max open files".length).trim().split(/\s+/)[0];
    const n = Number(soft);
    return Number.isFinite(n) ? n : undefined;
  } catch {
    return undefined;
  }
}
