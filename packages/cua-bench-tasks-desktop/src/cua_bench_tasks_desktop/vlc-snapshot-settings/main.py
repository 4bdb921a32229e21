"""vlc-snapshot-settings: set where and how VLC saves video snapshots (folder, name prefix, format),
save the preferences, and take a snapshot of the paused video.

Setup makes a six-second video of flat colours (``_vlc.colour_video``), an empty folder for the
snapshots, and starts VLC playing the video to its end, where it pauses. The oracle opens Tools >
Preferences (ctrl+p), the Video page, fills the Video snapshots Directory and Prefix fields, picks the
Format, clicks Save, then Video > Take Snapshot (shift+s) and waits for the snapshot in the folder.

The evaluator reads two witnesses. VLC's preferences file (``vlcrc``, as VLC writes it: ``key=value``
lines) holds the asked ``snapshot-path``, ``snapshot-prefix`` and ``snapshot-format``, and no other
setting differs from VLC's defaults (a preference saved is written out; one left alone stays a comment).
And the live app used them: exactly one new file in the folder, named with the prefix and the format's
extension, a plain file with one link, of that format by its content (Pillow), of the video's size and
flat with the colour of its last frame; no other file under home changed (VLC's own ``OWN`` files may).
A ``vlcrc`` edited behind VLC's back leaves no snapshot in the folder.
Wrong ways: ``keeps_png`` (folder and prefix set, the format left at png), ``not_saved`` (the fields set,
the dialog cancelled: the snapshot lands in home) and ``default_prefix`` (the prefix left vlcsnap-).
Waived: ``trailing-blank-lines`` (VLC skips blank lines in vlcrc; the snapshot is binary) and ``forged-write``
(``OUTPUT_IS_THE_WORK``: the snapshot and the preferences are the asked output).
"""

from __future__ import annotations

import random

import cua_bench as cb
from cua_bench.builders import Meta
from cua_bench.nodes import center
from cua_bench_tasks_desktop._common import (
    NOUNS,
    act,
    files_since_setup,
    key,
    loaders,
    no_window,
    output_bytes,
    press,
    read_text,
    shell,
    wait_for,
)
from cua_bench_tasks_desktop._vlc import (
    BINARY_WAIVERS,
    COLOURS,
    VLCRC,
    after,
    click,
    colour_of,
    fill,
    home_path,
    only_changed,
    open_video_at_end,
    open_window,
    read_picture,
    read_vlcrc,
    top,
)
from cua_core import Click, TypeText, Wait

NAME = "vlc-snapshot-settings"
WAIVED = {
    **BINARY_WAIVERS,
    "trailing-blank-lines": "VLC reads vlcrc line by line and skips blank lines, so blank lines after it are the same "
    "preferences; the snapshot is binary, and the other text files that change are VLC's and Qt's own (OWN)",
}
SECONDS = 6
PREFERENCES = "Simple Preferences"
FORMATS = {"jpg": "JPEG", "tiff": "TIFF", "png": "PNG"}
"""VLC's snapshot formats (its Format list) and Pillow's name for each."""
SAVED_ANYWAY = {"vout": ("", "any")}
"""Settings the Simple Preferences' Save writes out though nobody changed them, with the values it writes
(the Video page's Output list, left at Automatic)."""


def build(rng: random.Random) -> cb.Task:
    folder = f"{rng.choice(['Pictures', 'shots', 'frames', 'captures'])}/{rng.choice(NOUNS)}"
    prefix = f"{rng.choice(['scene', 'frame', 'still', 'grab', 'shot'])}{rng.choice('-_')}{rng.randint(1, 9)}-"
    fmt = rng.choice(["jpg", "tiff"])
    path = f"Videos/{rng.choice(['intro', 'trailer', 'sample', 'loop'])}-{rng.randint(1, 99)}.avi"
    return cb.Task(
        description=f"In VLC's preferences (Tools > Preferences > Video > Video snapshots) make it save snapshots "
        f'in the folder ~/{folder}, named with the prefix "{prefix}", in the {fmt} format, and save the '
        f"preferences. Then take one snapshot (Video > Take Snapshot) of the video ~/{path}, paused at its end.",
        metadata={
            "folder": folder,
            "prefix": prefix,
            "format": fmt,
            "path": path,
            "colours": rng.sample(sorted(COLOURS), SECONDS),
            "size": list(rng.choice(((320, 240), (400, 300), (480, 270)))),
        },
        max_steps=25,
        chance=0.0,
    )


load_train, load_test = loaders(NAME, build)


@cb.setup_task
async def setup(task: cb.Task, session: cb.Session) -> None:
    await session.run_command(f"mkdir -p '{task.metadata['folder']}'", timeout=20, check=True)
    await open_video_at_end(task, session, task.metadata, SECONDS)


