"""The scenario-file helpers the hex games share (cardwar.envs.scenario_files): one-line errors."""

from __future__ import annotations

import pytest

from cardwar.envs.scenario_files import (
    FieldReader, load_yaml, read_text, resolve_path, shipped_names, yaml_error_line)


class Oops(ValueError):
    pass


def _unknown(name: str) -> str:
    return f"unknown thing {name!r}"


def test_shipped_names_and_resolve(tmp_path, monkeypatch):
    (tmp_path / "b.yaml").write_text("x: 1\n")
    (tmp_path / "a.yaml").write_text("x: 2\n")
    (tmp_path / "c.txt").write_text("no")
    assert shipped_names(tmp_path) == ["a", "b"]
    assert resolve_path("a", tmp_path, Oops, _unknown) == tmp_path / "a.yaml"
    assert str(resolve_path("else/where", tmp_path, Oops, _unknown)) == "else/where"
    assert str(resolve_path("new.yml", tmp_path, Oops, _unknown)) == "new.yml"
    monkeypatch.chdir(tmp_path)
    with pytest.raises(Oops, match=r"^unknown thing 'zz'$"):
        resolve_path("zz", tmp_path, Oops, _unknown)


def test_read_and_load_errors_are_one_line(tmp_path):
    (tmp_path / "ok.yaml").write_text("x: [1, 2]\n")
    assert load_yaml(tmp_path / "ok.yaml", Oops) == {"x": [1, 2]}
    cases = {
        tmp_path: "is a folder, not a map file (give a .yaml file)",
        tmp_path / "none.yaml": "no such map file",
    }
    (tmp_path / "bin.yaml").write_bytes(b"\xff\xfe\x00")
    cases[tmp_path / "bin.yaml"] = "not a text file (a map is UTF-8 YAML text)"
    (tmp_path / "nul.yaml").write_bytes(b"a: 1\x00\n")
    cases[tmp_path / "nul.yaml"] = "not a text file (a map is UTF-8 YAML text)"
    for path, message in cases.items():
        with pytest.raises(Oops) as info:
            read_text(path, Oops, "map")
        assert str(info.value) == f"{path}: {message}"
    (tmp_path / "bad.yaml").write_text("a: [1, 2\nb: 3\n")
    with pytest.raises(Oops) as info:
        load_yaml(tmp_path / "bad.yaml", Oops)
    assert str(info.value).startswith(f"{tmp_path / 'bad.yaml'}: not valid YAML: ")
    assert "\n" not in str(info.value) and "at line" in str(info.value)


def test_yaml_error_line_without_a_mark():
    assert yaml_error_line(ValueError("two\n  lines")) == "two lines"


class _Reader(FieldReader):
    error = Oops
    one_line = True


def test_field_reader_names_source_and_field():
    rd = _Reader("f.yaml")
    assert rd.mapping({"a": 1}, "top", {"a"}, {"b"}) == {"a": 1}
    assert rd.integer(3, "n", 1, 5) == 3
    for call, message in [
        (lambda: rd.mapping([], "top", {"a"}, set()), "f.yaml: top: expected a mapping, got list"),
        (lambda: rd.mapping({}, "top", {"a", "b"}, set()), "f.yaml: top: missing field(s) a, b"),
        (lambda: rd.mapping({"a": 1, "z": 2}, "top", {"a"}, {"b"}), "f.yaml: top: unknown field(s) z; known: a, b"),
        (lambda: rd.integer(True, "n", 1, 5), "f.yaml: n: expected an integer 1..5, got True"),
        (lambda: rd.integer(9, "n", 1, 5), "f.yaml: n: expected an integer 1..5, got 9"),
    ]:
        with pytest.raises(Oops) as info:
            call()
        assert str(info.value) == message
    assert str(_Reader("f.yaml").fail("x", "two\n lines")) == "f.yaml: x: two lines"
    assert str(FieldReader("f.yaml").fail("x", "two\n lines")) == "f.yaml: x: two\n lines"
    assert type(FieldReader("f.yaml").fail("x", "y")) is ValueError
