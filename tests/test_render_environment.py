"""The Jinja environment is made once per templates folder and keeps its compiled templates, yet an
edited template is rendered as edited (the UI's code server lives for days)."""

import os

from pipelines.config import TEMPLATES_DIR
from pipelines.publish.render import environment


def test_templates_are_compiled_once_per_process(tmp_path):
    (tmp_path / "page.html.j2").write_text("<p>{{ name }}</p>")
    first = environment(tmp_path).get_template("page.html.j2")
    assert environment(tmp_path).get_template("page.html.j2") is first  # the same compiled template, not a new one
    assert first.render(name="a & b") == "<p>a &amp; b</p>"


def test_an_edited_template_is_rendered_as_edited(tmp_path):
    page = tmp_path / "page.html.j2"
    page.write_text("<p>old {{ name }}</p>")
    assert environment(tmp_path).get_template("page.html.j2").render(name="x") == "<p>old x</p>"
    page.write_text("<p>new {{ name }}</p>")
    later = os.stat(page).st_mtime + 10
    os.utime(page, (later, later))  # a later modification time, whatever the file system's clock resolution
    assert environment(tmp_path).get_template("page.html.j2").render(name="x") == "<p>new x</p>"


def test_one_environment_per_folder_however_it_is_named(tmp_path):
    assert environment() is environment(TEMPLATES_DIR) is environment(str(TEMPLATES_DIR))
    assert environment(tmp_path) is environment(tmp_path / ".") is not environment()
