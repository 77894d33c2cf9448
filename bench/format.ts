/**
 * Plain-text tables and number formats for the console report.
 */
import type { Measurement } from "./measurement.js";

export interface Column {
  header: string;
  /** Numbers read best right-aligned. */
  align?: "left" | "right";
}

export interface Table {
  title: string;
  columns: Column[];
  rows: string[][];
}

/** A table as aligned text, with a title line and a rule under the header. */
export function formatTable(table: Table): string {
  const widths = table.columns.map((c, i) => Math.max(c.header.length, ...table.rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (table.columns[i]?.align === "right" ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [table.title, line(table.columns.map((c) => c.header)), widths.map((w) => "-".repeat(w)).join("  "), ...table.rows.map(line)].join("\n");
}

/** 1234567 -> "1.23 M", 4321 -> "4.32 k". */
export function rate(n: number): string {
  if (!Number.isFinite(n) || n === 0) return "-";
  if (n >= 1e9) return `${(n / 1e9).toPrecision(3)} G`;
  if (n >= 1e6) return `${(n / 1e6).toPrecision(3)} M`;
  if (n >= 1e3) return `${(n / 1e3).toPrecision(3)} k`;
  return n.toPrecision(3);
}

/** A throughput in MB/s (10^6 bytes). */
export function mbps(n: number): string {
  return !Number.isFinite(n) || n === 0 ? "-" : n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2);
}

/** A ratio: "12.3x", "0.85x". */
export function ratio(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n)) return "-";
  return n >= 100 ? `${n.toFixed(0)}x` : n >= 10 ? `${n.toFixed(1)}x` : `${n.toFixed(2)}x`;
}

/** A byte count: "3.93 MB", "812 B". */
export function bytes(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)} MB`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)} kB`;
  return `${n} B`;
}

/** Measurements of one group as a table: rate, MB/s, error margin, ratios. */
export function measurementTable(title: string, rows: Measurement[], refLabel: string, withSse: boolean): Table {
  const columns: Column[] = [
    { header: "task" },
    { header: "validates" },
    { header: "events/s", align: "right" },
    { header: "MB/s", align: "right" },
    { header: "±%", align: "right" },
    { header: `x ${refLabel}`, align: "right" },
  ];
  if (withSse) columns.push({ header: "x our SSE", align: "right" });
  return {
    title,
    columns,
    rows: rows.map((m) => {
      const cells = m.error
        ? [m.label, m.validates ? "yes" : "no", `failed: ${m.error}`, "", "", ""]
        : [m.label, m.validates ? "yes" : "no", rate(m.eventsPerSec), mbps(m.mbPerSec), m.rme.toFixed(1), ratio(m.vsReference)];
      if (withSse) cells.push(ratio(m.vsSse));
      return cells;
    }),
  };
}
