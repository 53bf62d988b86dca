"""A small document model (headings, paragraphs, tables, figures) rendered
twice: as Markdown and as one self-contained HTML page with the PNGs
embedded. The tools build a list of blocks and never write markup themselves.
"""

from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass, field

DETAIL_ROWS = 50  # a table of more rows is a detail table (Table.detail)


@dataclass
class Heading:
    level: int
    text: str

    @property
    def anchor(self) -> str:
        return re.sub(r"[^a-z0-9]+", "-", self.text.lower()).strip("-")


@dataclass
class Para:
    text: str  # may hold `code` spans and **bold**


@dataclass
class Bullets:
    items: list
    css: str = ""  # HTML: a class of the list ("summary": the Summary's compact lines)


@dataclass
class Table:
    headers: list
    rows: list  # lists of cells (str)
    caption: str = ""
    right: set = field(default_factory=set)  # indices of right-aligned (numeric) columns
    classes: dict = field(default_factory=dict)  # (row, col) -> css class ("holds", ...)
    folded: bool = False  # a detail table (every point...): see `detail`

    @property
    def detail(self) -> bool:
        """A per-point table: folded, or longer than DETAIL_ROWS. report.md
        links it from the appendix file beside it (to_markdown_split);
        index.html shows it behind a click (<details>)."""
        return self.folded or len(self.rows) > DETAIL_ROWS


@dataclass
class Figure:
    path: str  # relative to the report folder
    caption: str
    png: bytes = b""
    css: str = ""  # HTML: a class of the figure ("summary": the Summary's)


@dataclass
class Code:
    text: str


def _md_inline(s: str) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def _md_alt(s: str) -> str:
    """An image's alt text: one line, brackets escaped (a family named `a]b`
    would end it early and break the link)."""
    return re.sub(r"([\[\]])", r"\\\1", _md_inline(s))


def to_markdown(blocks) -> str:
    out = []
    for b in blocks:
        if isinstance(b, Heading):
            out.append("#" * b.level + " " + " ".join(str(b.text).splitlines()))
        elif isinstance(b, Para):
            out.append(b.text)
        elif isinstance(b, Bullets):
            out.append("\n".join(f"- {i}" for i in b.items))
        elif isinstance(b, Code):
            out.append("```\n" + b.text.rstrip("\n") + "\n```")
        elif isinstance(b, Table):
            out.append(_md_table(b))
        elif isinstance(b, Figure):
            out.append(f"![{_md_alt(b.caption)}]({b.path})\n\n*{b.caption}*")
    return "\n\n".join(out) + "\n"


def to_markdown_split(blocks, appendix: str, title: str) -> tuple:
    """(the document, its appendix) as Markdown: each detail table
    (Table.detail) moves to the appendix, a file named `appendix` beside
    the document, under the headings of the sections it came from and a
    heading of its own, `Table A<k>`; the document keeps its caption, its
    size and a link to it, so it stays a text one reads through."""
    main, extra, heads, shown = [], [], {}, {}
    for b in blocks:
        if isinstance(b, Heading):
            heads = {k: v for k, v in heads.items() if k < b.level} | {b.level: b.text}
        if not (isinstance(b, Table) and b.detail):
            main.append(b)
            continue
        k = len([x for x in extra if isinstance(x, Table)]) + 1
        for level in sorted(h for h in heads if h > 1):  # the sections it sits in, once
            if shown.get(level) != heads[level]:
                extra.append(Heading(level, heads[level]))
                shown = {x: v for x, v in shown.items() if x < level} | {level: heads[level]}
        ref = Heading(4, f"Table A{k}")
        extra += [ref, b]
        what = f"*{b.caption}*: " if b.caption else ""
        n = f"{len(b.rows)} row{'s' if len(b.rows) != 1 else ''}"
        main.append(Para(f"{what}{n}, [table A{k}]({appendix}#{ref.anchor})."))
    n = sum(isinstance(x, Table) for x in extra)
    head = [
        Heading(1, f"{title}: the per-point tables"),
        Para(
            f"The {n} tables of every point that report.md links to, in its order, under the "
            "headings of its sections; index.html holds them too, folded."
            if extra
            else "report.md links no table here: none of its tables is a per-point one."
        ),
    ]
    return to_markdown(main), to_markdown(head + extra)


def _md_table(b: Table) -> str:
    return "\n".join(md_table_lines(b.headers, b.rows, b.right, b.caption))


