/**
 * `npm start`: serves the demo page and agent on 127.0.0.1 (port from `PORT`, default 3000; 0
 * picks a free one), prints the URL, and stops cleanly on Ctrl-C. With `OTEL_DEMO_CONSOLE=1`, it
 * prints every span of the page's, the proxy's and the agent's runs (demo/telemetry.ts).
 */
import { startDemoServer } from "./server.js";
import { CONSOLE_TELEMETRY_ENV, startConsoleTelemetry } from "./telemetry.js";

const tracing = startConsoleTelemetry(process.env);

const raw = process.env.PORT ?? "3000";
const port = Number(raw);
if (!/^\d+$/.test(raw.trim()) || port > 65535) {
  console.error(`PORT must be a port number (0 to 65535), found ${JSON.stringify(raw)}`);
  process.exit(2);
}

let server: Awaited<ReturnType<typeof startDemoServer>>;
try {
  server = await startDemoServer({ port, logRuns: true });
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code;
  console.error(code === "EADDRINUSE" ? `port ${port} is in use: set PORT to another one` : error);
  process.exit(1);
}

console.log(`agui-wire demo: open ${server.url}  (Ctrl-C to stop)`);
console.log(`the proxy: ${server.url}proxy/agents/demo with "Authorization: Bearer demo-token"; its run records follow`);
console.log(tracing ? "OpenTelemetry: spans printed below, one line each" : `OpenTelemetry: set ${CONSOLE_TELEMETRY_ENV}=1 to print the spans`);

const stop = (signal: string): void => {
  console.log(`\n${signal}: stopping the demo server`);
  server.close().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
};
process.once("SIGINT", () => stop("SIGINT"));
process.once("SIGTERM", () => stop("SIGTERM"));
