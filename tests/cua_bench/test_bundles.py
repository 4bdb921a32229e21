"""Task folders travel by content (``cua_bench.bundles``): a path on the host reaches the env server as its
files, checked against their digest, wherever the server runs."""

from __future__ import annotations

import contextlib
import os
import tempfile
import threading
from pathlib import Path

import pytest
from support.task_folders import task_folder

from cua_bench import make
from cua_bench.bundles import PREFIX, BundleCache, _digest, bundle_of
from cua_bench.tasks import TaskError


def test_a_folder_is_its_files_and_an_edit_changes_the_digest(tmp_path: Path) -> None:
    folder = task_folder(tmp_path)
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"\0")
    (folder / "gui").mkdir()
    (folder / "gui" / "index.html").write_text("<p>hi</p>")
    first = bundle_of(folder)
    assert sorted(first.files) == ["hello/answer.txt", "hello/gui/index.html", "hello/main.py"]
    assert first.task == "hello" and first.ref == f"{PREFIX}{first.digest}/hello"
    assert bundle_of(folder).digest == first.digest
    (folder / "answer.txt").write_text("43")
    os.utime(folder / "answer.txt", ns=(1, 1))  # a new mtime, whatever the clock's resolution
    assert bundle_of(folder).digest != first.digest
    # One task file travels with its folder: its name (OSWorld's domain) and the files a task names beside it.
    one, whole = bundle_of(folder / "main.py"), bundle_of(folder)
    assert one.files == whole.files and one.digest == whole.digest and one.task == "hello/main.py"


def test_the_cache_keeps_only_what_the_digest_says_and_inside_itself(tmp_path: Path) -> None:
    good = bundle_of(task_folder(tmp_path))
    cache = BundleCache()
    try:
        assert not cache.holds(good.digest)
        with pytest.raises(TaskError, match="do not match their digest"):
            cache.put(good.digest, {**good.files, "hello/extra.py": b"x"})
        for evil in ({"../outside.py": b"x"}, {"/etc/x": b"x"}, {"a/../../b": b"x"}):
            with pytest.raises(TaskError, match="not a relative path inside the task"):
                cache.put(_digest(evil), evil)
        with pytest.raises(TaskError, match="is not a sha256 hex digest"):
            cache.put("../x", good.files)
        cache.put(good.digest, good.files)
        assert cache.holds(good.digest)
        assert (cache.path(good.ref) / "answer.txt").read_text() == "42"
        with pytest.raises(TaskError, match=r"no bundle 000000000000 was sent to this env server"):
            cache.path(f"{PREFIX}{'0' * 64}/hello")
    finally:
        cache.close()


def test_a_missing_path_is_named() -> None:
    with pytest.raises(TaskError, match="does not exist here"):
        bundle_of("no/such/task")


def test_a_relative_path_runs_from_another_working_folder_than_the_servers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task_folder(tmp_path / "tasks")
    monkeypatch.chdir("/")
    with make(backend="sim", observes="none") as env:  # the server's working folder is /, the caller's is not
        monkeypatch.chdir(tmp_path / "tasks")
        env.reset(options={"task": "hello"})
        assert env.evaluate() == 1.0
        (tmp_path / "tasks" / "hello" / "answer.txt").write_text("41")  # edited between episodes: sent again
        os.utime(tmp_path / "tasks" / "hello" / "answer.txt", ns=(2, 2))
        env.reset(options={"task": "./hello"})
        assert env.evaluate() == 0.0


