"""OSWorld's ``audio_in_slide``, ``background_image_in_slide``, ``vm_wallpaper`` and ``list_directory``
getters on real files: presentations made with python-pptx, a wallpaper set through a real gsettings
kept by dconf on a private D-Bus session bus, folders on disk.

The Session runs its commands with this machine's bash and reads its files (the computer is this
machine). Where desktop-env is installed, OSWorld's own metric scores what the getter gave, so the
value's shape is the one the metric takes. gsettings, dconf-service and dbus-daemon are required in
CI (scripts/system-deps.sh installs them); elsewhere the wallpaper tests skip without them.
"""

from __future__ import annotations

import array
import asyncio
import math
import os
import shutil
import subprocess
import wave
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from pptx import Presentation
from pptx.opc.constants import RELATIONSHIP_TYPE as RT
from pptx.oxml import parse_xml
from pptx.oxml.ns import nsdecls
from pptx.util import Inches
from support.osworld_sessions import LocalShell

from cua_bench_osworld.config import Context
from cua_bench_osworld.getters import get
from cua_bench_osworld.loader import PlatformError, load_task, load_tasks
from cua_bench_osworld.official import official_metrics
from cua_bench_osworld.support import check_support

NAMES = ("audio_in_slide", "background_image_in_slide", "vm_wallpaper", "list_directory")


class RefusingReads(LocalShell):
    """A computer that refuses to hand over files (a backend's path rule, a permission)."""

    async def read_bytes(self, path: str) -> bytes:
        raise PermissionError(f"refused: {path}")


@pytest.fixture
def ctx(tmp_path: Path) -> Context:
    cache = tmp_path / "cache"
    cache.mkdir()
    return Context(LocalShell(), tmp_path, cache, command_timeout=30.0)


def getter(ctx: Context, config: dict[str, Any]) -> Any:
    return asyncio.run(get(ctx, config))


def metric(name: str) -> Any:
    """OSWorld's metric ``name`` where desktop-env is installed, else None."""
    return official_metrics().get(name)


def tone(path: Path, hertz: float, seconds: float = 0.5, rate: int = 22050) -> Path:
    samples = array.array(
        "h", (int(12000 * math.sin(2 * math.pi * hertz * i / rate)) for i in range(int(rate * seconds)))
    )
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(samples.tobytes())
    return path


