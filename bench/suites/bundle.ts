/**
 * Browser bundle size of the client, ours against @ag-ui/client, as measured by
 * scripts/bundle-size (esbuild, browser, ESM, minified, gzip -9). The script is optional: without
 * it the suite reports nothing and the goal shows "not measured".
 */
import { existsSync } from "node:fs";
import { bytes, ratio } from "../format.js";
import type { Suite } from "../suite.js";

interface Size {
  min: number;
  gzip: number;
  packages?: Record<string, number>;
}
interface BundleSizes {
  ours: Size;
  theirs: Size;
}

const SCRIPTS = ["../../scripts/bundle-size.ts", "../../scripts/bundle-size.mjs"];

const suite: Suite = {
  name: "bundle",
  description: "min+gzip browser bundle of the client (HttpAgent + both decoders), via scripts/bundle-size",
  async run(ctx) {
    const empty = { tables: [], values: {}, measurements: [], charts: [] };
    const script = SCRIPTS.map((p) => new URL(p, import.meta.url)).find((u) => existsSync(u));
    if (!script) return { ...empty, notes: ["scripts/bundle-size.{ts,mjs} not found: bundle size not measured."] };
    ctx.progress("[bundle] bundling with esbuild");
    let sizes: BundleSizes;
    try {
      const mod = (await import(script.href)) as { measureBundleSizes?: () => Promise<BundleSizes> };
      if (typeof mod.measureBundleSizes !== "function") throw new Error("it exports no measureBundleSizes()");
      sizes = await mod.measureBundleSizes();
    } catch (err) {
      return { ...empty, notes: [`bundle size not measured: ${String((err as Error)?.message ?? err)}`] };
    }
    const rows: [string, Size][] = [["agui-wire/client HttpAgent", sizes.ours]];
    rows.push(["@ag-ui/client HttpAgent", sizes.theirs]);
    return {
      ...empty,
      tables: [
        {
          title: "Browser bundle of the client (esbuild, ESM, minified; gzip -9)",
          columns: [{ header: "bundle" }, { header: "min", align: "right" }, { header: "min+gzip", align: "right" }, { header: "x @ag-ui/client", align: "right" }],
          rows: rows.map(([name, s]) => [name, bytes(s.min), bytes(s.gzip), ratio(s.gzip / sizes.theirs.gzip)]),
        },
      ],
      values: { "bundle/ours/gzip": sizes.ours.gzip, "bundle/theirs/gzip": sizes.theirs.gzip },
      notes: [`packages bundled into ours: ${Object.keys(sizes.ours.packages ?? {}).join(", ") || "none (the browser build judges events without zod)"}`],
    };
  },
};

export default suite;
