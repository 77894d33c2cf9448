#!/usr/bin/env node
/**
 * The `agui-wire` program (package.json `bin`): `agui-wire proxy --config proxy.json [--port N]
 * [--host H]`. See command.ts.
 *
 * @module
 */
import { runProxyCommand } from "./command.js";

const outcome = await runProxyCommand(process.argv.slice(2), {
  stdout: (line) => process.stdout.write(`${line}\n`),
  stderr: (line) => process.stderr.write(`${line}\n`),
});
if (typeof outcome === "number") {
  process.exitCode = outcome;
} else {
  const server = outcome;
  const stop = (): void => {
    server.close(() => process.exit(0));
    // Streams still open get a moment to end, then their connections are closed.
    setTimeout(() => server.closeAllConnections(), 2_000).unref();
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
