/**
 * The README's performance table, made from the last full benchmark run
 * (bench/results/latest.json), so that every figure the README quotes is one the benchmarks
 * measured. `npm run bench` rewrites the block after a full run; test/readme.test.ts fails when
 * the block and latest.json disagree.
 *
 * Run as a script (`tsx scripts/readme-performance.ts`) to rewrite the block by hand.
 *
 * @module
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");

/** The markers around the generated block in README.md. */
export const START = "<!-- performance: generated from bench/results/latest.json by scripts/readme-performance.ts -->";
export const END = "<!-- /performance -->";

/** What the table needs of one goal of latest.json (see bench/goals.ts). */
interface Goal {
  path: string;
  comparedWith: string;
  goal: string;
  shown: string;
  status: string;
}

/** What the table needs of latest.json. */
interface Latest {
  date: string;
  machine: { cpu: string; cores: number; node: string };
  goals: Goal[];
}

/** A cell's text with the characters that would break a Markdown table row escaped. */
function cell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}

/**
 * The block (markers included) for `latest`.
 *
 * @throws {TypeError} When `latest` lacks the fields above.
 */
export function renderPerformance(latest: Latest): string {
  if (!Array.isArray(latest?.goals) || typeof latest.date !== "string") throw new TypeError("latest.json: expected { date, machine, goals[] }");
  const rows = latest.goals.map((g) => `| ${cell(g.path)} | ${cell(g.comparedWith)} | ${cell(g.goal)} | ${cell(g.shown)} | ${cell(g.status)} |`);
  const { cpu, cores, node } = latest.machine;
  return [
    START,
    `Last full run: ${latest.date.slice(0, 10)}, ${cpu}, ${cores} cores, Node ${node.replace(/^v/, "")}.`,
    "",
    "| path | compared with | goal | measured | status |",
    "|---|---|---|---|---|",
    ...rows,
    END,
  ].join("\n");
}

/** The generated block as README.md has it now, or undefined when it has none. */
export function currentBlock(readme: string): string | undefined {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END, start);
  return start < 0 || end < 0 ? undefined : readme.slice(start, end + END.length);
}

/**
 * Rewrites README.md's block from bench/results/latest.json.
 *
 * @throws {Error} When README.md has no block to replace.
 */
export function writePerformance(): void {
  const readmePath = join(root, "README.md");
  const readme = readFileSync(readmePath, "utf8");
  const old = currentBlock(readme);
  if (old === undefined) throw new Error(`README.md has no block between ${START} and ${END}`);
  const latest = JSON.parse(readFileSync(join(root, "bench/results/latest.json"), "utf8")) as Latest;
  writeFileSync(readmePath, readme.replace(old, renderPerformance(latest)));
}

if (process.argv[1] === import.meta.filename) writePerformance();
