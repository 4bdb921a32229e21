"""OSWorld's Impress getters: the audio, or the background picture, of one slide of a .pptx on the computer.

OSWorld copies the presentation from its VM and reads it as the zip it is: slide ``slide_index`` is
the part ``ppt/slides/slide{slide_index + 1}.xml`` (its name, not its place in the show, as OSWorld
has it), and its relationships (``ppt/slides/_rels/slide{n}.xml.rels``) say where the file is. An
embedded file is extracted beside the copy (``ppt/media/...`` in the episode's cache) and that path
is given, whatever ``dest`` says; a linked one is copied from the computer as ``dest``. The metric
(``compare_audios``, ``compare_images``) then compares that file with the expected one.

None, as OSWorld's getter gives (its metric scores it 0): the presentation is not on the computer or
is no zip, the slide or its file is not there. The computer refusing a read is a ``PlatformError``
(from ``vm_file``), never a 0.
"""

from __future__ import annotations

import posixpath
import zipfile
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse
from xml.etree import ElementTree

from cua_bench_osworld.config import cached

if TYPE_CHECKING:
    from cua_bench_osworld.config import Context

__all__ = ["SLIDE_GETTERS"]

_PRESENTATION = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
_DRAWING = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_EMBED = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}embed"
_RELATIONSHIP = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"


async def _copy(ctx: Context, path: str, dest: str) -> str | None:
    # getters imports this module for its registry, so its vm_file is looked up when called.
    from cua_bench_osworld.getters import vm_file

    local: str | None = await vm_file(ctx, {"path": path, "dest": dest})
    return local


def _relationship(archive: zipfile.ZipFile, slide: int, kind: str, rel_id: str | None) -> ElementTree.Element | None:
    """The slide's first relationship whose type names ``kind`` (and whose id is ``rel_id``, when given)."""
    name = f"ppt/slides/_rels/slide{slide}.xml.rels"
    if name not in archive.namelist():
        return None
    for rel in ElementTree.fromstring(archive.read(name)).findall(_RELATIONSHIP):
        if kind in rel.get("Type", "") and (rel_id is None or rel.get("Id") == rel_id):
            return rel
    return None


def _background_id(archive: zipfile.ZipFile, slide: int) -> str | None:
    """The relationship id of the picture that fills the slide's own background (``p:bgPr``), if one does."""
    name = f"ppt/slides/slide{slide}.xml"
    if name not in archive.namelist():
        return None
    for background in ElementTree.fromstring(archive.read(name)).iter(f"{_PRESENTATION}bgPr"):
        for blip in background.iter(f"{_DRAWING}blip"):
            if _EMBED in blip.attrib:
                return blip.attrib[_EMBED]
    return None


def _linked_path(target: str, presentation: str) -> str | None:
    """The computer's path a linked file's target names: a ``file://`` URI (percent-decoded), an
    absolute path, or one relative to the presentation's folder; None for anything else (a web URL)."""
    if target.startswith("file://"):
        return unquote(urlparse(target).path) or None
    if "://" in target:
        return None
    path = unquote(target)
    return path if path.startswith("/") else posixpath.normpath(posixpath.join(posixpath.dirname(presentation), path))


async def _slide_file(ctx: Context, config: dict[str, Any], kind: str) -> str | None:
    """The local path of the file of type ``kind`` ("audio", "image") slide ``slide_index`` links to."""
    presentation = str(config["ppt_file_path"])
    slide = int(config["slide_index"]) + 1
    local = await _copy(ctx, presentation, posixpath.basename(presentation))
    if local is None:
        return None
    try:
        with zipfile.ZipFile(local) as archive:
            rel_id = _background_id(archive, slide) if kind == "image" else None
            if kind == "image" and rel_id is None:
                return None
            rel = _relationship(archive, slide, kind, rel_id)
            if rel is None:
                return None
            target = rel.get("Target", "")
            if rel.get("TargetMode") != "External":
                # A part of the package: relative to the slide's folder, or absolute from the package's root.
                member = target.lstrip("/") if target.startswith("/") else posixpath.join("ppt/slides", target)
                member = posixpath.normpath(member)
                if member not in archive.namelist():
                    return None
                extracted = cached(ctx, member)
                extracted.parent.mkdir(parents=True, exist_ok=True)
                extracted.write_bytes(archive.read(member))
                return str(extracted)
    except (zipfile.BadZipFile, ElementTree.ParseError):
        return None  # not a presentation (the agent saved something else under its name): OSWorld's None
    linked = _linked_path(target, presentation)
    return None if linked is None else await _copy(ctx, linked, str(config["dest"]))


async def audio_in_slide(ctx: Context, config: dict[str, Any]) -> str | None:
    """The audio file of slide ``slide_index`` (its first ``audio`` relationship) of ``ppt_file_path``."""
    return await _slide_file(ctx, config, "audio")


async def background_image_in_slide(ctx: Context, config: dict[str, Any]) -> str | None:
    """The picture that fills the background of slide ``slide_index`` of ``ppt_file_path`` (the slide's
    own ``p:bgPr``; a background the slide takes from its layout or master is None, as OSWorld has it)."""
    return await _slide_file(ctx, config, "image")


SLIDE_GETTERS: dict[str, Callable[[Context, dict[str, Any]], Awaitable[Any]]] = {
    "audio_in_slide": audio_in_slide,
    "background_image_in_slide": background_image_in_slide,
}
