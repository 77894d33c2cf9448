/**
 * Starting and stopping the proxy and store suites' server processes: each is a script here run by
 * this Node with tsx, that prints one JSON line with its URL when it listens (see serve.ts
 * `announce`).
 */
import { startChild as startProcess, type Child as Process } from "../../child.js";

/** A running server process. */
export interface Child extends Process {
  /** The JSON line it printed when listening; `url` is its origin. */
  ready: { url: string } & Record<string, unknown>;
}

/**
 * Runs `bench/suites/proxy/<name>.ts` in a Node process of its own, with `arg` as its one (JSON)
 * argument, and waits for its ready line.
 *
 * @throws {Error} (rejects) When it exits, or prints something other than a JSON object with a
 *   string `url`, or takes longer than 30 s to do so; it is killed then.
 */
export async function startChild(name: string, arg: unknown): Promise<Child> {
  const child = await startProcess(name, new URL(`./${name}.ts`, import.meta.url), [], arg);
  if (typeof child.ready.url !== "string") {
    await child.stop();
    throw new Error(`expected the ${name} process to print a JSON object with a string "url", found ${JSON.stringify(child.ready).slice(0, 300)}`);
  }
  return child as Child;
}
