/**
 * The import graph of this repository's TypeScript modules, and the circles in it.
 *
 * Every edge counts: value imports, `import type`, `export … from` and `import()` alike, because a
 * circle of types still means two modules that cannot be read, moved or tested one without the
 * other. Only relative specifiers are followed; packages are leaves.
 *
 * Run `npx tsx scripts/import-graph.ts` (as `npm run lint` does): it prints each circle in src/ and
 * bench/ and each break of src/'s layering, and exits 1 when there is one. Tests call
 * {@link importGraph}, {@link findCycles} and {@link layerProblems}.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** Module path (absolute) → the modules it imports (absolute), in source order, without repeats. */
export type ImportGraph = Map<string, string[]>;

const SOURCE = /\.(?:m?ts|tsx)$/;

function walk(path: string, out: string[]): void {
  if (statSync(path).isDirectory()) {
    for (const entry of readdirSync(path).sort()) {
      if (entry === "node_modules" || entry.startsWith(".")) continue;
      walk(join(path, entry), out);
    }
  } else if (SOURCE.test(path) && !path.endsWith(".d.ts")) {
    out.push(path);
  }
}

/**
 * Where a relative specifier lands: `./x.js` is written for `./x.ts` under NodeNext resolution,
 * and a folder import means its `index.ts`. Returns undefined for a file that is not TypeScript
 * (a `.mjs` hook, a JSON file), which cannot close a circle among these modules.
 */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  const candidates = [
    base.replace(/\.js$/, ".ts"),
    base.replace(/\.mjs$/, ".mts"),
    base,
    `${base}.ts`,
    join(base, "index.ts"),
  ];
  return candidates.find((path) => SOURCE.test(path) && existsSync(path) && statSync(path).isFile());
}

/**
 * Builds the import graph of every `.ts` module under the given folders or files.
 *
 * @param roots folders or files, absolute or relative to the working directory
 * @throws Error when a root does not exist
 */
export function importGraph(roots: readonly string[]): ImportGraph {
  const files: string[] = [];
  for (const root of roots) {
    const path = resolve(root);
    if (!existsSync(path)) throw new Error(`import graph: expected a file or folder, found nothing at ${root}`);
    walk(path, files);
  }
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = new Set<string>();
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith(".")) continue;
      const target = resolveSpecifier(file, fileName);
      if (target !== undefined && target !== file) targets.add(target);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/**
 * The circles of a graph: each strongly connected component of more than one module (Tarjan's
 * algorithm, iterative so that a deep chain cannot overflow the stack), each given as its modules
 * in a stable order.
 */
export function findCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let next = 0;
  const frames: { node: string; edges: string[]; edge: number }[] = [];
  /** Numbers `node`, puts it on the stack, and starts walking its edges (those inside the graph). */
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    frames.push({ node, edges: (graph.get(node) ?? []).filter((to) => graph.has(to)), edge: 0 });
  };
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    visit(start);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const { edges } = frame;
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++]!;
        if (!index.has(to)) {
          visit(to);
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1) cycles.push(component.sort());
      }
    }
  }
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/**
 * One circle as a reader can follow it: a path `a → b → … → a` through the component, found by a
 * breadth-first walk from its first module back to itself.
 */
export function describeCycle(graph: ImportGraph, component: readonly string[], base = process.cwd()): string {
  const members = new Set(component);
  const start = component[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  let closing: string | undefined;
  while (queue.length > 0 && closing === undefined) {
    const node = queue.shift()!;
    for (const to of graph.get(node) ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        closing = node;
        break;
      }
      if (!previous.has(to)) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  const path = [start];
  for (let node = closing; node !== undefined && node !== start; node = previous.get(node)) path.unshift(node);
  path.unshift(start);
  const shown = path.map((file) => relative(base, file)).join(" → ");
  const others = component.length - (path.length - 1);
  return others > 0 ? `${shown} (and ${others} more module${others === 1 ? "" : "s"} in the same circle)` : shown;
}

/**
 * The folders of src/ whose modules are reached from other folders only through their
 * `index.ts`. The others' `index.ts` is a public entry of the package (or is re-exported whole by
 * one: store/ by server/), so it lists public names only and cannot also carry what a
 * neighbouring layer needs; gen/ is generated and has no entry.
 */
export const SEALED_FOLDERS: readonly string[] = ["agent", "binary", "http", "node-http", "protocol", "sse", "stream", "util", "wire"];

/**
 * The layer a module of src/ belongs to: its top folder, where src/gen/model (generated from the
 * model, and read by it) counts as model and the rest of src/gen as gen; `index.ts` at the root is
 * the package's entry, `(root)`.
 */
export function layerOf(srcRoot: string, file: string): string {
  const parts = relative(srcRoot, file).split(/[\\/]/);
  if (parts.length === 1) return "(root)";
  if (parts[0] === "gen" && parts[1] === "model") return "model";
  return parts[0]!;
}

/**
 * The rules of src/'s shape, each broken rule one line naming the modules: no module but
 * `index.ts` at the root; layers that import one another only downward (the graph of layers has
 * no circle); a sealed folder ({@link SEALED_FOLDERS}) entered from outside only by its
 * `index.ts`.
 */
export function layerProblems(graph: ImportGraph, srcRoot: string, base = process.cwd()): string[] {
  const root = resolve(srcRoot);
  const show = (file: string) => relative(base, file);
  const problems: string[] = [];
  const layers: ImportGraph = new Map();
  const example = new Map<string, string>();
  for (const [file, targets] of graph) {
    if (!file.startsWith(root + "/")) continue;
    const from = layerOf(root, file);
    if (from === "(root)" && !file.endsWith("/index.ts")) problems.push(`${show(file)}: a loose module at the root of src/; put it in the folder of its layer`);
    const edges = layers.get(from) ?? [];
    layers.set(from, edges);
    for (const target of targets) {
      if (!target.startsWith(root + "/")) continue;
      const to = layerOf(root, target);
      if (to === from) continue;
      if (!edges.includes(to)) edges.push(to);
      if (!example.has(`${from}>${to}`)) example.set(`${from}>${to}`, `${show(file)} → ${show(target)}`);
      if (SEALED_FOLDERS.includes(to) && target !== join(root, to, "index.ts")) {
        problems.push(`${show(file)} → ${show(target)}: ${to}/ is entered through ${to}/index.ts`);
      }
    }
  }
  for (const cycle of findCycles(layers)) {
    const steps = cycle.flatMap((from) => cycle.filter((to) => example.has(`${from}>${to}`)).map((to) => example.get(`${from}>${to}`)!));
    problems.push(`layers that import each other: ${cycle.join(", ")} (${steps.join("; ")})`);
  }
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // The project's own check (npm run lint): circles among the modules of src/ and bench/, and
  // the shape of src/.
  const root = fileURLToPath(new URL("..", import.meta.url));
  const graph = importGraph([join(root, "src"), join(root, "bench")]);
  const cycles = findCycles(graph);
  const problems = [...cycles.map((cycle) => `import circle: ${describeCycle(graph, cycle)}`), ...layerProblems(graph, join(root, "src"))];
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) {
    console.error(`import graph: ${problems.length} problem${problems.length === 1 ? "" : "s"} among ${graph.size} modules`);
    process.exit(1);
  }
  console.log(`import graph: no circle among ${graph.size} modules, and src/'s layers import downward only`);
}
