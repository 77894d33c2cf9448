/**
 * `agui-wire proxy --config proxy.json [--port N] [--host H]`: the proxy as a command. It reads
 * and checks the configuration (saying exactly what is wrong with a bad one), serves it with
 * node:http, logs one JSON line per run and per refusal on stdout, and stops cleanly on SIGINT
 * or SIGTERM. `--help` (or `-h`) prints the usage, with each option's default, and exits 0.
 *
 * @module
 */
import { readFile, stat } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, resolve } from "node:path";
import { ProxyConfigError } from "./config.js";
import type { createNodeProxyHandler } from "./node.js";

/** Where the command writes, and how it stops (injected by tests; the real streams otherwise). */
export interface CommandIO {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
}

/** The default port, when `--port` is not given. */
export const DEFAULT_PROXY_PORT = 8787;

/** The default address, when `--host` is not given: loopback, so that nothing outside the machine reaches a proxy started to try it. */
export const DEFAULT_PROXY_HOST = "127.0.0.1";

/** What `--help` prints, and what follows a mistake in the arguments: every option, with its default. */
export const USAGE = `usage: agui-wire proxy --config <proxy.json> [--port <port>] [--host <host>]

Commands:
  proxy              serve the agents a JSON configuration names, at POST /agents/{name},
                     with its tokens, JWTs and limits; one JSON line per run on stdout

Options of proxy:
  --config <path>    the proxy's JSON configuration (required); a key file it names is
                     found next to it
  --port <port>      the port to listen on, 0 for any free one (default: ${DEFAULT_PROXY_PORT})
  --host <host>      the address to listen on (default: ${DEFAULT_PROXY_HOST}, this machine only;
                     0.0.0.0 or :: for every interface)
  -h, --help         print this help and exit`;

/** The command's arguments, read; a request for help; or what is wrong with them. */
export function parseArguments(argv: readonly string[]): { config: string; port: number; host: string } | { help: true } | { error: string } {
  // Help wins wherever it is asked for, even beside a mistake: it says how to mend it.
  if (argv.includes("--help") || argv.includes("-h") || argv[0] === "help") return { help: true };
  if (argv[0] !== "proxy") return { error: argv.length === 0 ? "expected a command, found none" : `unknown command ${JSON.stringify(argv[0])}: expected "proxy"` };
  let config: string | undefined;
  let port = DEFAULT_PROXY_PORT;
  let host = DEFAULT_PROXY_HOST;
  for (let i = 1; i < argv.length; i++) {
    const flag = argv[i]!;
    const [name, inline] = flag.startsWith("--") && flag.includes("=") ? [flag.slice(0, flag.indexOf("=")), flag.slice(flag.indexOf("=") + 1)] : [flag, undefined];
    if (name !== "--config" && name !== "--host" && name !== "--port") return { error: `unknown option ${JSON.stringify(name)}: expected --config, --port, --host or --help` };
    const value = inline ?? argv[++i];
    if (value === undefined) return { error: `${name} expects a value, found none` };
    if (name === "--config") config = value;
    else if (name === "--host") host = value;
    else {
      port = Number(value);
      if (!/^\d+$/.test(value) || port > 65535) return { error: `--port expects a port number from 0 to 65535, found ${JSON.stringify(value)}` };
    }
  }
  if (config === undefined) return { error: "--config is required: the path of the proxy's JSON configuration" };
  return { config, port, host };
}

/**
 * Runs the command with `argv` (the arguments after the program's name).
 *
 * @returns The server once it listens; or the exit code: 0 after `--help`, 1 or 2 after a failure
 *   that was reported.
 * @throws Never: every failure is written to `io.stderr` and returned as an exit code.
 */
