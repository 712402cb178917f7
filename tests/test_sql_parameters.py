"""Security: SQL takes values as parameters; rendering reads nothing outside templates/; the UI
listens on 127.0.0.1 by default; no secrets in the repository.

SQL rule (see pipelines/warehouse.py): a value reaches DuckDB as a registered frame or a `?` /
`$name` parameter. SQL text passed to execute()/sql()/query() may be a literal, a file from sql/
(sql_text), or an f-string whose only holes are identifiers that our own code generates: table
and view names (`name`, `table`, `view`) and aws.py's generated column names (`c[...]`).
Anything else (another f-string hole, `%` formatting, `.format()`, concatenation with a
non-literal) is flagged. The checker is tested on bad snippets so that it is known to flag them.
"""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SQL_METHODS = {"execute", "executemany", "sql", "query", "from_query"}
IDENTIFIER_NAMES = {"name", "table", "view", "c"}
# Known holes that are not table names, each with the reason it is tolerated for now.
TOLERATED: set[tuple[str, str]] = set()


def _root_name(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _is_identifier_hole(node: ast.AST) -> bool:
    if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Constant):
        return False
    return isinstance(node, (ast.Name, ast.Subscript, ast.Attribute)) and _root_name(node) in IDENTIFIER_NAMES


class _Checker(ast.NodeVisitor):
    def __init__(self, rel: str):
        self.rel = rel
        self.problems: list[str] = []
        self.assigned: list[dict[str, list[ast.AST]]] = [{}]

    def visit_FunctionDef(self, node):
        scope: dict[str, list[ast.AST]] = {}
        for sub in ast.walk(node):
            if isinstance(sub, ast.Assign):
                for target in sub.targets:
                    if isinstance(target, ast.Name):
                        scope.setdefault(target.id, []).append(sub.value)
        self.assigned.append(scope)
        self.generic_visit(node)
        self.assigned.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Call(self, node):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in SQL_METHODS and node.args:
            self._check_sql(node.args[0], node.lineno, depth=0)
        self.generic_visit(node)

    def _flag(self, lineno: int, what: str) -> None:
        self.problems.append(f"{self.rel}:{lineno}: {what}")

    def _check_sql(self, arg: ast.AST, lineno: int, depth: int) -> None:
        if isinstance(arg, ast.Constant):
            return
        if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id == "sql_text":
            return  # a file of sql/, never formatted
        if isinstance(arg, ast.JoinedStr):
            for part in arg.values:
                if isinstance(part, ast.FormattedValue) and not _is_identifier_hole(part.value):
                    hole = ast.unparse(part.value)
                    if (self.rel, hole) not in TOLERATED:
                        self._flag(lineno, f"f-string hole {{{hole}}} in SQL is not a table/view name")
            return
        if isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.Mod):
            return self._flag(lineno, "SQL built with % formatting")
        if isinstance(arg, ast.BinOp) and isinstance(arg.op, ast.Add):
            for side in (arg.left, arg.right):
                self._check_sql(side, lineno, depth)
            return
        if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and arg.func.attr in {"format", "format_map"}:
            return self._flag(lineno, "SQL built with .format()")
        if isinstance(arg, ast.Name) and depth < 3:
            values = self.assigned[-1].get(arg.id) or self.assigned[0].get(arg.id)
            if values is None:
                return self._flag(lineno, f"SQL from variable {arg.id!r} whose value this checker cannot see")
            for value in values:
                self._check_sql(value, lineno, depth + 1)
            return
        self._flag(lineno, f"SQL from an expression the checker cannot vouch for: {ast.unparse(arg)[:80]}")


def sql_problems(source: str, rel: str = "<snippet>") -> list[str]:
    tree = ast.parse(source)
    checker = _Checker(rel)
    module_scope: dict[str, list[ast.AST]] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    module_scope.setdefault(target.id, []).append(node.value)
    checker.assigned = [module_scope]
    checker.visit(tree)
    return checker.problems


@pytest.mark.parametrize("snippet", [
    'conn.execute(f"select * from t where name = \'{value}\'")',
    'conn.sql(f"select * from {table} where x = {row[\'x\']}")',
    'conn.execute("select * from t where x = %s" % value)',
    'conn.execute("select * from t where x = {}".format(value))',
    'conn.sql("select * from t where x = \'" + value + "\'")',
    'def f(v):\n    q = f"delete from t where id = {v}"\n    conn.execute(q)',
    'conn.sql(sql_text("x").format(v))',
])
def test_checker_flags_values_spliced_into_sql(snippet):
    assert sql_problems(snippet), snippet


@pytest.mark.parametrize("snippet", [
    'conn.execute("select * from t where x = ?", [value])',
    'conn.sql("select * from t where x = $x", params={"x": value})',
    'conn.sql(f"select count(*) from {name}")',
    'conn.execute(sql_text(name))',
    'def f(table):\n    q = f"describe {table}"\n    conn.sql(q)',
])
def test_checker_accepts_parameters_and_table_names(snippet):
    assert sql_problems(snippet) == [], snippet