def picture(path: Path, shift: int = 0) -> Path:
    """A 96x64 PNG with stripes and a gradient (``shift`` moves the stripes: a different picture)."""
    image = Image.new("RGB", (96, 64))
    image.putdata([(((x + shift) // 8) % 2 * 200, y * 4, (x * 2) % 256) for y in range(64) for x in range(96)])
    image.save(path)
    return path


def presentation(
    path: Path, *, audio: Path | None = None, linked_audio: str | None = None, background: Path | None = None
) -> Path:
    """Two blank slides: the audio (embedded, or linked by URI) on the first, the background picture
    on the second, each as PowerPoint writes them."""
    show = Presentation()
    first, second = (show.slides.add_slide(show.slide_layouts[6]) for _ in range(2))
    if audio is not None:
        first.shapes.add_movie(str(audio), Inches(1), Inches(1), Inches(1), Inches(1), mime_type="audio/wav")
        media = next(rel.target_part for rel in first.part.rels.values() if rel.reltype == RT.MEDIA)
        first.part.relate_to(media, RT.AUDIO)  # PowerPoint relates audio twice: as audio and as media
    if linked_audio is not None:
        first.part.relate_to(linked_audio, RT.AUDIO, is_external=True)
    if background is not None:
        _, rel_id = second.part.get_or_add_image_part(str(background))
        fill = (
            f'<p:bg {nsdecls("p", "a", "r")}><p:bgPr><a:blipFill><a:blip r:embed="{rel_id}"/><a:stretch><a:fillRect/>'
            "</a:stretch></a:blipFill><a:effectLst/></p:bgPr></p:bg>"
        )
        second._element.cSld.insert(0, parse_xml(fill))
    show.save(str(path))
    return path


# -- audio_in_slide, background_image_in_slide -----------------------------------------------------


def test_the_embedded_audio_of_a_slide_is_extracted_and_osworlds_metric_hears_it(ctx: Context, tmp_path: Path) -> None:
    song = tone(tmp_path / "planet.wav", 440)
    slides = presentation(tmp_path / "show.pptx", audio=song)
    config = {"type": "audio_in_slide", "ppt_file_path": str(slides), "slide_index": 0, "dest": "planet.wav"}
    path = getter(ctx, config)
    # Extracted beside the copy, under its name in the package (OSWorld's path), not as dest.
    assert path == str(ctx.cache_dir / "ppt" / "media" / "media1.wav")
    assert Path(path).read_bytes() == song.read_bytes()
    assert (ctx.cache_dir / "show.pptx").read_bytes() == slides.read_bytes()
    assert getter(ctx, {**config, "slide_index": 1}) is None  # the second slide has no audio
    compare_audios = metric("compare_audios")
    if compare_audios is not None:
        assert compare_audios(path, str(song)) > 0.99
        assert compare_audios(getter(ctx, {**config, "slide_index": 1}), str(song)) == 0


def test_linked_audio_is_copied_from_the_computer_as_dest(ctx: Context, tmp_path: Path) -> None:
    folder = tmp_path / "my music"
    folder.mkdir()
    song = tone(folder / "Baseball.wav", 330)
    uri = "file://" + str(song).replace(" ", "%20")  # as a URI: percent-encoded
    slides = presentation(tmp_path / "show.pptx", linked_audio=uri)
    config = {"type": "audio_in_slide", "ppt_file_path": str(slides), "slide_index": 0, "dest": "Baseball.wav"}
    path = getter(ctx, config)
    assert path == str(ctx.cache_dir / "Baseball.wav") and Path(path).read_bytes() == song.read_bytes()
    song.unlink()  # the linked file is gone: OSWorld's None
    assert getter(ctx, config) is None


def test_a_slides_background_picture_is_extracted_and_osworlds_metric_sees_it(ctx: Context, tmp_path: Path) -> None:
    landscape = picture(tmp_path / "landscape.png")
    slides = presentation(tmp_path / "show.pptx", background=landscape)
    config = {"type": "background_image_in_slide", "ppt_file_path": str(slides), "slide_index": 1, "dest": "bg.png"}
    path = getter(ctx, config)
    assert path is not None and Path(path).parent == ctx.cache_dir / "ppt" / "media"
    assert Path(path).read_bytes() == landscape.read_bytes()
    assert getter(ctx, {**config, "slide_index": 0}) is None  # the first slide keeps its layout's background
    assert getter(ctx, {**config, "slide_index": 5}) is None  # no such slide
    compare_images = metric("compare_images")
    if compare_images is not None:
        assert compare_images(path, str(landscape)) == pytest.approx(1.0)
        assert compare_images(path, str(picture(tmp_path / "other.png", shift=4))) < 0.9


def test_a_missing_or_broken_presentation_gives_none(ctx: Context, tmp_path: Path) -> None:
    for name in NAMES[:2]:
        config = {"type": name, "ppt_file_path": str(tmp_path / "gone.pptx"), "slide_index": 0, "dest": "x"}
        assert getter(ctx, config) is None
        (tmp_path / "broken.pptx").write_text("not a zip: the agent saved something else under its name")
        assert getter(ctx, {**config, "ppt_file_path": str(tmp_path / "broken.pptx")}) is None


def test_a_presentation_the_computer_will_not_hand_over_is_an_error(ctx: Context, tmp_path: Path) -> None:
    slides = presentation(tmp_path / "show.pptx", audio=tone(tmp_path / "a.wav", 440))
    ctx.session = RefusingReads()
    for name in NAMES[:2]:
        with pytest.raises(PlatformError, match="cannot read"):
            getter(ctx, {"type": name, "ppt_file_path": str(slides), "slide_index": 0, "dest": "x"})


# -- vm_wallpaper -----------------------------------------------------------------------------------


@pytest.fixture
def dconf(tmp_path: Path) -> Iterator[dict[str, str | None]]:
    """A private session bus (which activates dconf-service) and private settings: the environment
    a computer's commands need for gsettings to keep what they set, as on OSWorld's VM."""
    missing = [p for p in ("gsettings", "dbus-daemon") if shutil.which(p) is None]
    if missing or not Path("/usr/share/dbus-1/services/ca.desrt.dconf.service").exists():
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but gsettings with dconf is not here ({missing or 'dconf-service'})")
        pytest.skip("gsettings, dbus-daemon or dconf-service is not installed")
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    (tmp_path / "run").mkdir(mode=0o700)
    env: dict[str, str | None] = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_RUNTIME_DIR": str(tmp_path / "run"),
        "GSETTINGS_BACKEND": None,
    }
    bus = subprocess.Popen(
        ["dbus-daemon", "--session", "--nofork", "--print-address=1"],
        env={k: v for k, v in {**os.environ, **env}.items() if v is not None},
        stdout=subprocess.PIPE,
        text=True,
    )
    assert bus.stdout is not None
    env["DBUS_SESSION_BUS_ADDRESS"] = bus.stdout.readline().strip()
    yield env
    bus.terminate()  # dconf-service leaves with its bus
    bus.wait(timeout=10)


def set_wallpaper(env: dict[str, str | None], uri: str) -> None:
    environment = {k: v for k, v in {**os.environ, **env}.items() if v is not None}
    command = ["gsettings", "set", "org.gnome.desktop.background", "picture-uri", uri]
    subprocess.run(command, env=environment, check=True, timeout=30)


def test_the_wallpaper_gsettings_names_is_copied_and_osworlds_metric_sees_it(
    ctx: Context, tmp_path: Path, dconf: dict[str, str | None]
) -> None:
    ctx.session = LocalShell(dconf)
    folder = tmp_path / "My Pictures"
    folder.mkdir()
    wallpaper = picture(folder / "interstellar.png")
    set_wallpaper(dconf, "file://" + str(wallpaper).replace(" ", "%20"))  # GNOME's URI: percent-encoded
    path = getter(ctx, {"type": "vm_wallpaper", "dest": "result_wallpaper.png"})
    assert path == str(ctx.cache_dir / "result_wallpaper.png") and Path(path).read_bytes() == wallpaper.read_bytes()
    compare_images = metric("compare_images")
    if compare_images is not None:  # the vlc task's options
        assert compare_images(path, str(wallpaper), reference_base_result=0.11) == pytest.approx(1.0)
        assert compare_images(path, str(picture(tmp_path / "x.png", shift=4)), reference_base_result=0.9) == 0
    set_wallpaper(dconf, str(tmp_path / "gone.png"))  # a path, not a URI, of a file that is not there
    assert getter(ctx, {"type": "vm_wallpaper", "dest": "w.png"}) is None
    set_wallpaper(dconf, "")
    assert getter(ctx, {"type": "vm_wallpaper", "dest": "w.png"}) is None


def test_a_computer_whose_settings_do_not_persist_or_without_gsettings_is_an_error(
    ctx: Context, tmp_path: Path, dconf: dict[str, str | None]
) -> None:
    set_wallpaper(dconf, "file://" + str(picture(tmp_path / "w.png")))
    ctx.session = LocalShell({**dconf, "GSETTINGS_BACKEND": "memory"})  # the local backend on a shared host
    with pytest.raises(PlatformError, match="keeps settings in memory"):
        getter(ctx, {"type": "vm_wallpaper", "dest": "w.png"})
    no_programs = tmp_path / "bin"
    no_programs.mkdir()
    ctx.session = LocalShell({**dconf, "PATH": str(no_programs)})
    with pytest.raises(PlatformError, match="gsettings is not on this computer"):
        getter(ctx, {"type": "vm_wallpaper", "dest": "w.png"})


# -- list_directory ---------------------------------------------------------------------------------


def test_the_tree_has_osworlds_shape_and_its_metric_reads_it(ctx: Context, tmp_path: Path) -> None:
    expected = ["emnlp2023.jpg", "hk_group_photo.jpg", "hong-kong-china.jpg", "monk.jpg"]  # the os task's rule
    target = tmp_path / "Desktop" / "cpjpg"
    target.mkdir(parents=True)
    for name in expected:
        (target / name).write_bytes(b"\xff\xd8")
    tree = getter(ctx, {"type": "list_directory", "path": str(target)})
    assert tree == {"type": "directory", "name": "cpjpg", "children": [{"type": "file", "name": n} for n in expected]}
    check_moved_jpgs = metric("check_moved_jpgs")
    if check_moved_jpgs is not None:
        assert check_moved_jpgs(tree, {"expected": expected}) == 1
    (target / "vacation" / "hk").mkdir(parents=True)
    (target / "vacation" / "hk" / "extra.jpg").write_bytes(b"")
    (tmp_path / "elsewhere").mkdir()
    (target / "linked").symlink_to(tmp_path / "elsewhere")  # a link to a folder is a folder, as os.path.isdir says
    (target / "vacation" / "up").symlink_to(target)  # a link back up is an error node, not a loop
    tree = getter(ctx, {"type": "list_directory", "path": str(target)})
    folders = [child for child in tree["children"] if child["type"] == "directory"]
    assert folders == [
        {"type": "directory", "name": "linked", "children": []},
        {
            "type": "directory",
            "name": "vacation",
            "children": [
                {"type": "directory", "name": "hk", "children": [{"type": "file", "name": "extra.jpg"}]},
                {"error": f"{target}/vacation/up: a link to a folder above it"},
            ],
        },
    ]
    if check_moved_jpgs is not None:
        assert check_moved_jpgs(tree, {"expected": expected}) == 0


def test_a_path_that_is_no_folder_gives_none_and_a_computer_without_python3_is_an_error(
    ctx: Context, tmp_path: Path
) -> None:
    assert getter(ctx, {"type": "list_directory", "path": str(tmp_path / "gone")}) is None
    (tmp_path / "file.txt").write_text("x")
    assert getter(ctx, {"type": "list_directory", "path": str(tmp_path / "file.txt")}) is None
    empty = tmp_path / "bin"
    empty.mkdir()
    ctx.session = LocalShell({"PATH": str(empty)})
    with pytest.raises(PlatformError, match="python3 is not on this computer"):
        getter(ctx, {"type": "list_directory", "path": str(tmp_path)})


# -- support ----------------------------------------------------------------------------------------


def test_fixture_tasks_are_no_longer_skipped_for_these_getters(shared_fixtures: Path) -> None:
    tasks = load_tasks(shared_fixtures / "osworld") + load_tasks(shared_fixtures / "osworld_more")
    users = [t for t in tasks if {g["type"] for g in t.evaluator.getters()} & set(NAMES)]
    assert len(users) == 6  # audio_in_slide 2, background_image_in_slide 1, vm_wallpaper 2, list_directory 1
    for task in users:
        reasons = check_support(task, official=frozenset(), mirror=None).reasons
        assert not [r for r in reasons if r.startswith("unsupported getter")], (task.path, reasons)


@pytest.mark.parametrize(("name", "shell"), [(n, n in ("vm_wallpaper", "list_directory")) for n in NAMES])
def test_the_getters_that_run_commands_need_a_shell(tmp_path: Path, name: str, shell: bool) -> None:
    """A backend without a shell skips such a task before it runs, never scores it 0."""
    data = {
        "id": "t",
        "instruction": "i",
        "config": [],
        "evaluator": {"func": "check_moved_jpgs", "result": {"type": name}},
    }
    support = check_support(load_task(tmp_path / "os" / "t.json", data), official={"check_moved_jpgs"}, mirror=None)
    assert support.supported and support.needs_shell == shell


@pytest.mark.skipif(shutil.which("gsettings") is None and not os.environ.get("CI"), reason="gsettings not installed")
def test_a_command_that_fails_for_want_of_a_schema_is_the_computers_fault_not_a_silent_empty(ctx: Context) -> None:
    """A real gsettings, asked for a schema no package here declares (as the osworld image lacked
    org.gnome.settings-daemon.plugins.power): OSWorld's getter gives '', which its metric scores 0."""
    command = "gsettings get org.cua.nowhere.plugins.power idle-dim"
    with pytest.raises(PlatformError, match=r"vm_command_line: `gsettings get org.cua.nowhere.*No such schema"):
        getter(ctx, {"type": "vm_command_line", "command": command, "shell": True})
    # A command that fails because of what the agent did (or did not) do is still OSWorld's answer.
    missing = ctx.cache_dir / "absent.txt"
    assert getter(ctx, {"type": "vm_command_line", "command": f"cat {missing}", "shell": True}) == ""
