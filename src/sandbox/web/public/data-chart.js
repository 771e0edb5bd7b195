import { html } from "./html.js";

/**
 * A `data_visualization` chart drawn as SVG: bars grouped by category, lines, stacked-in-order
 * areas, or a pie, with a legend. Sized for the message column; values show on hover (`<title>`).
 */
const COLORS = ["#1264a3", "#2bac76", "#e8912d", "#cd2553", "#9c5bd5", "#36c5f0"];
const W = 520;
const H = 240;
const PAD = { left: 44, right: 12, top: 12, bottom: 46 };

export function DataChart({ chart, title }) {
  if (!chart || typeof chart !== "object") return null;
  if (chart.type === "pie") return html`<${Pie} segments=${chart.segments ?? []} title=${title} />`;
  return html`<${SeriesChart} chart=${chart} title=${title} />`;
}

function Legend({ names }) {
  return html`<ul class="chart-legend">
    ${names.map(
      (name, i) =>
        html`<li key=${i}><span class="chart-swatch" style=${`background:${COLORS[i % COLORS.length]}`}></span>${name}</li>`,
    )}
  </ul>`;
}

function SeriesChart({ chart, title }) {
  const categories = chart.axis_config?.categories ?? [];
  const series = (chart.series ?? []).map((s) => ({
    name: s.name,
    values: categories.map((c) => Number(s.data?.find((p) => p.label === c)?.value ?? 0)),
  }));
  const { min, max, ticks } = scale(series.flatMap((s) => s.values));
  const span = max - min || 1;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const y = (v) => PAD.top + plotH - ((v - min) / span) * plotH;
  const band = plotW / Math.max(categories.length, 1);
  const x = (i) => PAD.left + band * i + band / 2;
  const format = (v) => (Math.abs(v) >= 1000 ? v.toLocaleString() : String(Math.round(v * 100) / 100));
  let marks;
  if (chart.type === "bar") {
    const width = (band * 0.8) / Math.max(series.length, 1);
    marks = series.flatMap((s, k) =>
      s.values.map(
        (
          v,
          i,
        ) => html`<rect key=${`${k}-${i}`} class="chart-bar" x=${PAD.left + band * i + band * 0.1 + width * k}
          y=${Math.min(y(v), y(0))} width=${Math.max(width - 1, 1)} height=${Math.abs(y(v) - y(0))}
          fill=${COLORS[k % COLORS.length]}><title>${`${s.name} · ${categories[i]}: ${v}`}</title></rect>`,
      ),
    );
  } else {
    marks = series.map((s, k) => {
      const points = s.values.map((v, i) => `${x(i)},${y(v)}`).join(" ");
      const color = COLORS[k % COLORS.length];
      return html`<g key=${k}>
        ${
          chart.type === "area"
            ? html`<polygon points=${`${x(0)},${y(0)} ${points} ${x(s.values.length - 1)},${y(0)}`} fill=${color} fill-opacity="0.35" />`
            : null
        }
        <polyline points=${points} fill="none" stroke=${color} stroke-width="2" />
        ${s.values.map(
          (v, i) =>
            html`<circle key=${i} cx=${x(i)} cy=${y(v)} r="3" fill=${color}><title>${`${s.name} · ${categories[i]}: ${v}`}</title></circle>`,
        )}
      </g>`;
    });
  }
  return html`<div class="chart">
    <svg class="chart-svg" viewBox=${`0 0 ${W} ${H}`} role="img" aria-label=${`${chart.type} chart: ${title}`}>
      ${ticks.map(
        (t, i) => html`<g key=${i}>
          <line x1=${PAD.left} x2=${W - PAD.right} y1=${y(t)} y2=${y(t)} class="chart-grid" />
          <text x=${PAD.left - 6} y=${y(t) + 4} text-anchor="end" class="chart-tick">${format(t)}</text>
        </g>`,
      )}
      ${marks}
      ${categories.map(
        (c, i) =>
          html`<text key=${i} x=${x(i)} y=${H - PAD.bottom + 14} text-anchor="middle" class="chart-tick">${c}</text>`,
      )}
      ${chart.axis_config?.x_label ? html`<text x=${PAD.left + plotW / 2} y=${H - 8} text-anchor="middle" class="chart-axis">${chart.axis_config.x_label}</text>` : null}
      ${chart.axis_config?.y_label ? html`<text x="10" y=${PAD.top + plotH / 2} text-anchor="middle" class="chart-axis" transform=${`rotate(-90 10 ${PAD.top + plotH / 2})`}>${chart.axis_config.y_label}</text>` : null}
    </svg>
    <${Legend} names=${series.map((s) => s.name)} />
  </div>`;
}

/** A value axis from 0 (or below) in round steps of 1, 2 or 5 × 10ⁿ, about five ticks. */
function scale(values) {
  const low = Math.min(0, ...values);
  const high = Math.max(0, ...values);
  const raw = (high - low || 1) / 4;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const min = Math.floor(low / step) * step;
  const max = Math.ceil(high / step) * step || step;
  const ticks = [];
  for (let t = min; t <= max + step / 2; t += step) ticks.push(Math.round(t * 1e9) / 1e9);
  return { min, max, ticks };
}

function Pie({ segments, title }) {
  const total = segments.reduce((n, s) => n + Math.max(0, Number(s.value) || 0), 0) || 1;
  const r = 90;
  const cx = 110;
  const cy = 110;
  let angle = -Math.PI / 2;
  const slices = segments.map((s, i) => {
    const share = Math.max(0, Number(s.value) || 0) / total;
    const start = angle;
    angle += share * 2 * Math.PI;
    const large = share > 0.5 ? 1 : 0;
    const [x1, y1] = [cx + r * Math.cos(start), cy + r * Math.sin(start)];
    const [x2, y2] = [cx + r * Math.cos(angle), cy + r * Math.sin(angle)];
    const d =
      share >= 0.9999
        ? `M ${cx - r} ${cy} a ${r} ${r} 0 1 0 ${2 * r} 0 a ${r} ${r} 0 1 0 ${-2 * r} 0`
        : `M ${cx} ${cy} L ${x1} ${y1} A ${r} ${r} 0 ${large} 1 ${x2} ${y2} Z`;
    return html`<path key=${i} d=${d} fill=${COLORS[i % COLORS.length]} class="chart-slice"><title>${`${s.label}: ${s.value} (${Math.round(share * 100)}%)`}</title></path>`;
  });
  return html`<div class="chart">
    <svg class="chart-svg chart-pie" viewBox="0 0 220 220" role="img" aria-label=${`pie chart: ${title}`}>${slices}</svg>
    <${Legend} names=${segments.map((s) => s.label)} />
  </div>`;
}
