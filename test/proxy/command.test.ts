// The `agui-wire proxy` command, spawned as a user runs it: from the issue's configuration (with
// the upstream URLs pointed at servers this test starts), it serves a run, logs it as a JSON line,
// and stops on SIGTERM; a bad configuration or bad arguments stop it with a message that says
// exactly what is wrong.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpAgent } from "../../src/client/index.js";
import type { AguiEvent, RunAgentInput } from "../../src/index.js";
import { createNodeHandler } from "../../src/server/index.js";
import { listen, type TestServer } from "../client/helpers.js";
import { issueConfig } from "./issue-config.js";

const root = join(import.meta.dirname, "../..");
const dir = mkdtempSync(join(tmpdir(), "agui-proxy-command-"));

interface Running {
  child: ChildProcess;
  lines: string[];
  stderr: string;
  exited: Promise<number | null>;
}

/** Spawns the command (through tsx, as the source tree has no build) with `args`. */
function start(args: string[]): Running {
  const child = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), join(root, "src/proxy/cli.ts"), ...args], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  const running: Running = { child, lines: [], stderr: "", exited: new Promise((resolve) => child.once("exit", (code) => resolve(code))) };
  createInterface({ input: child.stdout! }).on("line", (line) => running.lines.push(line));
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (running.stderr += text));
  return running;
}

const parsed = (running: Running): Record<string, unknown>[] => running.lines.map((line) => JSON.parse(line) as Record<string, unknown>);

let weather: TestServer;
let echo: TestServer;
const seenByWeather: string[] = [];

