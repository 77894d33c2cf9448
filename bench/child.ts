/**
 * The bench's server and client processes (bench/suites/proxy/*.ts, bench/suites/store/server.ts,
 * bench/suites/streams/*.ts), each a script run by this Node with tsx and the given Node flags:
 * each speaks JSON lines, one object a line, on stdout, the first when it is ready; the bench can
 * write lines to its stdin, whose end tells it to exit (so that none outlives a bench that died).
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** How long a process may take to print its first line (tsx compiles it first). */
const START_TIMEOUT_MS = 30_000;
/** How long a process may take to exit after SIGTERM before it is killed. */
const STOP_TIMEOUT_MS = 5_000;
/** The end of a process's stderr kept for error messages, characters. */
const STDERR_KEPT = 4_000;

/** A running process of a suite. */
export interface Child {
  /** Its name, for messages: `server`, `client 2`. */
  name: string;
  pid: number | undefined;
  /** The first JSON line it printed. */
  ready: Record<string, unknown>;
  /**
   * Its next JSON line.
   *
   * @throws {Error} (rejects) When it exits first, prints something that is not a JSON object,
   *   or prints nothing for `timeoutMs`.
   */
  next(timeoutMs: number): Promise<Record<string, unknown>>;
  /** Writes `value` as one JSON line to its stdin. Never throws. */
  send(value: unknown): void;
  /** Why it is gone (exit code or signal, and the end of its stderr), or undefined while it runs. */
  failure(): string | undefined;
  /** Ends it (stdin closed and SIGTERM, then SIGKILL) and waits for it to exit. Never rejects. */
  stop(): Promise<void>;
}

/**
 * Runs the script at `script` in a Node process of its own, with `nodeFlags` before the script
 * and `arg` as its one (JSON) argument, and waits for its first JSON line.
 *
 * @throws {Error} (rejects) When it exits, prints something other than a JSON object, or takes
 *   longer than 30 s to print; it is killed then.
 */
export async function startChild(name: string, script: URL, nodeFlags: string[], arg: unknown): Promise<Child> {
  const path = fileURLToPath(script);
  // The bench's own processes measure what it measures: the compiled package when it does (bench/compiled.mjs).
  const compiled = process.env.AGUI_BENCH_COMPILED === "1" ? ["--import", fileURLToPath(new URL("./compiled.mjs", import.meta.url))] : [];
  const proc = spawn(process.execPath, [...nodeFlags, "--import", import.meta.resolve("tsx"), ...compiled, path, JSON.stringify(arg)], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  proc.stderr!.setEncoding("utf8");
  proc.stderr!.on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_KEPT);
  });
  // A killed child can leave writes to its stdin failing: nothing to report.
  proc.stdin!.on("error", () => {});
  let exit: string | undefined;
  const exited = new Promise<void>((resolve) => {
    proc.once("exit", (code, signal) => {
      exit = signal ? `killed by ${signal}` : `exited with code ${code}`;
      resolve();
    });
    proc.once("error", (error) => {
      exit = `could not run: ${error.message}`;
      resolve();
    });
  });
  const failure = (): string | undefined => (exit === undefined ? undefined : `the ${name} process ${exit}${stderr.trim() ? `; its stderr: ${stderr.trim().slice(-1500)}` : ""}`);

  // Lines as they come, and whoever waits for the next one.
  const lines: string[] = [];
  let waiter: (() => void) | undefined;
  let buffered = "";
  proc.stdout!.setEncoding("utf8");
  proc.stdout!.on("data", (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
      lines.push(buffered.slice(0, end));
      buffered = buffered.slice(end + 1);
    }
    waiter?.();
  });
  void exited.then(() => waiter?.());

  const next = async (timeoutMs: number): Promise<Record<string, unknown>> => {
    const deadline = performance.now() + timeoutMs;
    while (lines.length === 0) {
      if (exit !== undefined) throw new Error(`expected a JSON line from the ${name} process, but ${failure()}`);
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`expected a JSON line from the ${name} process within ${(timeoutMs / 1000).toFixed(0)} s, found none; its stderr: ${stderr.trim().slice(-1500) || "empty"}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      waiter = undefined;
    }
    const line = lines.shift()!;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new Error(`expected a JSON line from the ${name} process, found ${JSON.stringify(line.slice(0, 300))}`);
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`expected a JSON object from the ${name} process, found ${line.slice(0, 300)}`);
    return value as Record<string, unknown>;
  };

  const stop = async (): Promise<void> => {
    if (exit !== undefined) return;
    proc.stdin!.end();
    proc.kill("SIGTERM");
    const timer = setTimeout(() => proc.kill("SIGKILL"), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };

  try {
    const ready = await next(START_TIMEOUT_MS);
    return { name, pid: proc.pid, ready, next, send: (value) => proc.stdin!.write(`${JSON.stringify(value)}\n`), failure, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
