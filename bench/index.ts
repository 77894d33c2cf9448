/**
 * The benchmark runner: `npm run bench [-- [--quick] [name ...]]`.
 *
 * Runs every suite in bench/suites/ (or those whose name contains one of the given names), prints
 * one table per result with ratios to the reference, then the DESIGN.md goals, and writes
 * bench/results/latest.json (everything measured) and bench/results/latest.svg (a bar chart).
 * `--quick` runs each task briefly on smaller inputs: it checks that the suites work (CI), its
 * numbers are rough. A quick or filtered run writes bench/results/partial.json and partial.svg
 * instead (not kept in git), so that it never replaces the last full run's figures.
 *
 * Each suite runs in a Node process of its own (this script again, told which suite to run), so
 * that no suite measures in a heap that an earlier one filled: in one process, a suite run after
 * others measured up to twice as slow as alone, on its GC-bound tasks.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { renderChart } from "./chart.js";
import { writePerformance } from "../scripts/readme-performance.js";
import { formatTable } from "./format.js";
import { evaluateGoals } from "./goals.js";
import { describeEnvironment, machineInfo, packageVersions } from "./machine.js";
import { silencePeerWarnings } from "./peers.js";
import type { Suite, SuiteContext, SuiteResult } from "./suite.js";

/** Suites in this order first, then any other in name order. */
const ORDER = ["codec", "stream", "reduce", "http", "size", "bundle"];

const args = process.argv.slice(2);
if (args.includes("--help") || args.includes("-h")) {
  console.log("usage: npm run bench -- [--quick] [suite-name-filter ...]");
  process.exit(0);
}
const quick = args.includes("--quick");
const filters = args.filter((a) => !a.startsWith("--"));

async function loadSuites(): Promise<Suite[]> {
  const dir = new URL("./suites/", import.meta.url);
  const files = readdirSync(dir).filter((f) => /\.(ts|js|mjs)$/.test(f) && !f.endsWith(".d.ts"));
  const suites = await Promise.all(files.map(async (f) => ((await import(new URL(f, dir).href)) as { default: Suite }).default));
  const rank = (s: Suite) => (ORDER.includes(s.name) ? ORDER.indexOf(s.name) : ORDER.length);
  return suites.sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
}

/** Set in a suite's own process: the suite to run, and the file its result goes to. */
const CHILD_SUITE = process.env.AGUI_BENCH_SUITE;
const CHILD_OUT = process.env.AGUI_BENCH_OUT;

/** JSON that keeps NaN and the infinities (the suites use NaN for "not measured"). */
const encodeResult = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) => (typeof v === "number" && !Number.isFinite(v) ? { $number: String(v) } : v));
const decodeResult = <T>(text: string): T =>
  JSON.parse(text, (_key, v: unknown) => (v !== null && typeof v === "object" && "$number" in v && Object.keys(v).length === 1 ? Number((v as { $number: string }).$number) : v)) as T;

/**
 * Runs `suite` in a Node process of its own (this script, with the same loader flags) and returns
 * its result. Its progress lines and anything it prints pass through.
 *
 * @throws {Error} (rejects) When the process fails or leaves no result; the message holds its exit.
 */
