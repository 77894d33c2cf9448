// The package as a user meets it: packed with `npm pack`, installed from the tarball into a
// separate folder, imported by plain Node and type-checked by a consumer's TypeScript.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const work = mkdtempSync(join(tmpdir(), "agui-wire-pack-"));
const consumer = join(work, "consumer");

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
    run(npm, ["install", "--no-audit", "--no-fund", "--prefer-offline", join(work, tarball)], consumer);
  }, 180_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("imports from plain Node, with every subpath", () => {
    writeFileSync(
      join(consumer, "check.mjs"),
      `import { parseEvent, EventType } from "agui-wire";
import * as server from "agui-wire/server";
import * as client from "agui-wire/client";
const event = parseEvent({ type: EventType.TEXT_MESSAGE_START, messageId: "m1" });
let code;
try { parseEvent({ type: "NOPE" }); } catch (err) { code = err.code; }
console.log(JSON.stringify({ event, code, server: typeof server, client: typeof client }));
`,
    );
    const out = JSON.parse(run(process.execPath, ["check.mjs"], consumer));
    expect(out).toEqual({
      event: { type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" },
      code: "unknown_event_type",
      server: "object",
      client: "object",
    });
  });

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
    // tsc exits non-zero (and execFileSync throws with its report) on any type error.
    expect(() => run(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "."], consumer)).not.toThrow();
  });
});
