"""The desktop taskset's shared evaluator pieces that explain a short end state (``task.explain``), and the
allowance for the files an app writes by itself."""

from __future__ import annotations

from cua_bench.filestate import FileState
from cua_bench_tasks_desktop._common import app_wrote, text_difference


class _Task:
    def __init__(self) -> None:
        self.why: list[str] = []

    def explain(self, text: str) -> None:
        self.why.append(text)


def test_text_difference_names_the_first_line_that_parts() -> None:
    assert text_difference("a\nb\nc\n", "a\nB\nc\n") == "line 2 is 'b', not 'B'"
    assert text_difference("a\nb\n", "a\nb\nc") == "2 lines, not 3"
    assert text_difference(None, "a") == "no such file (or not a plain file with one link)"


def _file(sha: str = "a", mode: int = 0o644, mtime: int = 1, links: int = 1) -> FileState:
    return FileState("file", sha, 3, mode, 7, links, mtime)


def _wrote(before: dict[str, FileState], after: dict[str, FileState], *, rewrites_unchanged: bool = False) -> bool:
    task = _Task()
    found = app_wrote(task, before, after, ["app.conf", "app"], "App", rewrites_unchanged=rewrites_unchanged)  # type: ignore[arg-type]
    assert found == (task.why == []), task.why  # a refusal always says why, and only a refusal
    return found


def test_an_apps_own_files_may_change_only_by_being_written() -> None:
    before = {"app.conf": _file(), "notes/a.txt": _file()}
    assert _wrote(before, {"app.conf": _file("b", mtime=2)})  # rewritten
    assert _wrote(before, {})  # removed: such files are never an answer
    assert _wrote(before, {"app/new.db": _file()})  # added inside an own folder
    assert not _wrote(before, {"app.conf": _file(mode=0o777)})  # chmod
    assert not _wrote(before, {"app.conf": _file(mtime=2)})  # touched: same content, a new time
    assert _wrote(before, {"app.conf": _file(mtime=2)}, rewrites_unchanged=True)  # an app that rewrites all
    assert not _wrote(before, {"app.conf": _file("b", mtime=0)}, rewrites_unchanged=True)  # time set back
    assert not _wrote(before, {"app.conf": _file("b", mtime=2, links=2)})  # a hard link
    assert not _wrote(before, {"app.conf": FileState("link", "notes/a.txt")})  # a symbolic link
    folder = {"app": FileState("dir", "", 0, 0o755, 8, 2, 1)}
    assert _wrote(folder, {"app": FileState("dir", "", 0, 0o755, 8, 2, 5)})  # a folder's time moves with entries
    assert not _wrote(folder, {"app": FileState("dir", "", 0, 0o777, 8, 2, 1)})
    # Paths outside ``own`` are nothing_else_changed's business, not this check's.
    assert _wrote(before, {"app.conf": _file(), "notes/a.txt": _file(mode=0o777, links=2)})
    assert _wrote(before, {"application.conf": FileState("link", "x")})  # a sibling name is not inside "app"