export async function runProxyCommand(argv: readonly string[], io: CommandIO): Promise<Server | number> {
  const args = parseArguments(argv);
  if ("help" in args) {
    io.stdout(USAGE);
    return 0;
  }
  if ("error" in args) {
    io.stderr(`agui-wire: ${args.error}\n${USAGE}`);
    return 2;
  }
  let config: unknown;
  try {
    config = JSON.parse(await readFile(args.config, "utf8"));
  } catch (error) {
    const why = error instanceof SyntaxError ? `it is not JSON (${error.message})` : (error as Error).message;
    io.stderr(`agui-wire proxy: cannot read the configuration ${JSON.stringify(args.config)}: ${why}`);
    return 1;
  }
  const exposed = await exposedSecrets(args.config, config);
  if (exposed !== undefined) io.stderr(`agui-wire proxy: warning: ${exposed}`);
  // A key file named in the configuration is found next to it, wherever the command runs from.
  const jwt = (config as { auth?: { jwt?: { publicKeyFile?: unknown } } } | null)?.auth?.jwt;
  if (jwt && typeof jwt.publicKeyFile === "string") jwt.publicKeyFile = resolve(dirname(args.config), jwt.publicKeyFile);
  let handler: ReturnType<typeof createNodeProxyHandler>;
  try {
    // Loaded only to serve: --help and a mistake in the arguments or the file answer without it.
    const { createNodeProxyHandler } = await import("./node.js");
    handler = createNodeProxyHandler(config, {
      logger: (record) => io.stdout(JSON.stringify({ time: new Date().toISOString(), msg: "run", ...record })),
      // Refusals no run record tells of (401, 404, 405, …): an operator looks for those too.
      onRefusal: (record) => io.stdout(JSON.stringify({ time: new Date().toISOString(), msg: "refused", ...record })),
      onError: (error, agent) => io.stderr(JSON.stringify({ time: new Date().toISOString(), msg: "run failed", agent, error: String(error) })),
    });
  } catch (error) {
    io.stderr(`agui-wire proxy: ${error instanceof ProxyConfigError ? "" : "cannot start: "}${(error as Error).message}`);
    return 1;
  }
  const server = createServer(handler);
  try {
    await new Promise<void>((done, fail) => {
      server.once("error", fail);
      server.listen(args.port, args.host, () => {
        server.off("error", fail);
        done();
      });
    });
  } catch (error) {
    io.stderr(`agui-wire proxy: cannot listen on ${args.host}:${args.port}: ${(error as Error).message}`);
    return 1;
  }
  const { address, port } = server.address() as AddressInfo;
  const url = `http://${address.includes(":") ? `[${address}]` : address}:${port}`;
  io.stdout(JSON.stringify({ time: new Date().toISOString(), msg: "listening", url }));
  return server;
}

/**
 * What the configuration file lets every user of the machine read, when it holds secrets (static
 * tokens, a JWT secret, route headers) and its mode lets others read it; `undefined` otherwise, or
 * where modes say nothing (Windows).
 */
async function exposedSecrets(path: string, config: unknown): Promise<string | undefined> {
  if (process.platform === "win32") return undefined;
  const c = config as { auth?: { tokens?: unknown[]; jwt?: { secret?: unknown } }; agents?: Record<string, { headers?: object }> } | null;
  const secrets = [
    ...(Array.isArray(c?.auth?.tokens) && c.auth.tokens.length > 0 ? ["static tokens"] : []),
    ...(typeof c?.auth?.jwt?.secret === "string" ? ["a JWT secret"] : []),
    ...(Object.values(c?.agents ?? {}).some((agent) => agent?.headers && Object.keys(agent.headers).length > 0) ? ["route headers"] : []),
  ];
  if (secrets.length === 0) return undefined;
  let mode: number;
  try {
    mode = (await stat(path)).mode;
  } catch {
    return undefined;
  }
  if ((mode & 0o004) === 0) return undefined;
  return `${JSON.stringify(path)} holds ${secrets.join(", ")} and every user of this machine may read it (mode ${(mode & 0o777).toString(8)}): expected it readable by its owner alone (chmod 600)`;
}
