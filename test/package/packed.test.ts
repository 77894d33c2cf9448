// The package as a user meets it: packed with `npm pack`, installed from the tarball into a
// separate folder, imported by plain Node and type-checked by a consumer's TypeScript.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKED_CLIENT_GZIP_BUDGET } from "../../scripts/bundle-size.js";
import { exportNames, packageEntries, type EntryNames } from "../../scripts/export-names.js";
import { typeCost } from "../../scripts/type-cost.js";

const root = join(import.meta.dirname, "../..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const work = mkdtempSync(join(tmpdir(), "agui-wire-pack-"));
const consumer = join(work, "consumer");
const installed = join(consumer, "node_modules/agui-wire");

function run(cmd: string, args: string[], cwd: string): string {
  return execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

describe("the packed tarball", () => {
  beforeAll(() => {
    run(npm, ["pack", "--silent", "--pack-destination", work], root);
    const tarball = readdirSync(work).find((f) => f.endsWith(".tgz"));
    if (!tarball) throw new Error("npm pack made no tarball");
    run("mkdir", ["-p", consumer], work);
    writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    // With the optional peers of agui-wire/ag-ui, which every entry's import below needs.
    run(npm, ["install", "--no-audit", "--no-fund", "--prefer-offline", join(work, tarball), "@ag-ui/client@1.0.0", "rxjs@7.8.1"], consumer);
  }, 180_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("holds the licence and the repository, and no source map pointing at unshipped sources", () => {
    const files = readdirSync(installed, { recursive: true, encoding: "utf8" }).map((f) => f.split("\\").join("/"));
    expect(files).toContain("LICENSE");
    expect(readFileSync(join(installed, "LICENSE"), "utf8")).toMatch(/^MIT License\n\nCopyright \(c\) 2026 the agui-wire authors\n/);
    expect(files).toContain("dist/index.js");
    expect(files).toContain("dist/index.d.ts");
    // The build emits no maps (tsconfig.build.json): src/ is not shipped, so they could not resolve.
    expect(files.filter((f) => f.endsWith(".map"))).toEqual([]);
    const mapped = files.filter((f) => /\.(js|d\.ts)$/.test(f) && readFileSync(join(installed, f), "utf8").includes("sourceMappingURL"));
    expect(mapped).toEqual([]);
    expect(files.filter((f) => f.startsWith("src/"))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as { license?: string; repository?: unknown };
    expect(manifest.license).toBe("MIT");
    expect(manifest.repository).toEqual({ type: "git", url: "git+https://github.com/agui-wire/agui-wire.git" });
  });

  it("gives a browser bundler its browser build (package.json's browser field), within the budget", async () => {
    const bundle = async (platform: "browser" | "node") => {
      const result = await build({
        stdin: { contents: 'export { HttpAgent } from "agui-wire/client";', resolveDir: consumer, loader: "js" },
        bundle: true,
        minify: true,
        platform,
        format: "esm",
        write: false,
        logLevel: "silent",
      });
      return result.outputFiles[0]!.contents;
    };
    const browser = await bundle("browser");
    const node = await bundle("node");
    // A server judges with the zod schemas and zod's compiled object parser; a browser with the
    // plain forms of src/model/forms.ts, and no zod at all.
    const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    expect(text(node)).toContain("$ZodObjectJIT");
    expect(text(browser)).not.toContain("_zod");
    expect(text(browser)).toContain("expected a non-empty string, found an empty one");
    expect(gzipSync(browser, { level: 9 }).length).toBeLessThanOrEqual(PACKED_CLIENT_GZIP_BUDGET);
  });

  it("imports from plain Node, with every subpath", () => {
    writeFileSync(
      join(consumer, "check.mjs"),
      `import { parseEvent, EventType } from "agui-wire";
import * as server from "agui-wire/server";
import * as client from "agui-wire/client";
import * as proxy from "agui-wire/proxy";
const event = parseEvent({ type: EventType.TEXT_MESSAGE_START, messageId: "m1" });
const started = parseEvent({ type: EventType.RUN_STARTED, threadId: "t", runId: "r", input: { threadId: "t", runId: "r", messages: [] } });
let code;
try { parseEvent({ type: "NOPE" }); } catch (err) { code = err.code; }
console.log(JSON.stringify({ event, started, code, server: typeof server, client: typeof client, proxy: typeof proxy.createProxyHandler }));
`,
    );
    const out = JSON.parse(run(process.execPath, ["check.mjs"], consumer));
    expect(out).toEqual({
      // AG-UI 1.0: no role is filled in, and an echoed input gets 1.0's default lists.
      event: { type: "TEXT_MESSAGE_START", messageId: "m1" },
      started: { type: "RUN_STARTED", threadId: "t", runId: "r", input: { threadId: "t", runId: "r", messages: [], tools: [], context: [] } },
      code: "unknown_event_type",
      server: "object",
      client: "object",
      proxy: "function",
    });
  });

  it("exports from each entry exactly the names exports.json lists, to Node and to TypeScript", async () => {
    const expected = JSON.parse(readFileSync(join(import.meta.dirname, "exports.json"), "utf8")) as Record<string, EntryNames>;
    const entries = packageEntries(installed, "dist");
    expect(exportNames(entries)).toEqual(expected);
    for (const entry of Object.keys(entries)) {
      const specifier = entry === "." ? "agui-wire" : `agui-wire/${entry.slice(2)}`;
      const names = run(process.execPath, ["--input-type=module", "-e", `console.log(JSON.stringify(Object.keys(await import(${JSON.stringify(specifier)})).sort()))`], consumer);
      expect({ entry, values: JSON.parse(names) as string[] }).toEqual({ entry, values: expected[entry]!.values });
    }
  });

  it("serves resumable runs with memoryStore, and redisStore says ioredis is missing (an optional peer not installed)", () => {
    writeFileSync(
      join(consumer, "resume.mjs"),
      `import { createServer } from "node:http";
import { createNodeHandler, memoryStore, redisStore, RESUME_TOKEN_HEADER } from "agui-wire/server";
import { HttpAgent } from "agui-wire/client";
async function* agent(input) {
  yield { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId };
  for (let i = 0; i < 5; i++) yield { type: "CUSTOM", name: "n", value: i };
  yield { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId };
}
const server = createServer(createNodeHandler(agent, { store: memoryStore() }));
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const url = "http://127.0.0.1:" + server.address().port + "/agent";
// A token chosen ahead, as an app that saves it before the POST would: reattaches present it.
const resumeToken = "packed-resume-token-0123456789";
const first = await new HttpAgent({ url }).runAgent({ runId: "r1", resumeToken });
const again = [];
await new HttpAgent({ url }).connectAgent({ runId: "r1", resumeToken }, { onEvent: ({ event }) => void again.push(event.type) });
const tail = await fetch(url + "?runId=r1", { headers: { accept: "text/event-stream", "last-event-id": "4", [RESUME_TOKEN_HEADER]: resumeToken } });
const tokenless = await fetch(url + "?runId=r1", { headers: { accept: "text/event-stream" } });
let redis;
try { await redisStore({ url: "redis://127.0.0.1:1" }).create("x", { owner: undefined, tokenHash: "x" }); } catch (err) { redis = { code: err.code, names: err.message.includes("ioredis") }; }
server.close();
console.log(JSON.stringify({ result: first.result ?? null, again, tail: tail.status, ids: (await tail.text()).match(/^id: \\d+$/gm), tokenless: tokenless.status, redis }));
`,
    );
    const out = JSON.parse(run(process.execPath, ["resume.mjs"], consumer));
    expect(out).toEqual({
      result: null,
      again: ["RUN_STARTED", "CUSTOM", "CUSTOM", "CUSTOM", "CUSTOM", "CUSTOM", "RUN_FINISHED"],
      tail: 200,
      ids: ["id: 5", "id: 6"],
      tokenless: 404,
      redis: { code: "store_unavailable", names: true },
    });
  });

  it("installs the agui-wire command, which serves a proxy from a configuration", async () => {
    writeFileSync(
      join(consumer, "proxy.json"),
      JSON.stringify({ agents: { echo: { url: "http://127.0.0.1:9/agent", description: "Echo" } }, auth: { tokens: [{ token: "t-packed", subject: "packed" }] } }),
    );
    const bin = join(consumer, "node_modules/.bin/agui-wire");
    const child = spawn(bin, ["proxy", "--config", "proxy.json", "--port", "0"], { cwd: consumer, stdio: ["ignore", "pipe", "pipe"] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.setEncoding("utf8").on("data", (text: string) => {
          out += text;
          const match = /"url":"(http:\/\/[^"]+)"/.exec(out);
          if (match) resolve(match[1]!);
        });
        child.once("exit", (code) => reject(new Error(`exited ${code} before listening: ${out}`)));
      });
      const listed = await fetch(`${url}/agents`, { headers: { authorization: "Bearer t-packed" } });
      expect(await listed.json()).toEqual({ agents: [{ name: "echo", description: "Echo" }] });
      expect((await fetch(`${url}/agents`)).status).toBe(401);
    } finally {
      child.kill("SIGTERM");
    }
  }, 30_000);

  it("ships types a consumer's TypeScript accepts, and rejects misuse", () => {
    writeFileSync(
      join(consumer, "check.ts"),
      `import { parseEvent, EventType, type AguiEvent } from "agui-wire";
const event: AguiEvent = parseEvent({ type: EventType.RUN_STARTED, threadId: "t", runId: "r" });
if (event.type === EventType.RUN_STARTED) { const id: string = event.runId; void id; }
// @ts-expect-error: a TEXT_MESSAGE_END has no delta
const bad: AguiEvent = { type: "TEXT_MESSAGE_END", messageId: "m", delta: 1 };
void bad;
`,
    );
    writeFileSync(
      join(consumer, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { module: "nodenext", moduleResolution: "nodenext", strict: true, noEmit: true, skipLibCheck: false, types: [] }, files: ["check.ts"] }),
    );
    expect(typeErrors("tsconfig.json")).toBe("");
    // A type check of the declarations (skipLibCheck false) takes most of 20 s on a loaded machine.
  }, 60_000);

  // Two files, one program (a tsc run costs seconds): an agent that must check, and a generator
  // whose wrong events must each be reported at its own yield.
  it("types agents written with defineAgent: a misspelt event type is refused, and each wrong event of an AgentGenerator is reported at its yield, naming the field", () => {
    writeFileSync(
      join(consumer, "agent.ts"),
      `import { defineAgent } from "agui-wire/server";
export const agent = defineAgent(async function* (input, { signal }) {
  if (!signal.aborted) yield { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId };
});
// @ts-expect-error: "RUN_FINISHD" is no event type
export const misspelt = defineAgent(async function* (input) {
  yield { type: "RUN_FINISHD", threadId: input.threadId, runId: input.runId };
});
`,
    );
    const lines = [
      `import { defineAgent, type AgentGenerator } from "agui-wire/server";`,
      `export const agent = defineAgent(async function* (input): AgentGenerator {`,
      `  yield { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId };`,
      `  yield { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: 1 };`,
      `  yield { type: "TEXT_MESSAGE_END", messageId: "m", delta: "x" };`,
      `  yield { type: "RUN_FINISHD", threadId: input.threadId, runId: input.runId };`,
      `  yield { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId };`,
      `});`,
    ];
    writeFileSync(join(consumer, "wrong-events.ts"), lines.join("\n"));
    // The server entry's Node handler is typed with node:http's types: a Node server has
    // @types/node, which the consumer here borrows from the project. Declaration files are
    // checked by the tests below; skipping them here spares checking all of @types/node.
    writeFileSync(
      join(consumer, "tsconfig.agent.json"),
      JSON.stringify({
        compilerOptions: { module: "nodenext", moduleResolution: "nodenext", strict: true, noEmit: true, skipLibCheck: true, typeRoots: [join(root, "node_modules/@types")], types: ["node"] },
        files: ["agent.ts", "wrong-events.ts"],
      }),
    );
    const report = typeErrors("tsconfig.agent.json").split("\n").filter((line) => line !== "");
    // Nothing of agent.ts, whose misspelt type is expected; its lines start at column 0 in tsc's one-line form.
    expect(report.filter((line) => /^\S/.test(line) && !line.startsWith("wrong-events.ts("))).toEqual([]);
    // One diagnostic per wrong event, at the yield's line, in tsc's one-line form.
    const reported = report.filter((line) => line.startsWith("wrong-events.ts("));
    expect(reported.map((line) => /^wrong-events\.ts\((\d+),/.exec(line)![1])).toEqual(["4", "5", "6"]);
    expect(reported[0]).toContain("Type 'number' is not assignable to type 'string'.");
    expect(reported[0]!.slice(0, reported[0]!.indexOf(":"))).toBe(`wrong-events.ts(4,${lines[3]!.indexOf("delta") + 1})`);
    // The declared types name the event; the union's order is the checker's, which varies.
    expect(reported[1]).toMatch(/'delta' does not exist in type '(TextMessageEndEvent \| TextMessageEndEventInput|TextMessageEndEventInput \| TextMessageEndEvent)'/);
    expect(reported[2]).toContain(`Type '"RUN_FINISHD"' is not assignable to type`);
  });

  // The cost of type-checking a consumer of agui-wire/client, against the same program for
  // @ag-ui/client 1.0 (scripts/type-cost.ts): the count of types tsc builds is deterministic for a
  // TypeScript version, so it is held to theirs; memory and time are printed, not held. Checked
  // with skipLibCheck false, where a package's declarations cost the most: ours name no zod type
  // (src/gen/model), so zod's declarations are never loaded.
  it("costs a consumer's type checker fewer types than @ag-ui/client does", () => {
    const tsc = join(root, "node_modules/typescript/bin/tsc");
    const ours = typeCost(consumer, "agui-wire/client", false, tsc);
    const theirs = typeCost(consumer, "@ag-ui/client", false, tsc);
    console.log(`type check, skipLibCheck false: agui-wire/client ${JSON.stringify(ours)}; @ag-ui/client ${JSON.stringify(theirs)}`);
    expect(ours.types).toBeLessThanOrEqual(theirs.types);
    expect(ours.instantiations).toBeLessThanOrEqual(theirs.instantiations);
  }, 120_000);

  // A consumer whose every entry's declarations are checked (skipLibCheck false), as a Node-only
  // project has them: ES and @types/node, no DOM lib, so no HeadersInit, ResponseType and the
  // like; under each module setting a project may use. Then the same with the DOM lib beside
  // them, and a browser project's (DOM, no @types/node) with the isomorphic entries.
  const everyEntry = `import { parseEvent, EventType, type AguiEvent } from "agui-wire";
import { createAgentHandler, createNodeHandler, defineAgent, memoryStore } from "agui-wire/server";
import { HttpAgent, type HttpAgentConfig } from "agui-wire/client";
import { createProxyHandler } from "agui-wire/proxy";
const event: AguiEvent = parseEvent({ type: EventType.RUN_STARTED, threadId: "t", runId: "r" });
const agent = defineAgent(async function* (input) {
  yield { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId };
});
export const handlers = [createAgentHandler(agent), createNodeHandler(agent, { store: memoryStore() })];
// Headers as a record, as pairs and as a Headers all do.
const configs: HttpAgentConfig[] = [
  { url: "http://localhost/agent", headers: { authorization: "Bearer t" } },
  { url: "http://localhost/agent", headers: [["authorization", "Bearer t"]] },
  { url: "http://localhost/agent", headers: new Headers({ authorization: "Bearer t" }) },
];
export const agents = configs.map((config) => new HttpAgent(config));
export const proxy = createProxyHandler({ agents: {} });
export { event };
`;
  const browserEntries = `import { parseEvent, EventType, type AguiEvent } from "agui-wire";
import { HttpAgent } from "agui-wire/client";
export const event: AguiEvent = parseEvent({ type: EventType.RUN_STARTED, threadId: "t", runId: "r" });
export const agent = new HttpAgent({ url: "/agent", headers: new Headers({ authorization: "Bearer t" }) });
`;
  const nodeTypes = { typeRoots: [join(root, "node_modules/@types")], types: ["node"] };
  const settings = [
    { name: "node16", module: "node16", moduleResolution: "node16" },
    { name: "nodenext", module: "nodenext", moduleResolution: "nodenext" },
    { name: "bundler", module: "esnext", moduleResolution: "bundler" },
  ];

  it.each(settings)("ships declarations a Node project checks without the DOM lib or skipLibCheck ($name)", ({ name, module, moduleResolution }) => {
    writeFileSync(join(consumer, "every-entry.ts"), everyEntry);
    const project = `tsconfig.node-${name}.json`;
    writeFileSync(
      join(consumer, project),
      JSON.stringify({
        compilerOptions: { target: "ES2022", lib: ["ES2022"], ...nodeTypes, module, moduleResolution, strict: true, noEmit: true, skipLibCheck: false },
        files: ["every-entry.ts"],
      }),
    );
    expect(typeErrors(project)).toBe("");
  }, 60_000);

  it("ships declarations a project with the DOM lib checks, with @types/node and without", () => {
    writeFileSync(join(consumer, "every-entry.ts"), everyEntry);
    writeFileSync(join(consumer, "browser-entries.ts"), browserEntries);
    const dom = { target: "ES2022", lib: ["ES2022", "DOM", "DOM.Iterable"], module: "esnext", moduleResolution: "bundler", strict: true, noEmit: true, skipLibCheck: false };
    writeFileSync(join(consumer, "tsconfig.dom-node.json"), JSON.stringify({ compilerOptions: { ...dom, ...nodeTypes }, files: ["every-entry.ts"] }));
    writeFileSync(join(consumer, "tsconfig.dom.json"), JSON.stringify({ compilerOptions: { ...dom, types: [] }, files: ["browser-entries.ts"] }));
    expect(typeErrors("tsconfig.dom-node.json")).toBe("");
    expect(typeErrors("tsconfig.dom.json")).toBe("");
    // Two whole checks of the declarations: past 60 s on a loaded two-core machine.
  }, 120_000);
});

/** Runs the consumer's tsc on `project`, and returns its report: empty when the types check. */
function typeErrors(project: string): string {
  try {
    run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", project], consumer);
    return "";
  } catch (error) {
    // tsc prints its diagnostics on stdout and exits non-zero.
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    return `${stdout ?? ""}${stderr ?? ""}` || String(error);
  }
}
