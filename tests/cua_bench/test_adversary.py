"""The adversary of ``cua-bench check``: each mutation does what it says, as the desktop's user, and
``check_task`` reports a task whose reward a mutation earns (a weak task written here), unless waived."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import textwrap
from pathlib import Path
from typing import ClassVar

import pytest
from support.office_files import docx_doc, odp, ods, odt, pptx_deck, xlsx
from support.shell_home import Home, snap

from cua_bench.adversary import MUTATIONS, ShellHands, State, waivers
from cua_bench.adversary.episode import setup_files
from cua_bench.checks import MutationTally, check_task
from cua_bench.office import document_format, format_of, parse
from cua_core.errors import CuaError


@pytest.fixture
def oracle_done(tmp_path: Path) -> tuple[Path, State]:
    """Setup made docs/{a,b,gone}.txt; the "oracle" deleted gone.txt, copied a.txt and wrote out.txt."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("a", "b", "gone"):
        (docs / f"{name}.txt").write_text(f"{name}\n")
    before = snap(tmp_path)
    kept = {path: (tmp_path / path).read_bytes() for path, state in before.items() if state.kind == "file"}
    (docs / "gone.txt").unlink()
    (docs / "copy.txt").write_text("a\n")
    (docs / "out.txt").write_text("result\n")
    state = State(before, kept, snap(tmp_path), {"docs/out.txt": b"result\n"})
    return tmp_path, state


def mutate(root: Path, state: State, name: str) -> list[str]:
    return asyncio.run(MUTATIONS[name].apply(ShellHands(Home(root)), state))


def test_shell_hands_write_a_file_larger_than_a_command_line_can_carry(tmp_path: Path) -> None:
    """An 800 KB calendar database failed with "Argument list too long" when its base64 was one command."""
    data = bytes(range(256)) * 3200  # 800 KiB: its base64 is ~1 MiB, 8 times what one argument may hold
    asyncio.run(ShellHands(Home(tmp_path)).write("profile/calendar/local.sqlite", data))
    assert (tmp_path / "profile" / "calendar" / "local.sqlite").read_bytes() == data
    asyncio.run(ShellHands(Home(tmp_path)).write("small.txt", b"one line\n"))
    assert (tmp_path / "small.txt").read_bytes() == b"one line\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["profile", "small.txt"]  # no staging file left here


def test_hidden_instead_of_delete_brings_the_file_back_hidden(oracle_done: tuple[Path, State]) -> None:
    root, state = oracle_done
    assert mutate(root, state, "hidden-instead-of-delete") == ["docs/gone.txt kept as docs/.gone.txt"]
    assert (root / "docs" / ".gone.txt").read_text() == "gone\n"


def test_hard_link_and_symlink_replace_the_copy(oracle_done: tuple[Path, State]) -> None:
    root, state = oracle_done
    assert mutate(root, state, "hard-link-instead-of-copy") == ["docs/copy.txt hard-linked to docs/a.txt"]
    assert os.stat(root / "docs" / "copy.txt").st_ino == os.stat(root / "docs" / "a.txt").st_ino
    state.after = snap(root)
    mutate(root, state, "symlink-instead-of-copy")
    assert (root / "docs" / "copy.txt").is_symlink() and (root / "docs" / "copy.txt").read_text() == "a\n"


def test_chmod_and_touch_pick_an_untouched_file(oracle_done: tuple[Path, State]) -> None:
    root, state = oracle_done
    mtime = os.stat(root / "docs" / "a.txt").st_mtime
    assert mutate(root, state, "chmod-untouched") == ["docs/a.txt chmod 777"]
    assert os.stat(root / "docs" / "a.txt").st_mode & 0o777 == 0o777
    assert mutate(root, state, "touch-untouched") == ["docs/a.txt modification time an hour earlier"]
    assert os.stat(root / "docs" / "a.txt").st_mtime <= mtime - 3599


def test_blank_lines_and_stray_copies_go_to_what_the_oracle_made(oracle_done: tuple[Path, State]) -> None:
    root, state = oracle_done
    assert sorted(mutate(root, state, "trailing-blank-lines")) == [
        "docs/copy.txt + three blank lines",
        "docs/out.txt + three blank lines",
    ]
    assert (root / "docs" / "out.txt").read_text() == "result\n\n\n\n"
    mutate(root, state, "extra-file")
    assert (root / "docs" / ".out.txt~").exists()