def md_table_lines(headers, rows, right=(), caption=""):
    """The lines of a Markdown table, one at a time (rows: any iterable)."""
    if caption:
        yield f"*{caption}*\n"
    yield "| " + " | ".join(_md_inline(h) for h in headers) + " |"
    yield "|" + "|".join("---:" if i in right else "---" for i in range(len(headers))) + "|"
    for r in rows:
        yield "| " + " | ".join(map(_md_inline, r)) + " |"


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1200px;
margin:2em auto;padding:0 1em;color:#1d1d1f;line-height:1.45}
h1{border-bottom:2px solid #333}h2{border-bottom:1px solid #bbb;margin-top:2em}
table{border-collapse:collapse;margin:.6em 0 1.4em;font-size:.86em}
th,td{border:1px solid #ccc;padding:.25em .55em;vertical-align:top}
th{background:#f0f0f3;text-align:left}td.r{text-align:right;font-variant-numeric:tabular-nums}
tr:nth-child(even) td{background:#fafafa}
td.holds{background:#dff3df!important;font-weight:600}
td.differs{background:#fde2cf!important;font-weight:600}
td.absent{color:#888}
figure{margin:1em 0 2em}figure img{max-width:100%;border:1px solid #ddd}
figcaption{font-size:.9em;color:#444}
figure.summary{margin:.6em 0 .4em}figure.summary figcaption{font-size:.8em}
ul.summary{font-size:.86em;line-height:1.28;margin-top:.3em}
code{background:#f3f3f3;padding:0 .2em}pre{background:#f6f6f6;padding:.6em;overflow:auto}
caption{caption-side:top;text-align:left;font-style:italic;padding:.2em 0}
nav ul{columns:2}summary{cursor:pointer;font-style:italic;margin:.4em 0}
"""


def _inline_html(s: str) -> str:
    s = html.escape(str(s))
    s = re.sub(r"`([^`]+)`", r"<code>\1</code>", s)
    s = re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", s)
    s = re.sub(r"\[([^\]]+)\]\((#[a-z0-9-]+)\)", r'<a href="\2">\1</a>', s)
    return re.sub(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])", r"<em>\1</em>", s)


def to_html(blocks, title: str) -> str:
    toc = [b for b in blocks if isinstance(b, Heading) and b.level == 2]
    body = []
    for b in blocks:
        if isinstance(b, Heading):
            body.append(f'<h{b.level} id="{b.anchor}">{html.escape(b.text)}</h{b.level}>')
            if b.level == 1 and toc:
                body.append(_html_toc(toc))
        elif isinstance(b, Para):
            body.append(f"<p>{_inline_html(b.text)}</p>")
        elif isinstance(b, Bullets):
            cls = f' class="{b.css}"' if b.css else ""
            items = "".join(f"<li>{_inline_html(i)}</li>" for i in b.items)
            body.append(f"<ul{cls}>{items}</ul>")
        elif isinstance(b, Code):
            body.append(f"<pre>{html.escape(b.text)}</pre>")
        elif isinstance(b, Table):
            body.append(_html_table(b))
        elif isinstance(b, Figure):
            data = base64.b64encode(b.png).decode("ascii")
            cls = f' class="{b.css}"' if b.css else ""
            body.append(
                f'<figure{cls}><a href="{html.escape(b.path)}"><img alt="{html.escape(b.caption)}" '
                f'src="data:image/png;base64,{data}"></a>'
                f"<figcaption>{_inline_html(b.caption)}</figcaption></figure>"
            )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>\n"
        + "\n".join(body)
        + "\n</body></html>\n"
    )


def _html_toc(toc) -> str:
    """The contents: a link to each section (level-2 heading)."""
    return (
        "<nav><ul>"
        + "".join(f'<li><a href="#{h.anchor}">{html.escape(h.text)}</a></li>' for h in toc)
        + "</ul></nav>"
    )


def _html_table(b: Table) -> str:
    """A table; a folded one inside <details>, its caption the summary."""
    t = ["<table>"]
    if b.caption:
        t.append(f"<caption>{_inline_html(b.caption)}</caption>")
    t.append("<tr>" + "".join(f"<th>{html.escape(str(h))}</th>" for h in b.headers) + "</tr>")
    for i, r in enumerate(b.rows):
        cells = []
        for j, c in enumerate(r):
            cls = " ".join(x for x in ("r" if j in b.right else "", b.classes.get((i, j), "")) if x)
            cells.append(
                f'<td class="{cls}">{_inline_html(c)}</td>'
                if cls
                else f"<td>{_inline_html(c)}</td>"
            )
        t.append("<tr>" + "".join(cells) + "</tr>")
    t.append("</table>")
    if b.detail:
        t = (
            [
                f"<details><summary>{_inline_html(b.caption or 'table')} "
                f"({len(b.rows)} rows)</summary>"
            ]
            + t
            + ["</details>"]
        )
    return "\n".join(t)
