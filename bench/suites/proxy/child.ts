/**
 * Starting and stopping the proxy suite's server processes: each is a script here run by this Node
 * with tsx, that prints one JSON line with its URL when it listens (see serve.ts `announce`).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

/** How long a server may take to start (tsx compiles it first) before it counts as failed. */
const START_TIMEOUT_MS = 30_000;
/** How long a server may take to exit after SIGTERM before it is killed. */
const STOP_TIMEOUT_MS = 5_000;
/** The end of a server's stderr kept for error messages, characters (a crash's report fits). */
const STDERR_KEPT = 4_000;

/** A running server process. */
export interface Child {
  /** Its name, for messages: `upstream`, `proxy`, `pipe`. */
  name: string;
  pid: number | undefined;
  /** The JSON line it printed when listening; `url` is its origin. */
  ready: { url: string } & Record<string, unknown>;
  /** Why it is gone (exit code or signal, and the end of its stderr), or undefined while it runs. */
  failure(): string | undefined;
  /** Ends it (SIGTERM, then SIGKILL) and waits for it to exit. Never rejects. */
  stop(): Promise<void>;
}

/**
 * Runs `bench/suites/proxy/<name>.ts` in a Node process of its own, with `arg` as its one (JSON)
 * argument, and waits for its ready line.
 *
 * @throws {Error} (rejects) When it exits, or prints something other than a JSON object with a
 *   string `url`, or takes longer than 30 s to do so; it is killed then.
 */
export async function startChild(name: string, arg: unknown): Promise<Child> {
  const script = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  // stdin stays open as a lifeline: the child exits when it closes, i.e. when this process dies.
  const proc = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), script, JSON.stringify(arg)], { stdio: ["pipe", "pipe", "pipe"] });
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
  const failure = (): string | undefined => (exit === undefined ? undefined : `the ${name} process ${exit}${stderr.trim() ? `; its stderr: ${stderr.trim().slice(0, 1000)}` : ""}`);

  const stop = async (): Promise<void> => {
    if (exit !== undefined) return;
    proc.stdin!.end();
    proc.kill("SIGTERM");
    const timer = setTimeout(() => proc.kill("SIGKILL"), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };

  try {
    const line = await new Promise<string>((resolve, reject) => {
      let out = "";
      proc.stdout!.setEncoding("utf8");
      const onData = (chunk: string): void => {
        out += chunk;
        const end = out.indexOf("\n");
        if (end < 0) return;
        proc.stdout!.off("data", onData);
        // Anything it prints later is drained, so that a full pipe never blocks it.
        proc.stdout!.resume();
        resolve(out.slice(0, end));
      };
      proc.stdout!.on("data", onData);
      void exited.then(() => reject(new Error(`expected the ${name} process to print its URL, but ${failure()}`)));
      setTimeout(() => reject(new Error(`expected the ${name} process to print its URL within ${START_TIMEOUT_MS / 1000} s, found ${out ? JSON.stringify(out) : "nothing"}; its stderr: ${stderr.trim() || "empty"}`)), START_TIMEOUT_MS).unref();
    });
    let ready: unknown;
    try {
      ready = JSON.parse(line);
    } catch {
      throw new Error(`expected the ${name} process to print one JSON line with its URL, found ${JSON.stringify(line)}`);
    }
    if (typeof ready !== "object" || ready === null || typeof (ready as { url?: unknown }).url !== "string") {
      throw new Error(`expected the ${name} process to print a JSON object with a string "url", found ${line}`);
    }
    return { name, pid: proc.pid, ready: ready as Child["ready"], failure, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