def test_forged_write_writes_what_the_evaluation_read_and_skips_what_it_cannot(oracle_done: tuple[Path, State]) -> None:
    root, state = oracle_done
    (root / "docs" / "out.txt").unlink()
    assert mutate(root, state, "forged-write") == ["docs/out.txt written with what the oracle's evaluation read"]
    assert (root / "docs" / "out.txt").read_text() == "result\n"
    # A record the desktop's user cannot write (here: under a file, where no folder can be made) is
    # out of the adversary's reach, as it is out of the agent's: skipped, not an error.
    state.reads = {"docs/a.txt/record": b"x"}
    assert mutate(root, state, "forged-write") == []


def test_workbook_mutations_reach_ods_and_xlsx_saved_by_the_oracle_and_never_libreoffices_lock(tmp_path: Path) -> None:
    """An .ods and an .xlsx the oracle saved get each workbook mutation in their own format; the lock
    LibreOffice keeps beside them is no file the oracle made (no mutation touches it)."""
    (tmp_path / "book.ods").write_bytes(b"seed")
    before = snap(tmp_path)
    (tmp_path / "book.ods").write_bytes(ods())
    (tmp_path / "book.xlsx").write_bytes(xlsx())
    (tmp_path / ".~lock.book.ods#").write_text(",user,host,06.12.2026 07:35,file:///home/user;\n")
    state = State(before, {"book.ods": b"seed"}, snap(tmp_path))
    assert sorted(state.made()) == ["book.ods", "book.xlsx"]
    assert sorted(mutate(tmp_path, state, "numbers-as-text")) == [
        "book.ods: numbers stored as text",
        "book.xlsx: numbers stored as text",
    ]
    assert parse((tmp_path / "book.xlsx").read_bytes()).sheets["Sheet1"].cells[(1, 1)].kind == "text"  # type: ignore[union-attr]
    mutate(tmp_path, state, "extra-sheet")
    assert len(parse((tmp_path / "book.ods").read_bytes()).sheets) == 3  # type: ignore[union-attr]
    mutate(tmp_path, state, "wrong-format")
    assert (
        format_of((tmp_path / "book.ods").read_bytes()) is None
        and format_of((tmp_path / "book.xlsx").read_bytes()) is None
    )


def test_document_mutations_reach_each_text_document_and_presentation_the_oracle_saved(tmp_path: Path) -> None:
    files = {
        "a.odt": odt(["Title", "Body"]),
        "a.docx": docx_doc(["Body"]),
        "a.odp": odp(["One"]),
        "a.pptx": pptx_deck(["One"]),
    }
    before = snap(tmp_path)
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    state = State(before, {}, snap(tmp_path))
    assert sorted(mutate(tmp_path, state, "extra-paragraph")) == [
        "a.docx: an extra paragraph",
        "a.odt: an extra paragraph",
    ]
    assert sorted(mutate(tmp_path, state, "extra-slide")) == ["a.odp: an extra slide", "a.pptx: an extra slide"]
    assert len(mutate(tmp_path, state, "wrong-format")) == 4
    assert all(document_format((tmp_path / name).read_bytes()) is None for name in files)
    assert not MUTATIONS["extra-slide"].applies(ShellHands(Home(tmp_path)), State(before, {}, before))


def test_waivers_need_a_known_mutation_and_a_reason() -> None:
    class Module:
        __file__ = "main.py"
        WAIVED: ClassVar[dict[str, str]] = {"forged-write": "the file read is the asked-for output"}

    assert waivers(Module) == {"forged-write": "the file read is the asked-for output"}
    Module.WAIVED = {"no-such-mutation": "a long enough reason"}
    with pytest.raises(CuaError, match="not a mutation"):
        waivers(Module)
    Module.WAIVED = {"forged-write": ""}
    with pytest.raises(CuaError, match="needs a written reason"):
        waivers(Module)


