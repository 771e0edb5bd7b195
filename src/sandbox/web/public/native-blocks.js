import { useState } from "preact/hooks";
import { DataChart } from "./data-chart.js";
import { html } from "./html.js";
import { parseMarkdown } from "./markdown.js";
import { Nodes } from "./mrkdwn-view.js";

/**
 * The blocks Slack renders natively for agents: `markdown` (standard Markdown, tables included),
 * `data_table` (sortable by clicking a column header, paginated) and `data_visualization` (a chart).
 */
export function MarkdownBlock({ block }) {
  return html`<div class="block block-markdown"><${MarkdownNodes} nodes=${parseMarkdown(block.text)} /></div>`;
}

function MarkdownNodes({ nodes }) {
  return nodes.map((node, i) => html`<${MarkdownNode} key=${i} node=${node} />`);
}

function MarkdownNode({ node }) {
  switch (node.type) {
    case "heading": {
      const Tag = `h${Math.min(node.level + 2, 6)}`;
      return html`<${Tag} class="md-heading"><${Nodes} nodes=${node.children} /></${Tag}>`;
    }
    case "paragraph":
      return html`<p><${Nodes} nodes=${node.children} /></p>`;
    case "pre":
      return html`<pre><code>${node.text}</code></pre>`;
    case "rule":
      return html`<hr />`;
    case "blockquote":
      return html`<blockquote><${MarkdownNodes} nodes=${node.children} /></blockquote>`;
    case "list": {
      const items = node.items.map(
        (item, i) =>
          html`<li key=${i}><${Nodes} nodes=${item.children} /><${MarkdownNodes} nodes=${item.blocks} /></li>`,
      );
      return node.ordered ? html`<ol start=${node.start}>${items}</ol>` : html`<ul>${items}</ul>`;
    }
    case "table":
      return html`<div class="md-table-wrap"><table class="md-table">
        <thead><tr>${node.header.map((c, j) => html`<th key=${j} style=${alignStyle(node.align[j])}><${Nodes} nodes=${c} /></th>`)}</tr></thead>
        <tbody>${node.rows.map(
          (r, i) =>
            html`<tr key=${i}>${r.map((c, j) => html`<td key=${j} style=${alignStyle(node.align[j])}><${Nodes} nodes=${c} /></td>`)}</tr>`,
        )}</tbody>
      </table></div>`;
    default:
      return null;
  }
}

const alignStyle = (align) => (align ? `text-align: ${align}` : undefined);

/** The text a cell shows: raw_text / raw_number text, or the words of a rich_text cell. */
function cellText(cell) {
  if (!cell || typeof cell !== "object") return "";
  if (typeof cell.text === "string") return cell.text;
  if (cell.type === "raw_number") return String(cell.value ?? "");
  const walk = (els) =>
    (Array.isArray(els) ? els : [])
      .map((e) => (typeof e?.text === "string" ? e.text : walk(e?.elements)))
      .join("");
  return walk(cell.elements);
}

/**
 * A `data_table`: the first row is the header; a click on a header sorts by that column (again:
 * the other way), numerically when all its cells are `raw_number`, else alphabetically, as Slack
 * does; `page_size` rows per page (5 unless set).
 */
export function DataTable({ block }) {
  const rows = Array.isArray(block.rows) ? block.rows : [];
  const [header = [], ...body] = rows;
  const [sort, setSort] = useState(undefined);
  const [page, setPage] = useState(0);
  const pageSize = Number.isInteger(block.page_size) ? block.page_size : 5;
  const numeric = header.map((_, j) => body.every((r) => r?.[j]?.type === "raw_number"));
  const sorted = sort
    ? [...body].sort((a, b) => {
        const x = a?.[sort.column];
        const y = b?.[sort.column];
        const order = numeric[sort.column]
          ? (x?.value ?? 0) - (y?.value ?? 0)
          : cellText(x).localeCompare(cellText(y), undefined, { numeric: true, sensitivity: "base" });
        return sort.descending ? -order : order;
      })
    : body;
  const pages = Math.max(1, Math.ceil(sorted.length / pageSize));
  const shown = sorted.slice(page * pageSize, (page + 1) * pageSize);
  const sortBy = (column) => {
    setSort(
      sort?.column === column ? { column, descending: !sort.descending } : { column, descending: false },
    );
    setPage(0);
  };
  const ariaSort = (j) => (sort?.column === j ? (sort.descending ? "descending" : "ascending") : "none");
  return html`<div class="block block-data-table">
    <table class="data-table">
      <caption>${block.caption}</caption>
      <thead><tr>
        ${header.map(
          (
            cell,
            j,
          ) => html`<th key=${j} scope="col" aria-sort=${ariaSort(j)} class=${numeric[j] ? "numeric" : ""}>
            <button type="button" class="sort-button" onClick=${() => sortBy(j)}>
              ${cellText(cell)}<span class="sort-mark" aria-hidden="true">${sort?.column === j ? (sort.descending ? " ▼" : " ▲") : ""}</span>
            </button>
          </th>`,
        )}
      </tr></thead>
      <tbody>
        ${shown.map(
          (row, i) =>
            html`<tr key=${i}>${(row ?? []).map((cell, j) =>
              j === (block.row_header_column_index ?? 0)
                ? html`<th key=${j} scope="row">${cellText(cell)}</th>`
                : html`<td key=${j} class=${numeric[j] ? "numeric" : ""}>${cellText(cell)}</td>`,
            )}</tr>`,
        )}
      </tbody>
    </table>
    ${
      pages > 1
        ? html`<div class="data-table-pages" role="group" aria-label="Pages">
            <button type="button" class="btn btn-default" disabled=${page === 0} onClick=${() => setPage(page - 1)}>Previous</button>
            <span>Page ${page + 1} of ${pages}</span>
            <button type="button" class="btn btn-default" disabled=${page >= pages - 1} onClick=${() => setPage(page + 1)}>Next</button>
          </div>`
        : null
    }
  </div>`;
}

export function DataVisualization({ block }) {
  return html`<figure class="block block-data-visualization">
    <figcaption>${block.title}</figcaption>
    <${DataChart} chart=${block.chart} title=${block.title} />
  </figure>`;
}