def test_no_value_is_formatted_into_sql_anywhere_in_pipelines():
    problems = []
    files = sorted((REPO / "pipelines").rglob("*.py"))
    assert len(files) > 20
    for path in files:
        rel = path.relative_to(REPO).as_posix()
        problems += sql_problems(path.read_text(encoding="utf-8"), rel)
    assert problems == [], "\n".join(problems)


def test_sql_files_are_static():
    """sql/**/*.sql hold no Python or Jinja placeholders: nothing is formatted into them."""
    files = sorted((REPO / "sql").rglob("*.sql"))
    assert files
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"\{\{|\{%|\{[a-z_][a-z0-9_]*\}|%\(|%s\b", text), path.name


def test_sql_text_is_never_formatted():
    for path in sorted((REPO / "pipelines").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"sql_text\([^)]*\)\s*(\.format|%)", text), path


# ---- rendering reads nothing outside templates/ and no network URL ------------------------------
def test_pdf_renderer_fetches_only_templates_and_data_urls(tmp_path):
    from datetime import date

    from pipelines.config import TEMPLATES_DIR
    from pipelines.publish.pdf import TemplatesOnlyFetcher, render_pdf

    secret = tmp_path / "secret.css"
    secret.write_text("body { color: red }")
    outside = [
        secret.as_uri(),
        (REPO / "raw" / "report.toml").as_uri(),
        (TEMPLATES_DIR / ".." / "raw" / "report.toml").as_uri(),  # ../ out of templates/
        "http://127.0.0.1:9/x.css",
        "https://example.com/logo.png",
        "ftp://example.com/a.png",
    ]
    inside = (TEMPLATES_DIR / "report.css").as_uri()
    html = (
        "<html><head>"
        + "".join(f'<link rel="stylesheet" href="{u}">' for u in outside)
        + f'<link rel="stylesheet" href="{inside}">'
        + "</head><body><p>x</p>"
        + "".join(f'<img src="{u}">' for u in outside)
        + '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">'
        + "</body></html>"
    )
    fetcher = TemplatesOnlyFetcher()
    pdf = render_pdf(html, created=date(2025, 6, 1), fetcher=fetcher)
    assert pdf.startswith(b"%PDF-")
    refused = set(fetcher.refused)
    for url in outside:
        assert any(url.split("/")[-1] in r for r in refused), (url, refused)
    assert inside not in refused


def test_jinja_loads_templates_from_templates_folder_only():
    import jinja2

    from pipelines.config import TEMPLATES_DIR
    from pipelines.publish.render import environment

    env = environment()
    assert isinstance(env.loader, jinja2.FileSystemLoader)
    assert [Path(p).resolve() for p in env.loader.searchpath] == [TEMPLATES_DIR.resolve()]
    assert env.autoescape is True or env.autoescape("x.html.j2")
    with pytest.raises(jinja2.TemplateNotFound):
        env.get_template("../raw/report.toml")


# ---- the Dagster webserver binds 127.0.0.1 unless told otherwise --------------------------------
def test_ui_listens_on_localhost_by_default(monkeypatch):
    from pipelines.cli import parser
    from pipelines.config import INSTANCE_YAML
    from pipelines.ui import dg_dev_command

    makefile = (REPO / "Makefile").read_text()
    assert re.search(r"^UI_HOST \?= 127\.0\.0\.1$", makefile, re.M)
    assert "--host '$(UI_HOST)'" in makefile
    monkeypatch.delenv("UI_HOST", raising=False)
    assert parser().parse_args(["ui"]).host == "127.0.0.1"
    command = dg_dev_command("127.0.0.1", 3000)
    assert command[command.index("--host") + 1] == "127.0.0.1"
    for path in [REPO / "Makefile", REPO / "scripts" / "ui.sh", INSTANCE_YAML, REPO / "pipelines" / "ui.py",
                 REPO / "pipelines" / "cli.py"]:
        assert "0.0.0.0" not in path.read_text(), path


# ---- no secrets in the repository ---------------------------------------------------------------
SECRET_PATTERNS = [
    re.compile(r"AKIA[0-9A-Z]{16}"),                                   # AWS access key id
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    re.compile(r"gh[pousr]_[A-Za-z0-9]{36}"),                          # GitHub tokens
    re.compile(r"xox[baprs]-[A-Za-z0-9-]{10,}"),                       # Slack tokens
    re.compile(r"AIza[0-9A-Za-z_\-]{35}"),                             # Google API keys
    re.compile(r"(?i)\b(password|passwd|secret|api_key|apikey|access_token)\b\s*[:=]\s*['\"][^'\"\s]{8,}['\"]"),
]


def test_no_secrets_in_tracked_files():
    files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout.split(b"\0")
    files = [f.decode() for f in files if f]
    assert files
    assert not [f for f in files if Path(f).name in {".env", ".env.local", "credentials", "id_rsa"}]
    found = []
    for rel in files:
        path = REPO / rel
        if not path.is_file() or path.stat().st_size > 5_000_000:
            continue
        text = path.read_bytes().decode("utf-8", "replace")
        found += [f"{rel}: {p.pattern}" for p in SECRET_PATTERNS if p.search(text)]
    assert found == [], found
