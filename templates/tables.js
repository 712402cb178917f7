// Sortable, filterable tables for the web edition (pipelines/publish/web_assets.py appends this to the
// DataTables bundle of itables, which defines DataTablesBundle). Every <table data-table> becomes a
// DataTable: sortable by any column (by the number behind a cell where the page gives one in
// data-sort), searchable as free text, and filterable by each facet its rows declare (provider,
// accelerator, benchmark, round, division, pricing model, ...: whatever data-facets names). A table
// with data-rows reads its rows from a JSON <script> instead of the DOM (the atlas's every priced
// pair: 10,000+ rows, drawn a page at a time).
const DataTable = DataTablesBundle.default;
DataTable.ext.errMode = "throw"; // a problem is a console error (the tests fail on those), never an alert

// DataTables' dark styles follow html.dark; the page's own follow prefers-color-scheme.
const darkScheme = window.matchMedia("(prefers-color-scheme: dark)");
const followScheme = () => document.documentElement.classList.toggle("dark", darkScheme.matches);
followScheme();
darkScheme.addEventListener("change", followScheme);

// "value" columns sort by their number; a cell without one ("no result", "–") goes last either way.
const number = (v) => (v === null || v === undefined || v === "" ? null : Number(v));
const byValue = (direction) => (a, b) => {
  const x = number(a), y = number(b);
  if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
  return direction * (x - y);
};
DataTable.type("value", { order: { asc: byValue(1), desc: byValue(-1) } });

const escapeHtml = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
const json = (text, fallback) => (text ? JSON.parse(text) : fallback);

// Per table: the facet values of each row (by DataTables' row index) and the value chosen per facet.
const facetState = new Map();
DataTable.ext.search.push((settings, _searchData, index) => {
  const state = facetState.get(settings.nTable);
  if (!state) return true;
  const values = state.rows[index] || [];
  return state.chosen.every((want, i) => want === "" || values[i] === want);
});

function filterBar(table, names, rows) {
  const bar = document.createElement("div");
  bar.className = "table-filters";
  bar.setAttribute("role", "group");
  bar.setAttribute("aria-label", "Filters of " + (table.caption ? table.caption.textContent.replace(/#$/, "").trim() : "the table"));
  const state = { rows, chosen: names.map(() => "") };
  facetState.set(table, state);
  names.forEach((name, i) => {
    const counts = new Map();
    rows.forEach((values) => {
      const v = values[i];
      if (v !== undefined && v !== null && v !== "") counts.set(v, (counts.get(v) || 0) + 1);
    });
    if (counts.size < 2) return; // nothing to choose between
    const label = document.createElement("label");
    const select = document.createElement("select");
    select.dataset.facet = name;
    select.add(new Option(`all (${rows.length})`, ""));
    [...counts.keys()].sort((a, b) => a.localeCompare(b, "en", { numeric: true }))
      .forEach((v) => select.add(new Option(`${v} (${counts.get(v)})`, v)));
    select.addEventListener("change", () => {
      state.chosen[i] = select.value;
      new DataTable.Api(table).draw();
    });
    label.append(name + " ", select);
    bar.append(label);
  });
  return bar.children.length ? bar : null;
}

// "More columns": a table's detail columns (data-detail-columns) stay hidden on screen until asked for, so the
// table fits the page; shown, the table takes the window's width rather than scrolling sideways. Print shows all.
function detailToggle(table, detail) {
  // what the hidden columns are called: a group's label, or a column's own where it has no group
  const single = table.tHead.rows.length === 1;
  const names = [...table.tHead.querySelectorAll("th.detail")]
    .filter((th) => single || th.scope === "colgroup" || th.rowSpan > 1)
    .map((th) => th.textContent.replace(/#$/, "").trim());
  const button = document.createElement("button");
  button.type = "button";
  button.className = "detail-toggle";
  button.setAttribute("aria-controls", table.id);
  const show = (shown) => {
    table.classList.toggle("hide-detail", !shown);
    table.closest(".table-wrap")?.classList.toggle("expanded", shown);
    button.setAttribute("aria-expanded", String(shown));
    button.textContent = shown ? "Fewer columns" : `Show ${detail.length} more columns: ${names.join(", ")}`;
  };
  button.addEventListener("click", () => show(table.classList.contains("hide-detail")));
  show(false);
  return button;
}

// A cell of a JSON row: its text, or [text, number behind it].
const cellRender = (i) => (data, type, row) => {
  const cell = row[i];
  const [text, value] = Array.isArray(cell) ? cell : [cell, null];
  if (type === "sort" || type === "type") return Array.isArray(cell) ? value : text;
  return type === "display" ? escapeHtml(text) : text;
};

function enhance(table) {
  const names = json(table.dataset.facets, []);
  const valueColumns = json(table.dataset.valueColumns, []);
  const detail = json(table.dataset.detailColumns, []);
  const source = table.dataset.rows ? json(document.getElementById(table.dataset.rows).textContent, []) : null;
  const columns = table.tHead.rows[table.tHead.rows.length - 1].cells.length + (table.tHead.rows.length > 1
    ? [...table.tHead.rows[0].cells].filter((c) => c.rowSpan > 1).length : 0);
  const rows = source ? source.map((r) => r[columns] || [])
    : [...table.tBodies[0].rows].map((tr) => json(tr.dataset.facet, []));
  const many = (source ? source.length : rows.length) > 100;
  const options = {
    order: [], // the document's order (cheapest first) until a reader sorts
    autoWidth: false,
    paging: many,
    pageLength: 25,
    lengthMenu: [10, 25, 50, 100, 500],
    columnDefs: [{ targets: valueColumns, type: "value" }, { targets: detail, className: "detail" }],
    language: { search: "Search the table:", info: "_START_ to _END_ of _TOTAL_ rows", infoEmpty: "No rows",
                infoFiltered: "(filtered from _MAX_)", zeroRecords: "No row matches" },
    layout: { topStart: many ? "pageLength" : null, topEnd: "search", bottomStart: "info", bottomEnd: many ? "paging" : null },
  };
  let bar = filterBar(table, names, rows);
  if (detail.length) {
    bar = bar || Object.assign(document.createElement("div"), { className: "table-filters" });
    bar.append(detailToggle(table, detail));
  }
  if (bar) options.layout.top = bar;
  if (source) {
    options.columnDefs.push({ targets: valueColumns, className: "num" }); // the JSON's cells carry no classes
    options.data = source;
    options.deferRender = true;
    options.columns = Array.from({ length: columns }, (_, i) => ({ data: null, render: cellRender(i) }));
  }
  const api = new DataTable(table, options);
  // Sorting and searching redraw asynchronously; data-draws counts finished draws (the tests wait on it).
  table.dataset.draws = "0";
  api.on("draw", () => { table.dataset.draws = String(Number(table.dataset.draws) + 1); });
}

document.querySelectorAll("table[data-table]").forEach(enhance);
// For the tests and the benchmark: every table is enhanced, and when (ms since navigation started).
document.documentElement.dataset.tablesReadyMs = Math.round(performance.now());
document.documentElement.dataset.tables = "ready";
