// src/gen/ must be exactly what `npm run generate` makes (buf generate from proto/, then the event
// checks and the browsers' forms from the zod model), and proto/ must pass `buf lint`, so that the committed code cannot
// drift from the schema and the model.
import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");
const buf = join(root, "node_modules/.bin/buf");

function listFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}

describe("generated code", () => {
  const out = mkdtempSync(join(tmpdir(), "agui-wire-gen-"));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  // Four generators, each a process of its own; gen-model-types alone is some 10 s of CPU (a
  // TypeScript program over the zod model, for its JSDoc).
  it("is what buf generate, tools/gen-model-types.ts, tools/gen-event-checks.ts and tools/gen-model-forms.ts produce", async () => {
    const run = promisify(execFile);
    // buf first: it cleans its output folder. Then the others, which write apart, at once.
    await run(buf, ["generate", "--output", out], { cwd: root });
    // gen-model-types takes the model's folder; the others the gen folder.
    await Promise.all([
      run(process.execPath, ["--import", "tsx", "tools/gen-model-types.ts", join(out, "src/gen/model")], { cwd: root }),
      ...["tools/gen-event-checks.ts", "tools/gen-model-forms.ts"].map((tool) => run(process.execPath, ["--import", "tsx", tool, join(out, "src/gen")], { cwd: root })),
    ]);
    const fresh = join(out, "src/gen");
    const committed = join(root, "src/gen");
    const freshFiles = listFiles(fresh).map((f) => relative(fresh, f)).sort();
    const committedFiles = listFiles(committed).map((f) => relative(committed, f)).sort();
    expect(committedFiles).toEqual(freshFiles);
    expect(freshFiles.length).toBeGreaterThan(0);
    for (const file of freshFiles) {
      expect(readFileSync(join(committed, file), "utf8"), file).toBe(readFileSync(join(fresh, file), "utf8"));
    }
    // About 15 s of CPU in all: a loaded two-core machine takes more than the default 20 s.
  }, 90_000);

  it("comes from a schema that passes buf lint", () => {
    // execFileSync throws, failing the test, when buf exits non-zero; its findings are in the error.
    expect(() => execFileSync(buf, ["lint"], { cwd: root, stdio: "pipe" })).not.toThrow();
  });
});
