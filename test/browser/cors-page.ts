/**
 * The script of test/browser/cors.test.ts's page, bundled by esbuild: runs an agent of another
 * origin with our HttpAgent, or sends the requests any page can send without a preflight.
 */
import { HttpAgent, type HttpStatusError, type Transport } from "../../src/client/index.js";
import type { AguiEvent } from "../../src/index.js";

/** What a run in the page came to: plain data, so that it crosses into the test. */
export interface CorsRunOutcome {
  eventTypes: string[];
  completed: boolean;
  error?: { name: string; code?: string; status?: number; message: string };
  contentTypes: (string | null)[];
}

/** The body kinds a page can POST to another origin without a preflight. */
export type SimpleBody = "text" | "form" | "multipart";

async function run(url: string, transport: Transport, credentials: RequestCredentials): Promise<CorsRunOutcome> {
  const contentTypes: (string | null)[] = [];
  const agent = new HttpAgent({
    url,
    transport,
    fetch: async (input, init) => {
      const response = await fetch(input, { ...init, credentials });
      contentTypes.push(response.headers.get("content-type"));
      return response;
    },
  });
  const events: AguiEvent[] = [];
  try {
    for await (const event of agent.events()) events.push(event);
    return { eventTypes: events.map((e) => e.type), completed: true, contentTypes };
  } catch (err) {
    const e = err as HttpStatusError;
    return { eventTypes: events.map((e) => e.type), completed: false, error: { name: e.name, code: e.code, status: e.status, message: e.message }, contentTypes };
  }
}

/**
 * POSTs a complete RunAgentInput as a "simple" cross-origin request (what a form or a plain
 * fetch sends, with the visitor's cookies, without asking the server first). The answer is
 * opaque to the page; the test reads the server's side.
 */
async function simplePost(url: string, kind: SimpleBody): Promise<string> {
  const input = JSON.stringify({ threadId: "t", runId: "simple", state: {}, messages: [], tools: [], context: [], forwardedProps: {} });
  let body: BodyInit;
  if (kind === "text") body = input;
  else if (kind === "form") body = new URLSearchParams({ [input]: "" });
  else {
    body = new FormData();
    body.set("input", input);
  }
  const response = await fetch(url, { method: "POST", mode: "no-cors", credentials: "include", body });
  return response.type;
}

(globalThis as unknown as { corsPage: unknown }).corsPage = { run, simplePost };
