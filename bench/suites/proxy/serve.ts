/**
 * What the proxy suite's server processes (upstream.ts, proxy.ts, pipe.ts) share: a node:http
 * server on 127.0.0.1, a handler per path, the JSON argument they are started with, and the one
 * JSON line on stdout that tells the bench they are listening.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A node:http request handler. */
export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Listens with `handler` on 127.0.0.1, on a port the system picks.
 *
 * @throws {Error} (rejects) When the server cannot listen.
 * @returns The server's origin, `http://127.0.0.1:<port>`.
 */
export async function serve(handler: Handler): Promise<string> {
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

/** A handler per exact request path; 404 for any other. Never throws. */
export function routes(table: Record<string, Handler>): Handler {
  return (req, res) => {
    const handler = table[req.url ?? ""];
    if (handler) handler(req, res);
    else res.writeHead(404).end();
  };
}

/**
 * The process's one argument, a JSON object.
 *
 * @throws {Error} When there is no argument or it is not a JSON object.
 */
export function argument(): Record<string, unknown> {
  const text = process.argv[2];
  if (text === undefined) throw new Error(`expected one JSON object as argument, found none (argv: ${JSON.stringify(process.argv.slice(1))})`);
  const value: unknown = JSON.parse(text);
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(`expected a JSON object as argument, found ${text}`);
  return value as Record<string, unknown>;
}

/**
 * The string `field` of `args`.
 *
 * @throws {Error} When it is missing or not a string.
 */
export function stringField(args: Record<string, unknown>, field: string): string {
  const value = args[field];
  if (typeof value !== "string") throw new Error(`expected a string "${field}" in the argument, found ${JSON.stringify(value)}`);
  return value;
}

/**
 * Tells the bench this process listens: `ready` as one JSON line on stdout. From then on the
 * process lives as long as its stdin is open, so that it never outlives a bench that died without
 * killing it (its end of the pipe closes with it). Never throws.
 */
export function announce(ready: { url: string } & Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(ready)}\n`);
  process.stdin.on("end", () => process.exit(0));
  process.stdin.on("error", () => process.exit(0));
  process.stdin.resume();
}