def settings_problem(meta: Meta, home: str, settings: dict[str, str] | str) -> str | None:
    """What is wrong with VLC's saved settings (None: they are the asked ones, and nothing else is set)."""
    if isinstance(settings, str):
        return settings
    want = {
        "snapshot-path": f"{home}/{meta['folder']}",
        "snapshot-prefix": meta["prefix"],
        "snapshot-format": meta["format"],
    }
    for name, value in want.items():
        got = settings.get(name)
        if got != value and not (name == "snapshot-path" and got == value + "/"):
            return f"vlcrc's {name} is {got!r}, not {value!r}"
    others = sorted(
        f"{name}={value}"
        for name, value in settings.items()
        if name not in want and value not in SAVED_ANYWAY.get(name, ())
    )
    return f"vlcrc also sets {', '.join(others)}" if others else None


@cb.evaluate_task
async def evaluate(task: cb.Task, session: cb.Session) -> list[float]:
    meta = task.metadata
    home = await home_path(session, "")
    wrong = settings_problem(meta, home.rstrip("/"), read_vlcrc(await read_text(session, VLCRC)))
    if wrong:
        task.explain(wrong)
        return [0.0]
    before, after_ = await files_since_setup(task, session)
    new = [p for p in after_ if p not in before and after_[p].kind == "file" and p.startswith(f"{meta['folder']}/")]
    name = f"{meta['folder']}/{meta['prefix']}"
    named = len(new) == 1 and new[0].startswith(name) and "/" not in new[0][len(name) :]
    if not named or not new[0].endswith(f".{meta['format']}"):
        task.explain(f"the new files in ~/{meta['folder']} are {new[:4]}, not one {meta['prefix']}*.{meta['format']}")
        return [0.0]
    found = read_picture(await output_bytes(session, after_, new[0]), FORMATS[meta["format"]])
    if isinstance(found, str):
        task.explain(f"{new[0]}: {found}")
        return [0.0]
    if list(found.size) != meta["size"] or colour_of(found) != meta["colours"][-1]:
        task.explain(f"{new[0]} is not a snapshot of the paused video's last frame")
        return [0.0]
    return [1.0 if only_changed(task, before, after_, [new[0], VLCRC]) else 0.0]


async def _set_and_snap(session: cb.Session, meta: Meta, *, prefix: str, fmt: str, save: bool) -> None:
    await open_window(session, "ctrl+p", PREFERENCES)
    await click(session, "check box", "Video", PREFERENCES)

    async def field(label: str) -> dict[str, object] | None:
        return after(await top(session, PREFERENCES), label)

    await fill(session, lambda: field("Directory"), await home_path(session, meta["folder"]), "the Directory field")
    await fill(session, lambda: field("Prefix"), prefix, "the Prefix field")
    for _attempt in range(3):
        box = await wait_for(lambda: _format_box(session), "the Format list")
        if box.get("name") == fmt:
            break
        await act(session, Click(center(box)), Wait(0.5), TypeText(fmt), key("Return"), Wait(0.5))
    await click(session, "push button", "Save" if save else "Cancel", PREFERENCES)
    await no_window(session, PREFERENCES)
    count = f"ls -1 {shell(meta['folder'] if save else '.')} | wc -l"
    before = await session.run_command(count, timeout=10)
    await press(session, "shift+s")

    async def taken() -> bool:
        return (await session.run_command(count, timeout=10)).stdout != before.stdout

    await wait_for(taken, "the snapshot")


async def _format_box(session: cb.Session) -> dict[str, object] | None:
    return after(await top(session, PREFERENCES), "Format", "combo box")


@cb.solve_task
async def solve(task: cb.Task, session: cb.Session) -> None:
    meta = task.metadata
    await _set_and_snap(session, meta, prefix=meta["prefix"], fmt=meta["format"], save=True)


@cb.wrong_way
async def keeps_png(task: cb.Task, session: cb.Session) -> None:
    """Folder and prefix set and saved; the format left at png."""
    meta = task.metadata
    await _set_and_snap(session, meta, prefix=meta["prefix"], fmt="png", save=True)


@cb.wrong_way
async def not_saved(task: cb.Task, session: cb.Session) -> None:
    """Every field set, then Cancel: VLC keeps its defaults and the snapshot lands in home."""
    meta = task.metadata
    await _set_and_snap(session, meta, prefix=meta["prefix"], fmt=meta["format"], save=False)


@cb.wrong_way
async def default_prefix(task: cb.Task, session: cb.Session) -> None:
    """Folder and format set and saved; the prefix left as vlcsnap-."""
    meta = task.metadata
    await _set_and_snap(session, meta, prefix="vlcsnap-", fmt=meta["format"], save=True)
