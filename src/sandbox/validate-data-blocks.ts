import { CHART_TYPES, DATA_TABLE_CELL_TYPES, LIMITS } from "./block-kit-rules.ts";
import { type BlockErrors, isObject, type Json } from "./validate-elements.ts";

/**
 * Slack's `data_table` block: a caption, 2–101 rows (the first is the header, never `rich_text`) of
 * 1–20 cells each, all rows alike; cells `raw_text` (non-empty text), `raw_number` (a number and its
 * text) or `rich_text`; `page_size` 1–100; at most 10,000 characters across the cells.
 */
export function checkDataTable(errors: BlockErrors, block: Json, at: string): void {
  if (typeof block.caption !== "string" || block.caption.length === 0) {
    errors.add("missing required field: caption", `${at}/caption`);
  }
  if (block.page_size !== undefined) {
    const size = block.page_size;
    if (!Number.isInteger(size) || (size as number) < 1 || (size as number) > LIMITS.dataTablePageSize)
      errors.add(`must be an integer from 1 to ${LIMITS.dataTablePageSize}`, `${at}/page_size`);
  }
  const rows = block.rows;
  if (!Array.isArray(rows)) {
    errors.add("missing required field: rows", `${at}/rows`);
    return;
  }
  if (rows.length < 2) errors.add("must provide at least 2 rows (a header and one row)", `${at}/rows`);
  errors.maxItems(rows, LIMITS.dataTableRows, `${at}/rows`);
  const width = Array.isArray(rows[0]) ? rows[0].length : 0;
  if (width > LIMITS.dataTableColumns)
    errors.add(`no more than ${LIMITS.dataTableColumns} columns allowed`, `${at}/rows/0`);
  if (block.row_header_column_index !== undefined) {
    const index = block.row_header_column_index;
    if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= Math.max(width, 1))
      errors.add("must be the index of a column", `${at}/row_header_column_index`);
  }
  rows.forEach((row, r) => {
    const rowAt = `${at}/rows/${r}`;
    if (!Array.isArray(row) || row.length === 0) {
      errors.add("must be a non-empty array", rowAt);
      return;
    }
    if (row.length !== width) errors.add(`every row must have ${width} cells`, rowAt);
    row.forEach((cell, c) => {
      checkCell(errors, cell, `${rowAt}/${c}`, r === 0);
    });
  });
  const chars = dataTableChars(block);
  if (chars > LIMITS.dataTableChars)
    errors.add(
      `the cells hold ${chars} characters; no more than ${LIMITS.dataTableChars} allowed`,
      `${at}/rows`,
    );
}

function checkCell(errors: BlockErrors, cell: unknown, at: string, header: boolean): void {
  if (!isObject(cell) || typeof cell.type !== "string") {
    errors.add("missing required field: type", `${at}/type`);
    return;
  }
  const allowed: readonly string[] = header ? ["raw_text", "raw_number"] : DATA_TABLE_CELL_TYPES;
  if (!allowed.includes(cell.type)) {
    errors.add(`must be one of: ${allowed.join(", ")} (got ${cell.type})`, `${at}/type`);
    return;
  }
  if (cell.type === "rich_text") {
    if (!Array.isArray(cell.elements)) errors.add("missing required field: elements", `${at}/elements`);
    return;
  }
  if (typeof cell.text !== "string" || cell.text.length === 0) {
    errors.add("must be more than 0 characters", `${at}/text`);
  }
  if (cell.type === "raw_number" && (typeof cell.value !== "number" || !Number.isFinite(cell.value))) {
    errors.add("must be a number", `${at}/value`);
  }
}

/** The characters a table's cells hold (a rich_text cell: the text of its elements). */
export function dataTableChars(block: Json): number {
  if (!Array.isArray(block.rows)) return 0;
  let n = 0;
  for (const row of block.rows) {
    if (!Array.isArray(row)) continue;
    for (const cell of row) n += cellText(cell).length;
  }
  return n;
}

function cellText(value: unknown): string {
  if (Array.isArray(value)) return value.map(cellText).join("");
  if (!isObject(value)) return "";
  if (typeof value.text === "string") return value.text;
  return cellText(value.elements);
}

/**
 * Slack's `data_visualization` block: a title (≤ 50) and a chart: `pie` with 1–6 segments (label
 * ≤ 20, value > 0), or `bar`/`area`/`line` with 1–6 uniquely named series (name ≤ 20) of one data
 * point per category, and `axis_config` with 1–20 categories (≤ 20 characters) and optional axis
 * labels (≤ 50).
 */