WEAK_TASK = '''
"""A delete judged only by the path being gone: what the red team beat with a hidden rename."""
import cua_bench as cb
from cua_bench_tasks_sim._desktop_common import DOCS, Screen, desktop, fresh, seed_files
{waived}

@cb.tasks_config(split="test")
def load():
    return [cb.Task(description="Delete notes.txt in the file browser.", metadata={{"name": "notes.txt"}})]


@cb.setup_task
async def setup(task, session):
    sim = fresh(session)
    seed_files(sim, {{f"{{DOCS}}/notes.txt": "notes\\n", f"{{DOCS}}/keep.txt": "keep\\n"}})
    await session.launch("files", folder=DOCS)


@cb.evaluate_task
async def evaluate(task, session):
    sim = desktop(session)
    return [0.0 if sim.fs.exists(f"{{DOCS}}/notes.txt") or not sim.windows() else 1.0]


@cb.solve_task
async def solve(task, session):
    screen = Screen(session)
    browser = await screen.open_in_browser([])
    await screen.click(await screen.list_item(browser, "Files", "notes.txt"))
    await screen.keys("delete")
'''


def task_folder(folder: Path, source: str) -> Path:
    """A task folder whose main.py is ``source``."""
    folder.mkdir(parents=True)
    (folder / "main.py").write_text(textwrap.dedent(source))
    return folder


def weak_task(root: Path, waived: str = "") -> Path:
    return task_folder(root / "weak-delete", WEAK_TASK.format(waived=waived))


def test_check_reports_a_reward_a_mutation_earns(tmp_path: Path) -> None:
    tally = MutationTally()
    problems = check_task(weak_task(tmp_path), backend="sim", tally=tally)
    assert problems == [
        "weak-delete test/0: the mutation 'hidden-instead-of-delete' (Documents/notes.txt kept as "
        "Documents/.notes.txt) scores 1.0, not 0"
    ]
    assert tally.applied >= 1 and tally.passing == problems


def test_a_waived_mutation_is_not_played_and_its_reason_is_reported(tmp_path: Path) -> None:
    waived = 'WAIVED = {"hidden-instead-of-delete": "this test task keeps no hidden files apart"}'
    tally = MutationTally()
    assert check_task(weak_task(tmp_path, waived), backend="sim", tally=tally) == []
    assert tally.waived == {"weak-delete: hidden-instead-of-delete": "this test task keeps no hidden files apart"}


