/**
 * A hand-written SVG bar chart: one panel per path (encode, decode, stream decode, ...), one
 * horizontal bar per implementation, on one shared logarithmic events/s axis so that panels
 * compare at a glance. Each bar is labelled with its rate and its ratio to the panel's reference.
 */
import { rate, ratio } from "./format.js";
import type { Impl } from "./measurement.js";

export interface ChartBar {
  label: string;
  /** Events per second. */
  value: number;
  impl: Impl;
  /** The bar the others in the panel are compared with. */
  reference?: boolean;
}

export interface ChartPanel {
  title: string;
  bars: ChartBar[];
}

const COLORS: Record<Impl, string> = { ours: "#1f6feb", "ours-sse": "#8bb8f8", peer: "#9a9a9a" };
const REFERENCE_COLOR = "#d1741f";

const WIDTH = 1080;
const LEFT = 370; // bar labels end here
const PLOT = 540; // width of the log axis
const BAR = 16;
const GAP = 5;
const PANEL_HEAD = 28;
const PANEL_GAP = 14;

/** Decade tick labels: 1k, 10k, 100k, 1M, ... */
function tick(decade: number): string {
  const units = ["", "k", "M", "G"];
  const unit = Math.min(Math.floor(decade / 3), units.length - 1);
  return `${10 ** (decade - unit * 3)}${units[unit]}`;
}

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** Renders the panels into one SVG document. */
export function renderChart(title: string, subtitle: string, panels: ChartPanel[]): string {
  const values = panels.flatMap((p) => p.bars.map((b) => b.value)).filter((v) => v > 0 && Number.isFinite(v));
  const lo = Math.floor(Math.log10(Math.min(...values, 1e3)));
  const hi = Math.ceil(Math.log10(Math.max(...values, 1e4)));
  const x = (v: number) => LEFT + ((Math.log10(Math.max(v, 10 ** lo)) - lo) / (hi - lo)) * PLOT;

  const top = 96;
  const out: string[] = [];
  let y = top;
  for (const panel of panels) {
    const ref = panel.bars.find((b) => b.reference)?.value;
    out.push(`<text x="16" y="${y + 18}" class="panel">${esc(panel.title)}</text>`);
    y += PANEL_HEAD;
    for (const bar of panel.bars) {
      const w = bar.value > 0 ? Math.max(1, x(bar.value) - LEFT) : 0;
      const fill = bar.reference ? REFERENCE_COLOR : COLORS[bar.impl];
      const text = bar.value > 0 ? `${rate(bar.value)}/s${ref && !bar.reference ? ` · ${ratio(bar.value / ref)}` : ""}` : "failed";
      out.push(
        `<text x="${LEFT - 8}" y="${y + BAR - 4}" text-anchor="end" class="label">${esc(bar.label)}</text>`,
        `<rect x="${LEFT}" y="${y}" width="${w.toFixed(1)}" height="${BAR}" fill="${fill}"><title>${esc(`${bar.label}: ${text}`)}</title></rect>`,
        `<text x="${(LEFT + w + 6).toFixed(1)}" y="${y + BAR - 4}" class="value">${esc(text)}</text>`,
      );
      y += BAR + GAP;
    }
    y += PANEL_GAP;
  }
  const bottom = y;

  // Decade grid lines through every panel, labelled above and below.
  const grid: string[] = [];
  for (let d = lo; d <= hi; d++) {
    const gx = x(10 ** d).toFixed(1);
    grid.push(
      `<line x1="${gx}" y1="${top - 6}" x2="${gx}" y2="${bottom}" class="grid"/>`,
      `<text x="${gx}" y="${top - 10}" text-anchor="middle" class="tick">${tick(d)}</text>`,
      `<text x="${gx}" y="${bottom + 16}" text-anchor="middle" class="tick">${tick(d)}</text>`,
    );
  }

  const legend = [
    ["agui-wire, binary", COLORS.ours],
    ["agui-wire, SSE", COLORS["ours-sse"]],
    ["reference (@ag-ui)", REFERENCE_COLOR],
    ["other peers", COLORS.peer],
  ]
    .map(([name, color], i) => `<rect x="${16 + i * 190}" y="50" width="14" height="14" fill="${color}"/><text x="${36 + i * 190}" y="62" class="label">${esc(name!)}</text>`)
    .join("");

  const height = bottom + 52;
  return `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif">
<style>
.title { font-size: 18px; font-weight: 600; fill: #111; }
.subtitle { font-size: 12px; fill: #555; }
.panel { font-size: 14px; font-weight: 600; fill: #222; }
.label { font-size: 12px; fill: #222; }
.value { font-size: 11px; fill: #333; }
.tick { font-size: 11px; fill: #666; }
.axis { font-size: 12px; fill: #444; }
.grid { stroke: #ddd; stroke-width: 1; }
</style>
<rect width="100%" height="100%" fill="#fff"/>
<text x="16" y="24" class="title">${esc(title)}</text>
<text x="16" y="42" class="subtitle">${esc(subtitle)}</text>
${legend}
${grid.join("\n")}
${out.join("\n")}
<text x="${LEFT + PLOT / 2}" y="${bottom + 38}" text-anchor="middle" class="axis">events per second (log scale; higher is better; ratios are to the orange reference bar)</text>
</svg>
`;
}
