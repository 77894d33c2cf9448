/**
 * Measures what type-checking a consumer of `agui-wire/client` costs against the same program
 * written for `@ag-ui/client`: one small program (an `HttpAgent`, a run with two subscriber
 * callbacks, an event narrowed by type, the new messages), compiled by the consumer's own tsc with
 * `--extendedDiagnostics`, with `skipLibCheck` false (every declaration file checked, as a strict
 * project has it) and true (the common setting). Types and instantiations are deterministic for a
 * given TypeScript; memory nearly so; check time depends on the machine and its load.
 *
 * `npx tsx scripts/type-cost.ts` packs the package (`npm pack`, which builds it), installs it with
 * `@ag-ui/client` 1.0.0 into a temporary folder, and prints the four measurements;
 * test/package/packed.test.ts calls {@link typeCost} in its own consumer.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

/** What tsc reported for one program. */
export interface TypeCost {
  files: number;
  types: number;
  instantiations: number;
  /** Kilobytes, as tsc's "Memory used". */
  memoryKB: number;
  checkSeconds: number;
}

/** The program measured, for an import specifier: the same text for both packages. */
export function consumerProgram(specifier: "agui-wire/client" | "@ag-ui/client"): string {
  return `import { HttpAgent, EventType, type Message } from "${specifier}";
const agent = new HttpAgent({ url: "http://localhost/agent", headers: { authorization: "Bearer t" } });
const { newMessages } = await agent.runAgent({ runId: "r1" }, {
  onTextMessageContentEvent: ({ event }) => { console.log(event.delta); },
  onEvent: ({ event }) => { if (event.type === EventType.RUN_ERROR) console.log("error"); },
});
const messages: Message[] = newMessages;
console.log(messages.length, agent.messages.length);
`;
}

/**
 * Type-checks {@link consumerProgram} for `specifier` in `consumer` (a folder whose node_modules
 * hold the package and TypeScript) and returns tsc's measurements. ES2022 and DOM libs, no
 * `@types`, NodeNext resolution, strict.
 *
 * @param tsc the TypeScript compiler's `bin/tsc` to run
 * @throws Error when the program does not type-check (its diagnostics in the message)
 */
export function typeCost(consumer: string, specifier: "agui-wire/client" | "@ag-ui/client", skipLibCheck: boolean, tsc: string): TypeCost {
  const name = `type-cost-${specifier === "agui-wire/client" ? "ours" : "theirs"}-${skipLibCheck ? "skip" : "check"}`;
  writeFileSync(join(consumer, `${name}.ts`), consumerProgram(specifier));
  const compilerOptions = { target: "ES2022", lib: ["ES2022", "DOM", "DOM.Iterable"], module: "nodenext", moduleResolution: "nodenext", strict: true, noEmit: true, skipLibCheck, types: [] };
  writeFileSync(join(consumer, `${name}.json`), JSON.stringify({ compilerOptions, files: [`${name}.ts`] }));
  let out: string;
  try {
    out = execFileSync(process.execPath, [tsc, "-p", `${name}.json`, "--extendedDiagnostics"], { cwd: consumer, encoding: "utf8" });
  } catch (error) {
    throw new Error(`${name} does not type-check: ${(error as { stdout?: string }).stdout ?? String(error)}`);
  }
  const read = (label: string) => {
    const match = new RegExp(`^${label}:\\s+([\\d.]+)`, "m").exec(out);
    if (!match) throw new Error(`tsc printed no "${label}" for ${name}`);
    return Number(match[1]);
  };
  return { files: read("Files"), types: read("Types"), instantiations: read("Instantiations"), memoryKB: read("Memory used"), checkSeconds: read("Check time") };
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const work = mkdtempSync(join(tmpdir(), "agui-wire-type-cost-"));
  try {
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    execFileSync(npm, ["pack", "--silent", "--pack-destination", work], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
    const tarball = readdirSync(work).find((f) => f.endsWith(".tgz"))!;
    writeFileSync(join(work, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    execFileSync(npm, ["install", "--no-audit", "--no-fund", "--prefer-offline", join(work, tarball), "@ag-ui/client@1.0.0"], { cwd: work, stdio: "ignore" });
    const tsc = join(root, "node_modules/typescript/bin/tsc");
    const rows = [];
    for (const skipLibCheck of [false, true]) {
      for (const specifier of ["agui-wire/client", "@ag-ui/client"] as const) {
        const cost = typeCost(work, specifier, skipLibCheck, tsc);
        rows.push({ package: specifier, skipLibCheck, ...cost, memoryMB: Math.round(cost.memoryKB / 1024) });
      }
    }
    console.table(rows.map(({ memoryKB: _, ...row }) => row));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