def test_the_check_command_names_the_hole_and_shows_each_waiver(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from cua_bench.cli import main

    result = CliRunner().invoke(main, ["check", str(weak_task(tmp_path / "a"))])
    assert result.exit_code == 1
    assert "the mutation 'hidden-instead-of-delete'" in result.output and "1 problem(s)" in result.output
    waived = 'WAIVED = {"hidden-instead-of-delete": "this test task keeps no hidden files apart"}'
    result = CliRunner().invoke(main, ["check", str(weak_task(tmp_path / "b", waived))])
    assert result.exit_code == 0, result.output
    assert "waived weak-delete: hidden-instead-of-delete: this test task keeps no hidden files apart" in result.output
    result = CliRunner().invoke(main, ["check", "--no-adversary", str(weak_task(tmp_path / "c"))])
    assert result.exit_code == 0 and "mutation" not in result.output


WEAK_FORM = '''
"""Type a name into the Greeting window: judged by the name being in some field, of any window."""
import cua_bench as cb
from cua_core.actions import Click, TypeText


@cb.tasks_config(split="test")
def load():
    return [cb.Task(description="Type Ada into the Name field of the Greeting window.")]


@cb.setup_task
async def setup(task, session):
    for title in ("Notes", "Greeting"):
        session.sim.launch("form", title=title, widgets=[{"type": "textfield", "name": "Name"}])


@cb.evaluate_task
async def evaluate(task, session):
    fields = [w for win in session.sim.windows() for w in win.all_widgets() if getattr(w, "role", "") == "textbox"]
    return [1.0 if any(field.text == "Ada" for field in fields) else 0.0]


@cb.solve_task
async def solve(task, session):
    greeting = next(n for n in await session.accessibility_tree() if n["name"] == "Greeting")
    field = cb.find([greeting], role="textbox", name="Name")
    await session.apply([Click(cb.center(field)), TypeText("Ada")])
'''


def test_the_result_left_in_another_window_is_caught(tmp_path: Path) -> None:
    folder = task_folder(tmp_path / "weak-form", WEAK_FORM)
    # Ada typed into the other window; or into both, the Notes window's field given an "x"; or Notes closed.
    assert caught(check_task(folder, backend="sim")) == [
        "untouched-input-changed",
        "untouched-window-closed",
        "wrong-window",
    ]


WEAK_WIDGETS = '''
"""Tick Apples and choose Cherry: judged by Apples being ticked and something being chosen."""
import cua_bench as cb
from cua_core.actions import Click


@cb.tasks_config(split="test")
def load():
    return [cb.Task(description="In the Choose window, tick Apples and choose Cherry in the list.")]


@cb.setup_task
async def setup(task, session):
    session.sim.launch("form", title="Notes", widgets=[{{"type": "label", "text": "nothing to do here"}}])
    boxes = [{{"type": "checkbox", "name": n}} for n in ("Apples", "Pears")]
    fruit = {{"type": "list", "name": "Fruit", "items": ["Apple", "Banana", "Cherry", "Damson"]}}
    session.sim.launch("form", title="Choose", widgets=[*boxes, fruit])


@cb.evaluate_task
async def evaluate(task, session):
    window = next(w for w in session.sim.windows() if w.title == "Choose")
    values = {{w.name: w.value for w in window.all_widgets() if w.name}}
    {judge}


@cb.solve_task
async def solve(task, session):
    tree = await session.accessibility_tree()
    await session.apply([Click(cb.center(cb.find(tree, role="checkbox", name="Apples")))])
    await session.apply([Click(cb.center(cb.find(tree, role="listitem", name="Cherry")))])
'''


def widget_task(root: Path, judge: str) -> Path:
    return task_folder(root / "weak-widgets", WEAK_WIDGETS.format(judge=judge))


def caught(problems: list[str]) -> list[str]:
    return sorted(problem.split("the mutation '")[1].split("'")[0] for problem in problems)


def test_widget_mutations_find_collateral_overshoot_and_a_closed_window(tmp_path: Path) -> None:
    weak = "return [1.0 if values['Apples'] and values['Fruit'] is not None else 0.0]"
    assert caught(check_task(widget_task(tmp_path / "weak", weak), backend="sim")) == [
        "one-step-further",  # the list's choice a row on: "something chosen" still holds
        "untouched-input-changed",  # Pears ticked too
        "untouched-window-closed",  # the Notes window closed
    ]
    exact = (
        "others = [w for w in session.sim.windows() if w.title == 'Notes']\n"
        "    return [1.0 if values == {'Apples': True, 'Pears': False, 'Fruit': 'Cherry'} and others else 0.0]"
    )
    tally = MutationTally()
    assert check_task(widget_task(tmp_path / "exact", exact), backend="sim", tally=tally) == []
    assert tally.applied == 3


WEAK_TITLE = '''
"""Type Ada into the form and Submit, which titles it "Sent: Ada": judged by the title starting so."""
import cua_bench as cb
from cua_core.actions import Click, TypeText


@cb.tasks_config(split="test")
def load():
    return [cb.Task(description="Type Ada into the Name field and press Submit.")]


@cb.setup_task
async def setup(task, session):
    fields = [{{"type": "textfield", "name": "Name"}}, {{"type": "button", "name": "Submit"}}]
    window = session.sim.launch("form", title="Form", widgets=fields)
    window.data["on_submit"] = lambda values: setattr(window, "title", f"Sent: {{values['Name']}}")


@cb.evaluate_task
async def evaluate(task, session):
    titles = [w["title"] for w in await session.windows()]
    return [1.0 if {judge} else 0.0]


@cb.solve_task
async def solve(task, session):
    tree = await session.accessibility_tree()
    await session.apply([Click(cb.center(cb.find(tree, role="textbox", name="Name"))), TypeText("Ada")])
    await session.apply([Click(cb.center(cb.find(tree, role="button", name="Submit")))])
'''


def test_a_title_judged_by_its_start_falls_to_a_near_miss(tmp_path: Path) -> None:
    def title_task(name: str, judge: str) -> Path:
        return task_folder(tmp_path / name, WEAK_TITLE.format(judge=judge))

    weak = title_task("weak-title", "any(t.startswith('Sent: Ada') for t in titles)")
    assert "title-near-miss" in caught(check_task(weak, backend="sim"))
    exact = title_task(
        "exact-title", "titles == ['Sent: Ada'] and session.sim.windows()[0].find('textbox', 'Name').value == 'Ada'"
    )
    assert check_task(exact, backend="sim") == []


PHONE_TASK = '''
"""Rename the note "Ideas" to "Plans" on a phone: judged by {judge}."""
import copy

import cua_bench as cb
from cua_bench.nodes import center, find
from cua_bench.sim.phone import Phone
from cua_core import Tap, KeyPress, TypeText

NOTES = [{{"title": "Ideas", "body": "a phone"}}, {{"title": "Groceries", "body": "milk"}}]


@cb.tasks_config(split="test")
def load():
    return [cb.Task(description='Rename the note "Ideas" to "Plans".', computer={{"setup_config": {{"width": 360, "height": 720}}}})]


@cb.setup_task
async def setup(task, session):
    phone = Phone.install(session.sim, ["notes"])
    phone.app_data("notes")["notes"] = copy.deepcopy(NOTES)


@cb.evaluate_task
async def evaluate(task, session):
    notes = session.sim.phone.app_data("notes")["notes"]
    return [1.0 if {judge} else 0.0]


async def tap(session, role, name):
    await session.apply([Tap(center(find(await session.accessibility_tree(), role=role, name=name)))])


@cb.solve_task
async def solve(task, session):
    await tap(session, "button", "Notes")
    await tap(session, "listitem", "Ideas")
    await tap(session, "textbox", "Title")
    await session.apply([KeyPress(("ctrl", "a")), TypeText("Plans")])
'''


def test_phone_mutations_change_the_screen_left_and_another_part_of_the_phone(tmp_path: Path) -> None:
    """A phone evaluator that reads only the asked-for change is beaten by one more edit on the screen the
    oracle left (its Note text) and by an edit elsewhere (another note, opened from the list); one that
    compares the whole state is not."""
    weak = "any(n['title'] == 'Plans' for n in notes)"
    assert caught(check_task(task_folder(tmp_path / "weak", PHONE_TASK.format(judge=weak)), backend="sim")) == [
        "phone-collateral-change",
        "phone-screen-input-changed",
    ]
    whole = "notes == [{'title': 'Plans', 'body': 'a phone'}, {'title': 'Groceries', 'body': 'milk'}]"
    tally = MutationTally()
    assert check_task(task_folder(tmp_path / "whole", PHONE_TASK.format(judge=whole)), backend="sim", tally=tally) == []
    assert tally.applied >= 2


def _restore(root: Path, state: State, contents: dict[str, bytes] | None = None) -> bool:
    from cua_bench.adversary.mutations import not_the_work

    made = {p: (root / p).read_bytes() for p in state.made()} if contents is None else contents
    identities = setup_files(state)
    hands = ShellHands(Home(root))
    return asyncio.run(hands.restore(state.after, {**state.kept, **made}, kept=not_the_work, identities=identities))


def _same_but_new_files_inodes(now: dict[str, object], state: State) -> bool:
    setup = setup_files(state)
    return now.keys() == state.after.keys() and all(
        now[p] == s or (s.inode not in setup and dataclasses.replace(now[p], inode=s.inode) == s)  # type: ignore[type-var]
        for p, s in state.after.items()
    )


def test_restore_undoes_every_mutation_of_files_and_keeps_setups_files_themselves(
    oracle_done: tuple[Path, State],
) -> None:
    """What lets ``cua-bench check`` play the next mutation without playing the oracle again: after each
    mutation of files only, the files are back as the oracle left them (paths, contents, modes, times, link
    counts, folders' times), and a file setup made is still that file (its inode), not a copy of it."""
    root, state = oracle_done
    (root / "docs" / "b.txt").rename(root / "docs" / "moved.txt")  # the oracle moved one of setup's files
    state.after = snap(root)
    ended = {p: (root / p).read_bytes() for p in state.made()}
    moved = os.stat(root / "docs" / "moved.txt").st_ino
    on_files = [name for name, m in MUTATIONS.items() if m.on_files]
    assert len(on_files) == 12
    applied = []
    for name in on_files:
        if MUTATIONS[name].applies(ShellHands(Home(root)), state) and mutate(root, state, name):
            applied.append(name)
            assert snap(root) != state.after, name
        assert _restore(root, state, ended), name
        assert _same_but_new_files_inodes(snap(root), state), name  # type: ignore[arg-type]
        assert os.stat(root / "docs" / "moved.txt").st_ino == moved
    assert {
        "hidden-instead-of-delete",
        "hard-link-instead-of-copy",
        "symlink-instead-of-copy",
        "chmod-untouched",
    } <= set(applied) and {"touch-untouched", "trailing-blank-lines", "extra-file"} <= set(applied)


def test_restore_says_no_where_it_cannot_bring_the_oracles_end_state_back(oracle_done: tuple[Path, State]) -> None:
    """Setup's file replaced by a copy (its identity is gone), or a changed file whose content was not
    kept: the caller plays the oracle again."""
    root, state = oracle_done
    ended = {p: (root / p).read_bytes() for p in state.made()}
    (root / "docs" / "out.txt").write_text("changed\n")
    assert not _restore(root, state, {})  # out.txt's content was not kept
    assert _restore(root, state, ended)
    (root / "docs" / "b.new").write_text("b\n")
    (root / "docs" / "b.new").rename(root / "docs" / "b.txt")  # same content, another file
    assert not _restore(root, state, ended)


class _Env:
    """An env client that logs the calls ``play_mutations`` makes; ``restores`` answers adversary.restore."""

    def __init__(self, restores: bool = True, control: float = 1.0) -> None:
        self.calls: list[str] = []
        self.restores, self.control = restores, control
        self.mutated = False

    def reset(self, options: object) -> None:
        self.calls.append("reset")

    def solve(self) -> dict[str, float]:
        self.calls.append("solve")
        return {"reward": 1.0}

    def adversary(self, step: str, name: str = "") -> object:
        self.calls.append(f"{step} {name}".strip())
        if step == "mutate":
            self.mutated = True
            return [f"did {name}"]
        return self.restores if step == "restore" else True

    def evaluate(self) -> float:
        self.calls.append("evaluate")
        score, self.mutated = (0.0 if self.mutated else self.control), False
        return score


def test_mutations_of_files_start_from_the_oracles_end_state_and_the_rest_from_the_oracle_played_again() -> None:
    from cua_bench.checks import play_mutations

    planned = ["untouched-window-closed", "forged-write", "extra-file", "trailing-blank-lines"]
    env = _Env()
    assert play_mutations(env, {}, "t", planned, {}, MutationTally()) == []  # type: ignore[arg-type]
    assert env.calls == [
        "mutate extra-file", "evaluate",  # the episode plan saw: nothing played again
        "restore", "evaluate", "mutate trailing-blank-lines", "evaluate",  # files put back, and still 1.0
        "restore", "evaluate", "mutate untouched-window-closed", "evaluate",  # a window, on the files put back
        "reset", "begin", "mutate forged-write", "evaluate",  # played on setup's state
    ]  # fmt: skip
    env = _Env()  # after a mutation of windows, nothing puts the oracle's end state back: it is played again
    play_mutations(env, {}, "t", ["untouched-window-closed", "title-near-miss"], {}, MutationTally())  # type: ignore[arg-type]
    assert env.calls[2:] == ["reset", "begin", "solve", "mutate title-near-miss", "evaluate"]
    for env in (_Env(restores=False), _Env(control=0.5)):
        play_mutations(env, {}, "t", ["extra-file", "trailing-blank-lines"], {}, MutationTally())  # type: ignore[arg-type]
        assert env.calls[-5:] == ["reset", "begin", "solve", "mutate trailing-blank-lines", "evaluate"]
