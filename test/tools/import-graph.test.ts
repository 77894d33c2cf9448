// The import-graph check that `npm run lint` runs: it must see every kind of import, find every
// circle, and hold src/ to its layers.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { describeCycle, findCycles, importGraph, layerProblems } from "../../scripts/import-graph.js";

const root = join(import.meta.dirname, "../..");
let work: string | undefined;

/** Writes `files` (path → source) under a new temporary folder and returns it. */
function tree(files: Record<string, string>): string {
  work = mkdtempSync(join(tmpdir(), "agui-graph-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(work, path)), { recursive: true });
    writeFileSync(join(work, path), text);
  }
  return work;
}

afterEach(() => {
  if (work) rmSync(work, { recursive: true, force: true });
  work = undefined;
});

describe("importGraph and findCycles", () => {
  it("find a circle closed by a type-only import", () => {
    const dir = tree({
      "a.ts": 'import { b } from "./b.js";\nexport const a = b;\n',
      "b.ts": 'import type { C } from "./c.js";\nexport const b = 1 as unknown as C;\n',
      "c.ts": 'import type { a } from "./a.js";\nexport type C = typeof a;\n',
      "d.ts": 'import { a } from "./a.js";\nexport const d = a;\n',
    });
    const graph = importGraph([dir]);
    const cycles = findCycles(graph);
    expect(cycles).toEqual([[join(dir, "a.ts"), join(dir, "b.ts"), join(dir, "c.ts")]]);
    expect(describeCycle(graph, cycles[0]!, dir)).toBe("a.ts → b.ts → c.ts → a.ts");
  });

  it("count re-exports, dynamic imports and folder imports as edges", () => {
    const dir = tree({
      "x/index.ts": 'export { y } from "../y.js";\n',
      "y.ts": 'export const y = () => import("./z.js");\n',
      "z.ts": 'import { y } from "./x/index.js";\nexport const z = y;\n',
    });
    const cycles = findCycles(importGraph([dir]));
    expect(cycles).toHaveLength(1);
    expect(cycles[0]).toHaveLength(3);
  });

  it("ignore packages and a graph without circles", () => {
    const dir = tree({
      "a.ts": 'import ts from "typescript";\nimport { b } from "./b.js";\nexport const a = [ts, b];\n',
      "b.ts": "export const b = 1;\n",
    });
    const graph = importGraph([dir]);
    expect(graph.get(join(dir, "a.ts"))).toEqual([join(dir, "b.ts")]);
    expect(findCycles(graph)).toEqual([]);
  });

  it("refuse a root that does not exist", () => {
    expect(() => importGraph([join(root, "no-such-folder")])).toThrow(/expected a file or folder, found nothing/);
  });
});

describe("layerProblems", () => {
  it("name a loose root module, a sealed folder entered past its index, and layers importing each other", () => {
    const dir = tree({
      "src/index.ts": 'export { e } from "./util/index.js";\n',
      "src/loose.ts": "export const loose = 1;\n",
      "src/util/index.ts": 'export { e } from "./errors.js";\n',
      "src/util/errors.ts": "export const e = 1;\n",
      "src/server/handler.ts": 'import { e } from "../util/errors.js";\nimport { c } from "../client/run.js";\nexport const s = [e, c];\n',
      "src/client/run.ts": 'import type { s } from "../server/handler.js";\nexport const c = 2 as unknown as typeof s;\n',
    });
    const src = join(dir, "src");
    const problems = layerProblems(importGraph([src]), src, dir);
    expect(problems).toContain("src/loose.ts: a loose module at the root of src/; put it in the folder of its layer");
    expect(problems).toContain("src/server/handler.ts → src/util/errors.ts: util/ is entered through util/index.ts");
    expect(problems.find((p) => p.startsWith("layers that import each other: client, server"))).toContain("src/client/run.ts → src/server/handler.ts");
    expect(problems).toHaveLength(3);
  });

  it("count src/gen/model with the model, and the rest of src/gen as a layer of its own", () => {
    const dir = tree({
      "src/model/check.ts": 'import { checks } from "../gen/model/checks.js";\nexport const check = checks;\n',
      "src/model/json.ts": "export type Json = unknown;\n",
      "src/gen/model/checks.ts": 'import type { Json } from "../../model/json.js";\nexport const checks: Json = 1;\n',
      "src/gen/codec/events.ts": 'import type { Json } from "../../model/json.js";\nexport const read = (j: Json) => j;\n',
    });
    const src = join(dir, "src");
    expect(layerProblems(importGraph([src]), src, dir)).toEqual([]);
  });
});

describe("this repository", () => {
  it("has no import circle in src/ or bench/, and src/ keeps its layers", () => {
    const graph = importGraph([join(root, "src"), join(root, "bench")]);
    expect(findCycles(graph).map((cycle) => describeCycle(graph, cycle, root))).toEqual([]);
    expect(layerProblems(graph, join(root, "src"), root)).toEqual([]);
  });
});