export function checkDataVisualization(errors: BlockErrors, block: Json, at: string): void {
  if (typeof block.title !== "string" || block.title.length === 0) {
    errors.add("missing required field: title", `${at}/title`);
  } else errors.maxLength(block.title, LIMITS.dataVisualizationTitle, `${at}/title`);
  const chart = block.chart;
  if (!isObject(chart)) {
    errors.add("missing required field: chart", `${at}/chart`);
    return;
  }
  const chartAt = `${at}/chart`;
  if (!CHART_TYPES.includes(chart.type as (typeof CHART_TYPES)[number])) {
    errors.add(`must be one of: ${CHART_TYPES.join(", ")} (got ${String(chart.type)})`, `${chartAt}/type`);
    return;
  }
  if (chart.type === "pie") {
    checkPie(errors, chart, chartAt);
    return;
  }
  checkSeriesChart(errors, chart, chartAt);
}

function checkPie(errors: BlockErrors, chart: Json, at: string): void {
  const segments = chart.segments;
  if (!Array.isArray(segments) || segments.length === 0) {
    errors.add("must provide at least 1 segment", `${at}/segments`);
    return;
  }
  errors.maxItems(segments, LIMITS.chartSegments, `${at}/segments`);
  segments.forEach((s, i) => {
    const sAt = `${at}/segments/${i}`;
    if (!isObject(s)) {
      errors.add("must be an object", sAt);
      return;
    }
    checkLabel(errors, s.label, `${sAt}/label`);
    if (typeof s.value !== "number" || !Number.isFinite(s.value) || s.value <= 0) {
      errors.add("must be a number greater than 0", `${sAt}/value`);
    }
  });
}

function checkSeriesChart(errors: BlockErrors, chart: Json, at: string): void {
  const axis = chart.axis_config;
  let categories: string[] = [];
  if (!isObject(axis)) errors.add("missing required field: axis_config", `${at}/axis_config`);
  else {
    const axisAt = `${at}/axis_config`;
    if (!Array.isArray(axis.categories) || axis.categories.length === 0) {
      errors.add("must provide at least 1 category", `${axisAt}/categories`);
    } else {
      errors.maxItems(axis.categories, LIMITS.chartCategories, `${axisAt}/categories`);
      axis.categories.forEach((c, i) => {
        checkLabel(errors, c, `${axisAt}/categories/${i}`);
      });
      categories = axis.categories.filter((c): c is string => typeof c === "string");
    }
    for (const field of ["x_label", "y_label"]) {
      if (axis[field] === undefined) continue;
      if (typeof axis[field] !== "string") errors.add("must be a string", `${axisAt}/${field}`);
      else errors.maxLength(axis[field], LIMITS.chartAxisLabel, `${axisAt}/${field}`);
    }
  }
  const series = chart.series;
  if (!Array.isArray(series) || series.length === 0) {
    errors.add("must provide at least 1 series", `${at}/series`);
    return;
  }
  errors.maxItems(series, LIMITS.chartSeries, `${at}/series`);
  const names = new Set<string>();
  series.forEach((s, i) => {
    const sAt = `${at}/series/${i}`;
    if (!isObject(s)) {
      errors.add("must be an object", sAt);
      return;
    }
    checkLabel(errors, s.name, `${sAt}/name`);
    if (typeof s.name === "string") {
      if (names.has(s.name)) errors.add(`duplicate series name: ${s.name}`, `${sAt}/name`);
      names.add(s.name);
    }
    if (!Array.isArray(s.data) || s.data.length === 0) {
      errors.add("must provide at least 1 data point", `${sAt}/data`);
      return;
    }
    errors.maxItems(s.data, LIMITS.chartCategories, `${sAt}/data`);
    s.data.forEach((point, j) => {
      const pAt = `${sAt}/data/${j}`;
      if (!isObject(point)) {
        errors.add("must be an object", pAt);
        return;
      }
      if (typeof point.label !== "string" || (categories.length > 0 && !categories.includes(point.label))) {
        errors.add("label must be one of the axis_config categories", `${pAt}/label`);
      }
      if (typeof point.value !== "number" || !Number.isFinite(point.value))
        errors.add("must be a number", `${pAt}/value`);
    });
  });
}

function checkLabel(errors: BlockErrors, label: unknown, at: string): void {
  if (typeof label !== "string" || label.length === 0) {
    errors.add("must be a non-empty string", at);
    return;
  }
  errors.maxLength(label, LIMITS.chartLabel, at);
}

/** Limits across one message's blocks: at most 2 charts, at most 10,000 characters of table cells. */
export function checkDataBlocksPerMessage(errors: BlockErrors, blocks: unknown[], pointer: string): void {
  const charts = blocks.filter((b) => isObject(b) && b.type === "data_visualization").length;
  if (charts > LIMITS.dataVisualizationsPerMessage) {
    errors.add(
      `no more than ${LIMITS.dataVisualizationsPerMessage} data_visualization blocks allowed`,
      pointer,
    );
  }
  const tables = blocks.filter((b): b is Json => isObject(b) && b.type === "data_table");
  const chars = tables.reduce((n, t) => n + dataTableChars(t), 0);
  if (tables.length > 1 && chars > LIMITS.dataTableChars) {
    errors.add(
      `the tables hold ${chars} characters; no more than ${LIMITS.dataTableChars} allowed per message`,
      pointer,
    );
  }
}
