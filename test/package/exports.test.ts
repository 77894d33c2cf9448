// The package's public names, held to the list in exports.json: moving a module must not add, drop
// or retype one. After a deliberate change to the API, write the list anew with
// `npx tsx scripts/export-names.ts > test/package/exports.json` and review its diff.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exportNames, packageEntries, type EntryNames } from "../../scripts/export-names.js";

const expected = JSON.parse(readFileSync(join(import.meta.dirname, "exports.json"), "utf8")) as Record<string, EntryNames>;

describe("the public entries", () => {
  const entries = packageEntries();

  it("are the ones the list names", () => {
    expect(Object.keys(entries).sort()).toEqual(Object.keys(expected).sort());
  });

  // A type check of every entry: CPU work that takes most of 20 s on a busy two-core machine, so
  // its bound is that of the other whole-program checks (test/readme.test.ts, ag-ui-names).
  it("export, to the type checker, exactly the listed values and types", () => {
    expect(exportNames(entries)).toEqual(expected);
  }, 300_000);

  it("export at run time exactly the listed values", async () => {
    for (const [entry, file] of Object.entries(entries)) {
      const module = (await import(file)) as Record<string, unknown>;
      expect({ entry, values: Object.keys(module).sort() }).toEqual({ entry, values: expected[entry]!.values });
    }
  });
});