async function runInChild(suite: Suite): Promise<SuiteResult> {
  const dir = mkdtempSync(join(tmpdir(), "agui-bench-"));
  const out = join(dir, "result.json");
  try {
    const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), ...args], {
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, AGUI_BENCH_SUITE: suite.name, AGUI_BENCH_OUT: out },
    });
    const exit = await new Promise<string | undefined>((resolve) => {
      child.once("error", (error) => resolve(`could not start: ${error.message}`));
      child.once("exit", (code, signal) => resolve(code === 0 ? undefined : signal ? `killed by ${signal}` : `exited with code ${code}`));
    });
    let text: string;
    try {
      text = readFileSync(out, "utf8");
    } catch {
      throw new Error(`the suite's process ${exit ?? "exited"} without a result`);
    }
    const reply = decodeResult<{ result?: SuiteResult; error?: string }>(text);
    if (reply.error !== undefined) throw new Error(reply.error);
    return reply.result!;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (CHILD_SUITE !== undefined && CHILD_OUT !== undefined) {
  // In a suite's own process: run it, hand the result over, and stop here.
  silencePeerWarnings();
  const suite = (await loadSuites()).find((s) => s.name === CHILD_SUITE);
  let reply: { result?: SuiteResult; error?: string };
  try {
    if (suite === undefined) throw new Error(`no suite named ${CHILD_SUITE}`);
    reply = { result: await suite.run(childContext()) };
  } catch (err) {
    reply = { error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
  writeFileSync(CHILD_OUT, encodeResult(reply));
  // A suite may leave a handle open (a pool, a timer); its process is done all the same.
  process.exit(0);
}

/** The context of a suite in its own process: progress to stderr, as the parent would print it. */
function childContext(): SuiteContext {
  const t0 = Number(process.env.AGUI_BENCH_STARTED ?? Date.now());
  const tty = process.stderr.isTTY;
  return {
    quick,
    progress(message) {
      const at = `${((Date.now() - t0) / 1000).toFixed(0)}s`;
      if (tty) process.stderr.write(`\r\x1b[K${at} ${message.slice(0, (process.stderr.columns ?? 120) - 8)}`);
      else process.stderr.write(`${at} ${message}\n`);
    },
  };
}

const started = Date.now();
process.env.AGUI_BENCH_STARTED = String(started);
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)}s`;
const tty = process.stderr.isTTY;
const ctx: SuiteContext = {
  quick,
  progress(message) {
    if (tty) process.stderr.write(`\r\x1b[K${elapsed()} ${message.slice(0, (process.stderr.columns ?? 120) - 8)}`);
    else process.stderr.write(`${elapsed()} ${message}\n`);
  },
};
const clearProgress = () => tty && process.stderr.write("\r\x1b[K");

silencePeerWarnings();
const machine = machineInfo();
const packages = packageVersions();
const date = new Date().toISOString();
const all = await loadSuites();
// A word that names a suite picks that suite alone ("stream" is not also "streams"); another word
// picks every suite whose name contains it.
const named = (f: string) => all.some((s) => s.name === f);
const suites = all.filter((s) => filters.length === 0 || filters.some((f) => (named(f) ? s.name === f : s.name.includes(f))));
if (suites.length === 0) {
  console.error(`no suite matches ${filters.join(", ")}; suites: ${all.map((s) => s.name).join(", ")}`);
  process.exit(1);
}

console.log(`agui-wire benchmarks, ${date}${quick ? ", QUICK mode (short runs, small inputs: rough numbers)" : ""}`);
console.log(describeEnvironment(machine, packages));
console.log(`suites: ${suites.map((s) => s.name).join(", ")}\n`);

const results: { name: string; description: string; seconds: number; result?: SuiteResult; error?: string }[] = [];
for (const suite of suites) {
  const t0 = Date.now();
  ctx.progress(`[${suite.name}] starting`);
  try {
    const result = await runInChild(suite);
    clearProgress();
    const seconds = (Date.now() - t0) / 1000;
    results.push({ name: suite.name, description: suite.description, seconds, result });
    console.log(`=== ${suite.name}: ${suite.description} (${seconds.toFixed(1)} s)\n`);
    for (const table of result.tables) console.log(`${formatTable(table)}\n`);
    for (const note of result.notes) console.log(`  note: ${note}`);
    if (result.notes.length) console.log("");
  } catch (err) {
    clearProgress();
    const error = err instanceof Error ? (err.stack ?? err.message) : String(err);
    results.push({ name: suite.name, description: suite.description, seconds: (Date.now() - t0) / 1000, error });
    console.log(`=== ${suite.name}: FAILED\n${error}\n`);
    process.exitCode = 1;
  }
}

const values = Object.assign({}, ...results.map((r) => r.result?.values ?? {})) as Record<string, number>;
const goals = evaluateGoals(values, new Set(results.filter((r) => r.result).map((r) => r.name)));
console.log(
  formatTable({
    title: "Goals (performance)",
    columns: [{ header: "path" }, { header: "compared with" }, { header: "goal" }, { header: "measured", align: "right" }, { header: "status" }],
    rows: goals.map((g) => [g.path, g.comparedWith, g.goal, g.shown, g.status]),
  }),
);
console.log(`\n  How each is computed: bench/goals.ts (also in latest.json).`);

const out = new URL("./results/", import.meta.url);
mkdirSync(out, { recursive: true });
const report = { date, quick, filters, machine, packages, goals, values, suites: results };
const stem = quick || filters.length > 0 ? "partial" : "latest";
writeFileSync(new URL(`${stem}.json`, out), `${JSON.stringify(report, null, 2)}\n`);
const panels = results.flatMap((r) => r.result?.charts ?? []);
if (panels.length) {
  const subtitle = `${date.slice(0, 10)} · ${machine.cpu}, ${machine.cores} cores · Node ${machine.node}${quick ? " · QUICK mode (rough numbers)" : ""}`;
  writeFileSync(new URL(`${stem}.svg`, out), renderChart("agui-wire against its peers: events per second", subtitle, panels));
}
// A full run is what the README quotes: its performance table is remade from latest.json.
if (stem === "latest") writePerformance();
console.log(`  Wrote bench/results/${stem}.json${panels.length ? ` and bench/results/${stem}.svg` : ""}${stem === "latest" ? ", and README.md's performance table" : ""} (${elapsed()} in all).`);
