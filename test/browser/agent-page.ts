/**
 * The page script of the browser tests of HttpAgent's own defences (idle timeout, redirects),
 * bundled by esbuild: `window.agentPage.run(...)` runs an HttpAgent and reports how it ended.
 */
import { HttpAgent, type HttpStatusError, type RedirectPolicy, type Transport } from "../../src/client/index.js";

/** What the test asks the page to run. */
export interface AgentPageRun {
  url: string;
  transport?: Transport;
  idleTimeoutMs?: number;
  redirect?: RedirectPolicy;
}

/** How the run ended, as plain data. */
export interface AgentPageOutcome {
  types: string[];
  completed: boolean;
  error?: { name: string; code?: string; status?: number; message: string };
}

async function run(options: AgentPageRun): Promise<AgentPageOutcome> {
  const types: string[] = [];
  try {
    for await (const event of new HttpAgent(options).events()) types.push(event.type);
    return { types, completed: true };
  } catch (err) {
    const e = err as HttpStatusError;
    return { types, completed: false, error: { name: e.name, code: e.code, status: e.status, message: e.message } };
  }
}

(globalThis as unknown as { agentPage: { run: typeof run } }).agentPage = { run };
