"""The parts both documents (report and atlas) are made of: headings, tables, figures, footnotes.

The context builders return these plain frozen records; the macros in templates/macros.html.j2
render them. Text is formatted once, in Python (pipelines/domain/units.py); each table cell
keeps the number behind its text (`sort`) so a sortable web table orders by value, not by text, and
each row says what the web edition's filters see in it (`facets`: its provider, accelerator, round, ...).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property


@dataclass(frozen=True)
class Heading:
    """A numbered section heading, its anchor and, for chapters, the running page header."""

    number: str  # "2", "2.1", "A"
    title: str
    anchor: str
    running: str | None = None  # the PDF's running header for pages of this chapter; default number + title
    kind: str = "section"  # "section" or "appendix": how its self-link is read out
    children: tuple[Heading, ...] = ()  # sub-sections listed under it in the contents
    file: str = ""  # the PDF of its own that prints this chapter (the atlas's digest), named in the contents

    @property
    def label(self) -> str:
        return self.running or f"{self.number} {self.title}"


@dataclass(frozen=True)
class Note:
    """A footnote call. The first call of a note in its chapter carries the text (printed at the foot
    of that page); later calls repeat only the number. `source`: the number of the entry of the
    sources appendix that says where the note's figures come from (file, line, commit), linked from
    the note; None when the note needs none."""

    ref: int
    text: str | None = None
    source: int | None = None

    @property
    def id(self) -> str:
        return f"fn-{self.ref}"

    @property
    def source_label(self) -> str:
        return f"S{self.source}"

    @property
    def source_id(self) -> str:
        return source_id(self.source)


def source_id(number: int) -> str:
    """The anchor of a sources appendix entry."""
    return f"src-{number}"


@dataclass(frozen=True)
class Source:
    """An entry of the sources appendix: where a price, a measured system or an emission factor comes
    from, in full, and the tables whose notes cite it (links back)."""

    number: int
    kind: str  # "price", "measured system", "throughput", "emission factors"
    text: str
    cited: tuple[tuple[str, str], ...]  # ("Table 2", "tab-2"), in reading order

    @property
    def label(self) -> str:
        return f"S{self.number}"

    @property
    def id(self) -> str:
        return source_id(self.number)


@dataclass(frozen=True, slots=True)
class Tag:
    text: str
    kind: str = ""  # "", "best" or "front": the tag's colour
    title: str | None = None  # shown on hover


@dataclass(frozen=True, slots=True)
class Cell:
    text: str
    sort: float | int | None = None  # the number behind the text, for sorting; None: sort by text
    subs: tuple[str, ...] = ()  # smaller lines under the text
    tags: tuple[Tag, ...] = ()
    note: Note | None = None
    link: str | None = None  # an anchor in the same document
    links: tuple[tuple[str, str], ...] = ()  # (text, anchor) links after the text, comma-separated ("cited in")
    strong: bool = False
    breakable: bool = False  # a long identifier: may break after _ . / - +
    names: bool = False  # names: each short one kept whole, a long one breakable (render.names)


@dataclass(frozen=True)
class Column:
    label: str
    numeric: bool = False
    header: bool = False  # this column's cell is its row's header (th scope=row)
    group: str | None = None  # a label over this and the adjacent columns of the same group
    css: str = ""  # how the cells wrap: "system", "file", "hash", "small", "small words", "wrap" (a number with words)
    short: str | None = None  # the label beside each cell when a phone shows rows as cards (Table.cards)
    facet: str | None = None  # the web filter this column's text feeds ("Round", "Division"): declaring it adds the filter
    width: str | None = None  # its share of the printed table's width ("12%"), used when the table is printed fixed
    detail: bool = False  # on screen, shown on request (the table's "more columns" toggle) so the table fits; printed


# The web edition's filters, in this order when a table has several; a facet not listed here (a new
# column's) comes after them. Builders name a row's facets with these words.
FACETS = ("Provider", "Accelerator", "Benchmark", "Round", "Division", "Pricing model")


@dataclass(frozen=True, slots=True)
class Row:
    cells: tuple[Cell, ...]
    classes: tuple[str, ...] = ()  # "baseline", "cheapest", "no-result"
    span: str | None = None  # a row with only its header cell and this text across the other columns
    facets: tuple[tuple[str, str], ...] = ()  # (filter, value) for the web filters, beyond its facet columns
    group: str | None = None  # a heading row across the table before this row (tables that do not sort only)
    anchor: str | None = None  # the row's id, for links to it


def facet_order(names) -> tuple[str, ...]:
    """Filter names in FACETS order; one not listed there (a new column's) after them, by name."""
    return tuple(sorted(set(names), key=lambda n: (FACETS.index(n) if n in FACETS else len(FACETS), n)))


def row_facets(columns: tuple[Column, ...], row: Row) -> dict[str, str]:
    """A row's value per filter: its own facets and the text of its cells in facet columns."""
    values = dict(row.facets)
    values.update((c.facet, cell.text) for c, cell in zip(columns, row.cells) if c.facet)
    return values


@dataclass(frozen=True)
class JsonRows:
    """A web-only table's rows already as the JSON its <script> carries (web_assets.json_rows), for a
    table too large to keep as Row and Cell objects until the page is rendered: the atlas's every
    pair, 15,000 rows on the whole corpus, took 60 MiB as objects and takes 6 MiB as text."""

    text: str
    count: int
    facets: tuple[str, ...]  # the table's filters (Table.facets)
    value_columns: tuple[int, ...]  # the columns with a number behind some cell (Table.value_columns)

    def __len__(self) -> int:
        return self.count


@dataclass(frozen=True)
class HeadCell:
    label: str
    numeric: bool
    scope: str = "col"
    colspan: int = 1
    rowspan: int = 1
    detail: bool = False  # over detail columns only: hidden with them


@dataclass(frozen=True)
class Table:
    number: int | str  # 12, or "A.1" in an appendix
    caption: str
    columns: tuple[Column, ...]
    rows: tuple[Row, ...] | JsonRows
    css: str = ""
    csv: str | None = None  # the data/ export (without extension) that holds every row of this table
    empty: str | None = None  # the one row's text when there are no rows
    cards: bool = False  # on a phone, one card per row: each cell is labelled with its column
    anchor: str | None = None  # the id of an unnumbered (web-only) table; numbered ones are tab-<number>
    web_only: bool = False  # in the HTML only (its rows travel as JSON), never in print or the PDF
    # Printed at its columns' widths (table-layout: fixed) instead of widths measured from every cell:
    # WeasyPrint's measuring was half of the atlas digest's layout time (16 of 29 s). Every column needs a width.
    fixed: bool = False
    sortable: bool = True  # the web edition's sorting and filters; a table in groups keeps its order instead

    def __post_init__(self):
        if self.fixed and not all(c.width for c in self.columns):
            raise ValueError(f"table {self.caption!r} is printed fixed, but not every column has a width")
        if isinstance(self.rows, JsonRows):
            if not self.web_only:
                raise ValueError(f"table {self.caption!r} has its rows as JSON only, which print cannot show")
            return
        if self.sortable and any(r.group for r in self.rows):
            raise ValueError(f"table {self.caption!r} has group rows, which sorting would scatter")

    @property
    def id(self) -> str:
        return self.anchor or f"tab-{self.number}".replace(".", "-")

    @cached_property
    def facets(self) -> tuple[str, ...]:
        """The filters of this table: those of its rows and its facet columns, in FACETS order."""
        if isinstance(self.rows, JsonRows):
            return self.rows.facets
        return facet_order({name for row in self.rows for name, _ in row.facets} | {c.facet for c in self.columns if c.facet})

    def facet_values(self, row: Row) -> list[str]:
        """The row's value for each of `facets` ("" where it has none)."""
        values = row_facets(self.columns, row)
        return [values.get(name, "") for name in self.facets]

    @cached_property
    def value_columns(self) -> list[int]:
        """The columns that sort by the number behind their cells (any cell of theirs has one)."""
        if isinstance(self.rows, JsonRows):
            return list(self.rows.value_columns)
        return [i for i in range(len(self.columns)) if any(i < len(r.cells) and r.cells[i].sort is not None
                                                           for r in self.rows)]

    @cached_property
    def detail_columns(self) -> list[int]:
        """The columns the web edition shows on request (Column.detail)."""
        return [i for i, c in enumerate(self.columns) if c.detail]

    @property
    def head(self) -> list[list[HeadCell]]:
        """The header rows: one, or two when columns are grouped (the group's label spans its columns)."""
        if not any(c.group for c in self.columns):
            return [[HeadCell(c.label, c.numeric, detail=c.detail) for c in self.columns]]
        top: list[HeadCell] = []
        below: list[HeadCell] = []
        for i, c in enumerate(self.columns):
            if c.group is None:
                top.append(HeadCell(c.label, c.numeric, rowspan=2, detail=c.detail))
                continue
            below.append(HeadCell(c.label, c.numeric, detail=c.detail))
            if i == 0 or self.columns[i - 1].group != c.group:
                width = 1
                while i + width < len(self.columns) and self.columns[i + width].group == c.group:
                    width += 1
                top.append(HeadCell(c.group, False, scope="colgroup", colspan=width,
                                    detail=all(d.detail for d in self.columns[i:i + width])))
        return [top, below]


def chart_id(figure_number: int) -> str:
    """The id of a figure's SVG; every id inside the SVG starts with it (unique in the page)."""
    return f"chart-{figure_number}"


@dataclass(frozen=True)
class Figure:
    number: int
    svg: str  # inline SVG whose <title> is `alt`
    alt: str
    caption: str
    css: str = ""  # "wide": a figure that takes the page's whole width and more height in print

    @property
    def id(self) -> str:
        return f"fig-{self.number}"


@dataclass(frozen=True)
class Counts:
    figures: int
    tables: int
    footnotes: int


@dataclass(frozen=True)
class Front:
    """What the base template shows before the chapters: HTML head and PDF metadata, title page,
    contents, and the colophon at the end."""

    title: str
    subtitle: str
    author: str
    kicker: str  # the small line above the title
    description: str  # PDF subject
    keywords: str
    generator: str
    price_date: str
    generated_on: str
    facts: tuple[tuple[str, str], ...]  # the title page's list: (term, value)
    note: str  # the title page's last paragraph
    contents: tuple[Heading, ...]
    colophon: str