def test_a_server_leaves_no_cache_behind_and_a_killed_ones_is_removed_by_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Servers left their task cache under /tmp at every exit (1,271 of 2,464 entries of a CI machine's
    /tmp); one killed with -9 cannot remove its own, so the next cache made removes it."""
    monkeypatch.delenv("CUA_LOCAL_ROOT", raising=False)
    dead = Path(tempfile.gettempdir()) / "cua-tasks-999999999-x"  # above any pid_max: never alive
    dead.mkdir(exist_ok=True)
    (dead / "f").write_text("x")
    folder = task_folder(tmp_path / "tasks")
    with make(backend="sim", observes="none") as env:
        env.reset(options={"task": str(folder)})
        assert env.evaluate() == 1.0
        pid = env.info()["pid"]
        assert list(Path(tempfile.gettempdir()).glob(f"cua-tasks-{pid}-*"))
    assert not dead.exists()
    assert not list(Path(tempfile.gettempdir()).glob(f"cua-tasks-{pid}-*"))


def test_what_the_agent_changes_in_the_cache_is_put_back_before_it_is_read(tmp_path: Path) -> None:
    """The cache is the server's user's, which on an isolated or container desktop is the agent's: a
    terminal could edit the answer a task's evaluator reads, plant files or links, or take a folder's
    access away. Every path is put back as sent and named; compiled caches are removed unnamed."""
    good = bundle_of(task_folder(tmp_path))
    cache = BundleCache()
    try:
        cache.put(good.digest, good.files)
        folder = cache.path(good.ref)
        assert cache.restore(good.ref) == []
        (folder / "answer.txt").write_text("41")
        (folder / "extra.py").write_text("x = 1")
        (folder / "__pycache__").mkdir()
        (folder / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"planted")
        (folder / "helper").symlink_to("/etc")
        with open(folder / "huge.bin", "wb") as huge:  # 16 GiB, sparse: never read, only named and removed
            huge.truncate(2**34)
        assert cache.restore(good.ref) == ["hello/answer.txt", "hello/extra.py", "hello/helper", "hello/huge.bin"]
        assert sorted(p.name for p in folder.iterdir()) == ["answer.txt", "main.py"]
        assert (folder / "answer.txt").read_text() == "42"
        (folder / "answer.txt").unlink()
        folder.chmod(0o500)
        assert cache.path(good.ref) == folder and (folder / "answer.txt").read_text() == "42"
        assert os.stat(folder).st_mode & 0o777 != 0o500  # made anew, writable by its owner again
        whole = folder.parent
        os.rename(whole, tmp_path / "moved")
        whole.symlink_to(tmp_path / "moved")
        assert cache.restore(good.ref) == ["hello/answer.txt", "hello/main.py"]
        assert not whole.is_symlink() and (folder / "answer.txt").read_text() == "42"
    finally:
        cache.close()


def test_an_answer_edited_in_the_servers_cache_during_an_episode_is_not_what_it_scores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The evaluator reads ``answer.txt`` beside its ``main.py``; editing the server's copy (as the agent's
    user can on a desktop whose server runs as that user) changed the reward before the cache put it back."""
    monkeypatch.delenv("CUA_LOCAL_ROOT", raising=False)
    folder = task_folder(tmp_path / "tasks")
    with make(backend="sim", observes="none") as env:
        env.reset(options={"task": str(folder)})
        (cached,) = Path(tempfile.gettempdir()).glob(f"cua-tasks-{env.info()['pid']}-*/*/hello/answer.txt")
        cached.write_text("41")
        assert env.evaluate() == 1.0
        assert cached.read_text() == "42"
        cached.write_text("41")  # between episodes: the next reset puts it back
        env.reset(options={"task": str(folder)})
        assert cached.read_text() == "42" and env.evaluate() == 1.0


def test_a_process_writing_the_cache_while_the_evaluator_reads_it_earns_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process the agent leaves running writes the cached answer in a loop: the put-back before the
    evaluation was undone at once, and the evaluator read the forged answer (1.0)."""
    monkeypatch.delenv("CUA_LOCAL_ROOT", raising=False)
    folder = task_folder(tmp_path / "tasks", scores="41", pause=0.5)  # "41" is never there unless forged
    stop = threading.Event()
    with make(backend="sim", observes="none") as env:
        env.reset(options={"task": str(folder)})
        (cached,) = Path(tempfile.gettempdir()).glob(f"cua-tasks-{env.info()['pid']}-*/*/hello/answer.txt")

        def forge() -> None:  # in place, never truncated: the file always holds a whole answer
            while not stop.is_set():
                with contextlib.suppress(OSError):
                    fd = os.open(cached, os.O_WRONLY)
                    try:
                        os.write(fd, b"41")
                    finally:
                        os.close(fd)

        writer = threading.Thread(target=forge, daemon=True)
        writer.start()
        try:
            reward = env.evaluate()
        finally:
            stop.set()
            writer.join()
        assert reward == 0.0
        env.reset(options={"task": str(folder)})  # put back, and an honest episode scores as before
        assert cached.read_text() == "42" and env.evaluate() == 0.0


def test_a_seal_names_every_write_even_one_undone_and_only_those(tmp_path: Path) -> None:
    """An answer forged and put back before the evaluation ends leaves the same bytes; its change time
    (which no user can set back) still moved. A file only read, or a folder only listed, moves nothing."""
    good = bundle_of(task_folder(tmp_path))
    cache = BundleCache()
    try:
        cache.put(good.digest, good.files)
        folder = cache.path(good.ref)
        assert cache.broken(good.ref) == []  # never sealed: nothing to compare
        cache.seal(good.ref)  # the files were just written: it waits for them to settle
        (folder / "answer.txt").read_text()
        list(folder.iterdir())
        assert cache.broken(good.ref) == []
        with open(folder / "answer.txt", "r+b") as answer:
            answer.write(b"41")
            answer.seek(0)
            answer.write(b"42")
        assert (folder / "answer.txt").read_text() == "42"
        assert cache.broken(good.ref) == ["hello/answer.txt"]
        assert cache.seal(good.ref) == [] and cache.broken(good.ref) == []  # same bytes: nothing put back
        os.rename(folder / "main.py", folder / "main.bak")  # swapped out and back in
        os.rename(folder / "main.bak", folder / "main.py")
        (folder / "__pycache__").mkdir()
        assert cache.broken(good.ref) == ["hello", "hello/__pycache__", "hello/main.py"]
        cache.seal(good.ref)
        os.chmod(folder / "answer.txt", 0o600)
        assert cache.broken(good.ref) == ["hello/answer.txt"]
        assert cache.seal(good.ref, tries=0) == [] and cache.broken(good.ref) == ["<the whole bundle>"]
    finally:
        cache.close()
