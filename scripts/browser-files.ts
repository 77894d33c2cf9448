/**
 * An esbuild plugin that gives a bundle of this repository's sources what a browser bundle of the
 * installed package gets: package.json's `browser` field maps `./dist/x.js` to
 * `./dist/x.browser.js`, and bundlers (esbuild, webpack, Vite, Rollup's node-resolve) follow it
 * for the built files. Bundles of `src/` (the bundle-size measurement, the Chromium test pages,
 * the demo page) follow the same map here, for `src/x.ts` and `src/x.browser.ts`.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Plugin } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));

/** `src/x.ts` → `src/x.browser.ts`, for every pair of dist files the `browser` field maps. */
function sourceMap(): Map<string, string> {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { browser?: Record<string, string> };
  const toSource = (dist: string) => resolve(root, dist.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts"));
  return new Map(Object.entries(manifest.browser ?? {}).map(([from, to]) => [toSource(from), toSource(to)]));
}

/** The plugin: resolves an import of a mapped source file to its browser counterpart. */
export function browserFiles(): Plugin {
  const map = sourceMap();
  return {
    name: "agui-wire-browser-files",
    setup(build) {
      build.onResolve({ filter: /\.js$/ }, (args) => {
        if (!args.path.startsWith(".")) return undefined;
        const source = resolve(args.resolveDir, args.path).replace(/\.js$/, ".ts");
        const target = map.get(source);
        return target === undefined ? undefined : { path: target };
      });
    },
  };
}
