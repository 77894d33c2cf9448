/**
 * Every ```ts block of README.md and of the guides in docs/ type-checks, as a user would paste it:
 * each block is its own module, compiled with the project's strict settings, with "agui-wire" and
 * its entries resolved to the sources. A failure names the file, the line and the diagnostic. The
 * README stays short (the detail lives in docs/), and its performance table is the last full
 * benchmark run's (bench/results/latest.json).
 *
 * Also holds the typing promise of `defineAgent` and `AgentFunction`: a literal event type is
 * accepted, a misspelt one is a compile error.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { defineAgent, type AgentFunction } from "../src/server/index.js";
import { currentBlock, renderPerformance } from "../scripts/readme-performance.js";

const root = join(import.meta.dirname, "..");
const README = join(root, "README.md");

interface Block {
  /** 1-based line in README.md of the block's first code line (after the opening fence). */
  line: number;
  code: string;
}

/** The ```ts (or ```typescript) blocks of a Markdown text, with where each starts. */
function tsBlocks(markdown: string): Block[] {
  const lines = markdown.split("\n");
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*(ts|typescript)\b/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[2]!;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !lines[end]!.trimStart().startsWith(fence)) end++;
    blocks.push({ line: start + 1, code: lines.slice(start, end).join("\n") });
    i = end;
  }
  return blocks;
}

/** The project's compiler options (tsconfig.json), with the package's names mapped to src/. */
function compilerOptions(): ts.CompilerOptions {
  const file = join(root, "tsconfig.json");
  const read = ts.readConfigFile(file, (path) => ts.sys.readFile(path));
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, "\n"));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, root, undefined, file);
  return {
    ...parsed.options,
    noEmit: true,
    // Each block is a module of its own, even one with no import, so that blocks do not share
    // globals.
    moduleDetection: ts.ModuleDetectionKind.Force,
    paths: {
      "agui-wire": [join(root, "src/index.ts")],
      "agui-wire/server": [join(root, "src/server/index.ts")],
      "agui-wire/client": [join(root, "src/client/index.ts")],
      "agui-wire/proxy": [join(root, "src/proxy/index.ts")],
      "agui-wire/ag-ui": [join(root, "src/ag-ui/index.ts")],
      "agui-wire/telemetry": [join(root, "src/telemetry/index.ts")],
    },
  };
}

/**
 * A diagnostic's message, short enough to read: a long chain of "type X is not assignable to type
 * Y" keeps its first and last links, which say where it failed and why.
 */
function messageOf(text: string | ts.DiagnosticMessageChain): string {
  const links = ts.flattenDiagnosticMessageText(text, "\n").split("\n").map((link) => link.trim());
  return (links.length > 3 ? [links[0], "…", links.at(-1)] : links).join("\n    ");
}

/**
 * Type-checks `sources` (virtual files in the project's root, so that they are ES modules under
 * its package.json) in one program, and returns each file's diagnostics as readable lines, with
 * the place `where` names for a 0-based line of that file.
 */
function typeCheck(sources: Map<string, string>, where: (file: string, line: number) => string): Map<string, string[]> {
  const options = compilerOptions();
  const host = ts.createCompilerHost(options, true);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (path) => sources.has(path) || fileExists.call(host, path);
  host.readFile = (path) => sources.get(path) ?? readFile.call(host, path);
  host.getSourceFile = (path, language, onError, create) => {
    const text = sources.get(path);
    return text === undefined ? getSourceFile.call(host, path, language, onError, create) : ts.createSourceFile(path, text, language, true);
  };
  const program = ts.createProgram([...sources.keys()], options, host);
  const out = new Map<string, string[]>();
  for (const file of sources.keys()) {
    const source = program.getSourceFile(file);
    if (!source) throw new Error(`${file} is not in the program`);
    const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
    out.set(
      file,
      diagnostics.map((d) => {
        const message = messageOf(d.messageText);
        if (d.file === undefined || d.start === undefined) return `TS${d.code}: ${message}`;
        const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
        return `${where(file, line)}:${character + 1} TS${d.code}: ${message}`;
      }),
    );
  }
  return out;
}

/** The Markdown files whose examples are checked: the README, then the guides in docs/. */
const documents = ["README.md", ...readdirSync(join(root, "docs"))
  .filter((name) => name.endsWith(".md"))
  .sort()
  .map((name) => `docs/${name}`)];
