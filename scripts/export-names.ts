/**
 * The names each public entry of the package exports, as TypeScript sees them: values (what
 * `import * as m` holds at run time) and types (what only the compiler sees).
 *
 * `npx tsx scripts/export-names.ts` prints them as JSON, in the form of
 * `test/package/exports.json`, which the tests hold the package to: moving a module must not add,
 * drop or retype a public name.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = fileURLToPath(new URL("..", import.meta.url));

/** One entry's public names, each list sorted. */
export interface EntryNames {
  values: string[];
  types: string[];
}

/**
 * The package's entries (`exports` in package.json, but `./package.json`), each mapped to the
 * file that implements it: `src/…/*.ts` for the sources, or the built `dist/…/*.d.ts`.
 */
export function packageEntries(packageRoot = root, from: "src" | "dist" = "src"): Record<string, string> {
  const manifest = JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as {
    exports: Record<string, string | { types?: string }>;
  };
  const entries: Record<string, string> = {};
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    if (typeof target === "string" || !target.types) continue;
    const types = resolve(packageRoot, target.types);
    entries[subpath] = from === "dist" ? types : types.replace(`${join(packageRoot, "dist")}`, join(packageRoot, "src")).replace(/\.d\.ts$/, ".ts");
  }
  return entries;
}

/**
 * The names exported by each given entry file, read by one TypeScript program.
 *
 * @param files entry name → module file (`.ts` or `.d.ts`)
 * @throws Error when a file is not a module TypeScript can read
 */
export function exportNames(files: Record<string, string>): Record<string, EntryNames> {
  const program = ts.createProgram(Object.values(files), {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
    types: ["node"],
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const result: Record<string, EntryNames> = {};
  for (const [entry, file] of Object.entries(files)) {
    const source = program.getSourceFile(file);
    const symbol = source && checker.getSymbolAtLocation(source);
    if (!symbol) throw new Error(`export names: expected a module at ${file}, found none`);
    const values: string[] = [];
    const types: string[] = [];
    for (const exported of checker.getExportsOfModule(symbol)) {
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      // `export type { X }` re-exports a value's name as a type only: no run-time binding.
      const typeOnly = exported.declarations?.some((d) => ts.isTypeOnlyImportOrExportDeclaration(d)) ?? false;
      (target.flags & ts.SymbolFlags.Value && !typeOnly ? values : types).push(exported.getName());
    }
    result[entry] = { values: values.sort(), types: types.sort() };
  }
  return result;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(exportNames(packageEntries()), null, 2));
}
