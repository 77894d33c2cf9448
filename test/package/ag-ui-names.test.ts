// "Change the import": every name `@ag-ui/client` 1.0 exports (with `@ag-ui/core`'s, which it
// re-exports), imported from `agui-wire/client` (src/client/index.ts) by a program the TypeScript
// API compiles in memory, used as theirs can be (a value as a value, a type as a type with its type
// arguments). The names that fail must be those docs/ag-ui-differences.md lists as not provided.
// The same program checks that values of their common types are assignable to ours where 1.0 code
// hands them to us.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const options: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
  types: ["node"],
  strict: true,
  skipLibCheck: true,
  noEmit: true,
};

/** A program of one in-memory file `name` holding `text`, the rest read from disk. */
function programOf(name: string, text: string): ts.Program {
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (file, version, ...rest) => (file === name ? ts.createSourceFile(file, text, version) : getSourceFile(file, version, ...rest));
  host.fileExists = (file) => file === name || fileExists(file);
  host.readFile = (file) => (file === name ? text : readFile(file));
  return ts.createProgram([name], options, host);
}

/** How a 1.0 name can be used: as a value, as a type (with this many type parameters). */
interface Use {
  name: string;
  value: boolean;
  typeParameters: number | undefined;
}

/** The names `@ag-ui/client` exports, read from its declarations. */
function theirNames(): Use[] {
  const file = join(root, "test", "package", "__their-names.ts");
  const program = programOf(file, 'export * as theirs from "@ag-ui/client";');
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file)!;
  const declaration = source.statements[0] as ts.ExportDeclaration;
  const module = checker.getSymbolAtLocation(declaration.moduleSpecifier!)!;
  return checker.getExportsOfModule(module).map((symbol) => {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    const isType = (target.flags & ts.SymbolFlags.Type) !== 0;
    const parameters = target.declarations?.map((d) => (d as { typeParameters?: ts.NodeArray<ts.TypeParameterDeclaration> }).typeParameters?.length ?? 0);
    return { name: symbol.name, value: (target.flags & ts.SymbolFlags.Value) !== 0, typeParameters: isType ? Math.max(0, ...(parameters ?? [0])) : undefined };
  });
}

/** Where 1.0 code hands us a value of their type: theirs, ours. */
const ASSIGNABLE: [string, string][] = [
  ["RunAgentInput", "RunAgentInput"],
  ["Message", "Message"],
  ["UserMessage", "UserMessage"],
  ["AssistantMessage", "AssistantMessage"],
  ["ToolMessage", "ToolMessage"],
  ["ContentPart", "ContentPart"],
  ["Tool", "Tool"],
  ["Context", "Context"],
  ["ToolCall", "ToolCall"],
  ["Interrupt", "Interrupt"],
  ["ResumeEntry", "ResumeEntry"],
  ["TokenUsage", "TokenUsage"],
  ["State", "State"],
  ["BaseEvent", "BaseEvent"],
  ["Event", "AguiEventInput"],
  ["Event", "Event"],
  ["TextMessageStartEvent", "TextMessageStartEvent"],
  ["RunFinishedEvent", "RunFinishedEvent"],
  ["StateDeltaEvent", "StateDeltaEvent"],
  ["MessagesSnapshotEvent", "MessagesSnapshotEvent"],
  ["Metadata", "Metadata"],
  ["AgentCapabilities", "AgentCapabilities"],
  ["TextMessageStartEventProps", "TextMessageStartEventProps"],
];

/** The names docs/ag-ui-differences.md lists under "Names not provided". */
function documentedMissing(): string[] {
  const text = readFileSync(join(root, "docs", "ag-ui-differences.md"), "utf8");
  const section = text.split(/^## /m).find((part) => part.startsWith("Names not provided"));
  if (!section) throw new Error('docs/ag-ui-differences.md has no "## Names not provided" section');
  return [...section.matchAll(/^\| `(\w+)` \|/gm)].map((match) => match[1]!).sort();
}

let names: Use[];
let failing: Map<string, string[]>;
let assignability: Map<string, string[]>;
let stray: string[];

beforeAll(() => {
  names = theirNames();
  // One line per name and per pair, so that a diagnostic's line says what failed.
  const lines = ['import type * as Theirs from "@ag-ui/client";', 'import type * as Ours from "../../src/client/index.js";'];
  const lineOf = new Map<number, { kind: "name" | "pair"; key: string }>();
  names.forEach(({ name, value, typeParameters }, i) => {
    const uses = [`import { ${name} as n${i} } from "../../src/client/index.js";`];
    if (value) uses.push(`void n${i};`);
    if (typeParameters !== undefined) uses.push(`export type t${i} = n${i}${typeParameters ? `<${Array(typeParameters).fill("any").join(", ")}>` : ""};`);
    lineOf.set(lines.length, { kind: "name", key: name });
    lines.push(uses.join(" "));
  });
  for (const [theirs, ours] of ASSIGNABLE) {
    lineOf.set(lines.length, { kind: "pair", key: `${theirs} -> ${ours}` });
    lines.push(`export const a${lines.length} = (value: Theirs.${theirs}): Ours.${ours} => value;`);
  }
  const file = join(root, "test", "package", "__ag-ui-names.ts");
  const program = programOf(file, lines.join("\n"));
  failing = new Map();
  assignability = new Map();
  stray = [];
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
    const at = diagnostic.file?.fileName === file ? lineOf.get(diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start!).line) : undefined;
    if (!at) stray.push(`${diagnostic.file?.fileName ?? ""}: ${message}`);
    else {
      const into = at.kind === "name" ? failing : assignability;
      into.set(at.key, [...(into.get(at.key) ?? []), message]);
    }
  }
}, 300_000);

describe("@ag-ui/client 1.0's names in agui-wire/client", () => {
  it("reads the 207 names @ag-ui/client 1.0 exports", () => {
    expect(names.length).toBe(207);
  });

  it("compiles without errors but those of the names", () => {
    expect(stray).toEqual([]);
  });

  it("fails exactly on the names docs/ag-ui-differences.md lists as not provided", () => {
    expect([...failing.keys()].sort()).toEqual(documentedMissing());
  });

  it("takes values of their common types where 1.0 code passes them", () => {
    expect(Object.fromEntries(assignability)).toEqual({});
  });
});