beforeAll(async () => {
  weather = await listen((req, res) => {
    seenByWeather.push(String(req.headers.authorization));
    createNodeHandler(function* (input: RunAgentInput) {
      yield { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId };
      yield { type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant" };
      yield { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "Sunny, 24°C" };
      yield { type: "TEXT_MESSAGE_END", messageId: "m" };
      yield { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId };
    })(req, res);
  });
  echo = await listen(createNodeHandler(function* (input: RunAgentInput) {
    yield { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId };
    yield { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId };
  }));
});

afterAll(async () => {
  await weather?.close();
  await echo?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("agui-wire proxy", () => {
  it("starts from the issue's configuration, serves a run over SSE from a binary upstream, logs it, and stops on SIGTERM", async () => {
    writeFileSync(join(dir, "proxy.json"), JSON.stringify(issueConfig(weather.url, echo.url), null, 2));
    const running = start(["proxy", "--config", "proxy.json", "--port", "0", "--host", "127.0.0.1"]);
    try {
      await expect.poll(() => parsed(running).find((l) => l.msg === "listening"), { timeout: 15_000 }).toBeDefined();
      const url = parsed(running).find((l) => l.msg === "listening")!.url as string;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

      const agent = new HttpAgent({ url: `${url}/agents/weather`, transport: "sse", headers: { authorization: "Bearer t-alice" } });
      const events: AguiEvent[] = [];
      for await (const event of agent.events()) events.push(event);
      expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED"]);
      expect(seenByWeather).toEqual(["Bearer upstream-secret"]);

      const refused = await fetch(`${url}/agents/weather`, { method: "POST", headers: { authorization: "Bearer t-bob", "content-type": "application/json" }, body: "{}" });
      expect(refused.status).toBe(403);
      // Every refusal gets a line of its own, the ones no run is made for too.
      expect((await fetch(`${url}/agents/weather`, { method: "POST", body: "{}" })).status).toBe(401);
      expect((await fetch(`${url}/nowhere`, { headers: { authorization: "Bearer t-alice" } })).status).toBe(404);
      await expect.poll(() => parsed(running).filter((l) => l.msg === "refused").map((l) => l.status)).toEqual([401, 404]);
      expect(parsed(running).find((l) => l.msg === "refused")).toMatchObject({ method: "POST", path: "/agents/weather", reason: "unauthenticated" });
      await expect.poll(() => parsed(running).filter((l) => l.msg === "run")).toHaveLength(2);
      expect(parsed(running).find((l) => l.msg === "run")).toMatchObject({
        agent: "weather",
        principal: "alice",
        transportIn: "binary",
        transportOut: "sse",
        status: 200,
        events: 5,
        outcome: "finished",
      });

      running.child.kill("SIGTERM");
      expect(await running.exited).toBe(0);
    } finally {
      running.child.kill("SIGKILL");
    }
  }, 30_000);

  it("refuses a configuration with mistakes, naming each one, and exits 1", async () => {
    const config = issueConfig("ftp://weather", echo.url) as Record<string, unknown>;
    (config.limits as Record<string, unknown>).concurentRuns = 2;
    (config.auth as { tokens: { agents: string[] }[] }).tokens[1]!.agents = ["echo", "wether"];
    writeFileSync(join(dir, "bad.json"), JSON.stringify(config));
    const running = start(["proxy", "--config", "bad.json"]);
    expect(await running.exited).toBe(1);
    expect(running.stderr).toContain("invalid proxy config:");
    expect(running.stderr).toContain('agents.weather.url: expected an http: or https: URL, found "ftp://weather"');
    expect(running.stderr).toContain('limits: expected only the keys maxBodyBytes, concurrentRuns, runsPerMinute, runTimeoutMs, firstByteTimeoutMs, idleTimeoutMs, found "concurentRuns"');
    expect(running.lines).toEqual([]);
  }, 30_000);

  it("says what is wrong with a file that is not JSON, a missing file, and bad arguments", async () => {
    writeFileSync(join(dir, "broken.json"), "{ agents: ");
    const broken = start(["proxy", "--config", "broken.json"]);
    expect(await broken.exited).toBe(1);
    expect(broken.stderr).toMatch(/cannot read the configuration "broken\.json": it is not JSON/);

    const missing = start(["proxy", "--config", "nowhere.json"]);
    expect(await missing.exited).toBe(1);
    expect(missing.stderr).toMatch(/cannot read the configuration "nowhere\.json": .*ENOENT/);

    const noConfig = start(["proxy"]);
    expect(await noConfig.exited).toBe(2);
    expect(noConfig.stderr).toContain("--config is required");
    expect(noConfig.stderr).toContain("usage: agui-wire proxy --config <proxy.json>");

    const badPort = start(["proxy", "--config", "proxy.json", "--port", "http"]);
    expect(await badPort.exited).toBe(2);
    expect(badPort.stderr).toContain('--port expects a port number from 0 to 65535, found "http"');
  }, 30_000);

  it("prints its usage, each option with its default, for --help and -h, and exits 0; after a mistake, on stderr with 2", async () => {
    const runs = [["proxy", "--help"], ["proxy", "-h"], ["--help"], ["-h"], ["proxy", "--config", "proxy.json", "--help"], [], ["nope"], ["proxy", "--verbose"]].map((args) => {
      const running = start(args);
      // "close", not "exit": the output is read to its end only then.
      const closed = new Promise<number | null>((resolve) => running.child.once("close", resolve));
      return { args, running, closed };
    });
    const outcomes = await Promise.all(runs.map(async ({ args, running, closed }) => ({ args, code: await closed, stdout: running.lines.join("\n"), stderr: running.stderr })));
    for (const { args, code, stdout, stderr } of outcomes.slice(0, 5)) {
      expect({ args, code, stderr }).toEqual({ args, code: 0, stderr: "" });
      expect(stdout).toMatch(/^usage: agui-wire proxy --config <proxy\.json> \[--port <port>\] \[--host <host>\]\n/);
      expect(stdout).toMatch(/--config <path> +the proxy's JSON configuration \(required\)/);
      expect(stdout).toMatch(/--port <port> +the port to listen on, 0 for any free one \(default: 8787\)/);
      expect(stdout).toMatch(/--host <host> +the address to listen on \(default: 127\.0\.0\.1,/);
      expect(stdout).toMatch(/-h, --help +print this help and exit/);
    }
    for (const { args, code, stdout, stderr } of outcomes.slice(5)) {
      expect({ args, code, stdout }).toEqual({ args, code: 2, stdout: "" });
      expect(stderr).toContain("(default: 8787)");
    }
    expect(outcomes[5]!.stderr).toContain("expected a command, found none");
    expect(outcomes[6]!.stderr).toContain('unknown command "nope": expected "proxy"');
    expect(outcomes[7]!.stderr).toContain('unknown option "--verbose": expected --config, --port, --host or --help');
  }, 60_000);
});