const blocks = documents.flatMap((document) => tsBlocks(readFileSync(join(root, document), "utf8")).map((block) => ({ ...block, document })));
const blockFile = (index: number): string => join(root, `readme-block-${index + 1}.ts`);

// Type-level checks, held by `tsc -p tsconfig.json` (npm run lint): a literal `type` is accepted,
// a misspelt one is not, whether through defineAgent or an annotated constant.
const typed = defineAgent(async function* (input, { signal }) {
  if (signal.aborted) return;
  yield { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId };
  yield { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId };
});
const annotated: AgentFunction = async function* (input) {
  yield { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId };
};
// @ts-expect-error: "RUN_FINISHD" is no event type
const misspelt = defineAgent(async function* (input) {
  yield { type: "RUN_FINISHD", threadId: input.threadId, runId: input.runId };
});
// @ts-expect-error: "RUN_FINISHD" is no event type
const misspeltAnnotated: AgentFunction = async function* (input) {
  yield { type: "RUN_FINISHD", threadId: input.threadId, runId: input.runId };
};

describe("README.md and docs/", () => {
  it("have TypeScript examples to check", () => {
    expect(blocks.filter((block) => block.document === "README.md").length).toBeGreaterThanOrEqual(4);
  });

  it("keep the README short: at most 25 KB, the detail in docs/", () => {
    expect(statSync(README).size).toBeLessThanOrEqual(25 * 1024);
  });

  it("quote the last full benchmark run's figures in the README's performance table", () => {
    const latest = JSON.parse(readFileSync(join(root, "bench/results/latest.json"), "utf8")) as Parameters<typeof renderPerformance>[0];
    expect(currentBlock(readFileSync(README, "utf8")), "run `npx tsx scripts/readme-performance.ts`").toBe(renderPerformance(latest));
  });

  it("link only to files that exist", () => {
    for (const document of documents) {
      const text = readFileSync(join(root, document), "utf8");
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const path = join(root, document, "..", target!);
        expect(() => statSync(path), `${document} links to ${target}, which does not exist`).not.toThrow();
      }
    }
  });

  describe("each ```ts block type-checks under the project's strict settings", () => {
    let results: Map<string, string[]>;
    beforeAll(() => {
      const sources = new Map(blocks.map((block, i) => [blockFile(i), block.code]));
      const placeOf = new Map(blocks.map((block, i) => [blockFile(i), block]));
      results = typeCheck(sources, (file, line) => `${placeOf.get(file)!.document}:${placeOf.get(file)!.line + line}`);
    }, 60_000);

    for (const [i, block] of blocks.entries()) {
      it(`the block at ${block.document} line ${block.line}`, () => {
        expect(results.get(blockFile(i)), `the block at ${block.document} line ${block.line} does not type-check`).toEqual([]);
      });
    }
  });
});

describe("defineAgent", () => {
  it("returns the agent it was given, which runs as written", async () => {
    const input = { threadId: "t", runId: "r", state: {}, messages: [], tools: [], context: [], forwardedProps: {} };
    const events = typed(input, { signal: new AbortController().signal }) as AsyncIterable<{ type: string }>;
    const types: string[] = [];
    for await (const event of events) types.push(event.type);
    expect(types).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
    expect(defineAgent(annotated)).toBe(annotated);
    void misspelt;
    void misspeltAnnotated;
  });

  it("makes a misspelt event type a compile error, and accepts the literal one", () => {
    const agent = (type: string) => `import { defineAgent } from "agui-wire/server";
export const agent = defineAgent(async function* (input) {
  yield { type: "${type}", threadId: input.threadId, runId: input.runId };
});
`;
    const good = join(root, "define-agent-good.ts");
    const bad = join(root, "define-agent-bad.ts");
    const results = typeCheck(
      new Map([
        [good, agent("RUN_FINISHED")],
        [bad, agent("RUN_FINISHD")],
      ]),
      (file, line) => `${file}:${line + 1}`,
    );
    expect(results.get(good)).toEqual([]);
    expect(results.get(bad)).toHaveLength(1);
    expect(results.get(bad)![0]).toMatch(/TS2345/);
  }, 60_000);
});
