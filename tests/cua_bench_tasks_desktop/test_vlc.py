"""``_vlc``'s pure parts and the VLC tasks' scorers: seeded tones and their pitches read back, playlists
(XSPF with lxml, M3U as text) read by content with the ending VLC gives them, snapshots' colours, WAVs
and tagged audio read by content, each with a clear reason (never a crash) for what is not the asked file."""

from __future__ import annotations

import io
import random
import wave
from typing import Any

import numpy as np
import pytest
from PIL import Image

from cua_bench.tasks import load_task_module
from cua_bench.taskset import task_folders
from cua_bench_tasks_desktop._vlc import (
    COLOURS,
    Audio,
    Picture,
    colour_of,
    frequencies,
    only_changed,
    pitches,
    read_audio,
    read_m3u,
    read_picture,
    read_vlcrc,
    read_wav,
    read_xspf,
    tone_wav,
)

HOME = "/home/user"
FOLDERS = {folder.name: folder for folder in task_folders("desktop") if folder.name.startswith("vlc-")}


def _xspf(paths: list[str], tail: str = "\n") -> bytes:
    """A playlist as VLC 3 writes one (tabs, a vlc:id extension per track, the playlist's own extension)."""
    tracks = "".join(
        f"\t\t<track>\n\t\t\t<location>file://{p.replace(' ', '%20')}</location>\n\t\t\t<duration>8000</duration>\n"
        f'\t\t\t<extension application="http://www.videolan.org/vlc/playlist/0">\n\t\t\t\t<vlc:id>{i}</vlc:id>\n'
        "\t\t\t</extension>\n\t\t</track>\n"
        for i, p in enumerate(paths)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<playlist xmlns="http://xspf.org/ns/0/" '
        'xmlns:vlc="http://www.videolan.org/vlc/playlist/ns/0/" version="1">\n\t<title>Playlist</title>\n'
        f"\t<trackList>\n{tracks}\t</trackList>\n</playlist>{tail}"
    ).encode()


def _m3u(entries: list[str], tail: str = "\n") -> bytes:
    body = "".join(f"#EXTINF:8,{e.rsplit('/', 1)[-1]}\n{e}\n" for e in entries)
    return ("#EXTM3U\n" + body).removesuffix("\n").encode() + tail.encode()


def test_a_seeded_tone_reads_back_second_by_second() -> None:
    tones = pitches(random.Random(3), 4)
    assert len(set(tones)) == 4 and all(300 <= p < 3000 for p in tones)
    found = read_wav(tone_wav(tones, rate=22050, channels=1))
    assert not isinstance(found, str) and found.rate == 22050 and found.channels == 1
    assert found.seconds == pytest.approx(4.0)
    got = frequencies(found.samples, found.rate)
    assert [round(f) for f in got] == pytest.approx(tones, rel=0.02)
    stereo = read_wav(tone_wav(tones[:2]))
    assert not isinstance(stereo, str) and stereo.channels == 2 and stereo.rate == 44100


@pytest.mark.parametrize(
    ("data", "reason"),
    [(None, "no such file"), (b"RIFF....WAVEjunk", "not a PCM WAV"), (b"#EXTM3U\n", "not a PCM WAV")],
)
def test_what_is_no_wav_says_why(data: bytes | None, reason: str) -> None:
    found = read_wav(data)
    assert isinstance(found, str) and reason in found


def test_an_xspf_reads_its_tracks_in_order_and_nothing_else_passes() -> None:
    paths = [f"{HOME}/Music/a b.wav", f"{HOME}/Music/c.wav"]
    assert read_xspf(_xspf(paths)) == paths
    assert read_xspf(_xspf(paths[::-1])) == paths[::-1]
    assert "does not end as VLC" in str(read_xspf(_xspf(paths, "\n\n\n\n")))
    assert "not XML" in str(read_xspf(_m3u(paths)))
    assert "not an XSPF" in str(read_xspf(b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>\n'))
    assert "no such file" in str(read_xspf(None))
    entity = b'<?xml version="1.0"?>\n<!DOCTYPE p [<!ENTITY e SYSTEM "file:///etc/passwd">]>\n<p>&e;</p>\n'
    assert isinstance(read_xspf(entity), str)


def test_an_m3u_reads_its_entries_relative_to_its_folder_and_nothing_else_passes() -> None:
    folder = f"{HOME}/Music"
    assert read_m3u(_m3u(["a.wav", f"{folder}/b.wav", f"file://{folder}/c%20d.wav"]), folder) == [
        f"{folder}/a.wav",
        f"{folder}/b.wav",
        f"{folder}/c d.wav",
    ]
    assert "no #EXTM3U" in str(read_m3u(_xspf([f"{folder}/a.wav"]), folder))
    assert "blank lines" in str(read_m3u(_m3u(["a.wav"], "\n\n\n\n"), folder))
    assert "no #EXTM3U" in str(read_m3u(b"a.wav\n", folder))
    assert "not UTF-8" in str(read_m3u(b"#EXTM3U\n\xff\xfe\n", folder))


def _png(rgb: tuple[int, int, int], size: tuple[int, int] = (64, 48), fmt: str = "PNG") -> bytes:
    pixels = np.zeros((size[1], size[0], 3), dtype=np.uint8)
    pixels[:, :] = rgb
    pixels[:2, :] = 0  # a dark edge, as a scaled frame may have
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format=fmt)
    return out.getvalue()


def test_a_snapshot_is_read_by_content_and_named_by_its_colour() -> None:
    for name, rgb in COLOURS.items():
        found = read_picture(_png(rgb), "PNG")
        assert isinstance(found, Picture) and found.size == (64, 48)
        assert colour_of(found) == name
        near = read_picture(_png(tuple(min(255, c + 12) for c in rgb)), "PNG")  # type: ignore[arg-type]
        assert isinstance(near, Picture) and colour_of(near) == name
    assert "a JPEG file, not PNG" in str(read_picture(_png(COLOURS["red"], fmt="JPEG"), "PNG"))
    assert "no such file" in str(read_picture(None, "PNG"))
    assert "not a readable" in str(read_picture(b"\x89PNG\r\n\x1a\nnot really", "PNG"))
    half = np.zeros((40, 40, 3), dtype=np.uint8)
    half[:, :20], half[:, 20:] = COLOURS["red"], COLOURS["blue"]
    out = io.BytesIO()
    Image.fromarray(half).save(out, format="PNG")
    mixed = read_picture(out.getvalue(), "PNG")
    assert isinstance(mixed, Picture) and colour_of(mixed) is None


def test_colours_are_far_apart() -> None:
    values = list(COLOURS.values())
    for i, a in enumerate(values):
        for b in values[i + 1 :]:
            assert max(abs(x - y) for x, y in zip(a, b, strict=True)) >= 80


def test_audio_is_read_by_content_with_mutagen() -> None:
    found = read_audio(tone_wav([440, 660], rate=22050, channels=1))
    assert isinstance(found, Audio) and found.format == "WAVE" and found.seconds == pytest.approx(2.0, abs=0.01)
    assert "not an audio file" in str(read_audio(b"hello, this is text\n" * 20))
    assert "no such file" in str(read_audio(None))


def _module(name: str) -> Any:
    return load_task_module(FOLDERS[name]).module


def test_every_vlc_task_has_varied_variants_and_names_its_values() -> None:
    assert len(FOLDERS) >= 5
    for folder in FOLDERS.values():
        module = load_task_module(folder)
        tasks = module.variants("test")
        assert len(tasks) == 25 and len({repr(t.metadata) for t in tasks}) >= 15
        for task in tasks:
            for value in ("out", "path"):
                if value in task.metadata:
                    assert f"~/{task.metadata[value]}" in task.description


def test_edit_metadata_wants_the_two_tags_and_the_rest_as_seeded() -> None:
    module = _module("vlc-edit-metadata")
    meta = module.load_test()[0].metadata
    seed = {"tags": {"title": ["Old"], "artist": ["Someone"], "album": ["A"]}, "md5": 7, "seconds": 30.0}
    good = Audio("FLAC", 30.0, 2, 44100, {"title": [meta["title"]], "artist": [meta["artist"]], "album": ["A"]}, 7)
    assert module.problem_of(meta, seed, good) is None
    swapped = Audio("FLAC", 30.0, 2, 44100, {"title": [meta["artist"]], "artist": [meta["title"]], "album": ["A"]}, 7)
    assert "title" in str(module.problem_of(meta, seed, swapped))
    unsaved = Audio("FLAC", 30.0, 2, 44100, seed["tags"], 7)  # type: ignore[arg-type]
    assert module.problem_of(meta, seed, unsaved) is not None
    other_audio = Audio("FLAC", 30.0, 2, 44100, good.tags, 8)
    assert "audio" in str(module.problem_of(meta, seed, other_audio))
    lost_album = Audio("FLAC", 30.0, 2, 44100, {"title": [meta["title"]], "artist": [meta["artist"]]}, 7)
    assert "album" in str(module.problem_of(meta, seed, lost_album))
    as_ogg = Audio("OggVorbis", 30.0, 2, 44100, good.tags, None)
    assert "not FLAC" in str(module.problem_of(meta, seed, as_ogg))
    assert "no such file" in str(module.problem_of(meta, seed, read_audio(None)))


def test_a_wav_is_no_wav_when_it_is_8_bit() -> None:
    out = io.BytesIO()
    with wave.open(out, "wb") as file:
        file.setnchannels(1)
        file.setsampwidth(1)
        file.setframerate(8000)
        file.writeframes(bytes(800))
    assert "8-bit" in str(read_wav(out.getvalue()))


def test_vlcrc_reads_only_the_settings_set_and_the_snapshot_task_wants_exactly_its_three() -> None:
    module = _module("vlc-snapshot-settings")
    meta = module.load_test()[0].metadata
    text = (
        "\ufeff###\n## vlcrc\n[qt] # Qt interface\n#qt-privacy-ask=1\n[core] # core program\n"
        f"snapshot-path={HOME}/{meta['folder']}\nsnapshot-prefix={meta['prefix']}\n#snapshot-sequential=0\n"
        f"snapshot-format={meta['format']}\n"
    )
    settings = read_vlcrc(text)
    assert isinstance(settings, dict) and "qt-privacy-ask" not in settings
    assert module.settings_problem(meta, HOME, settings) is None
    assert module.settings_problem(meta, HOME, {**settings, "snapshot-format": "png"}) is not None
    assert "also sets" in str(module.settings_problem(meta, HOME, {**settings, "volume-step": "3"}))
    assert module.settings_problem(meta, HOME, {k: v for k, v in settings.items() if k != "snapshot-prefix"})
    assert "never saved" in str(module.settings_problem(meta, HOME, read_vlcrc(None)))


def test_vlcs_own_files_may_be_rewritten_but_not_chmod_or_touched() -> None:
    from cua_bench import Task
    from cua_bench.filestate import FileState

    conf = ".config/vlc/vlc-qt-interface.conf"
    before = {conf: FileState("file", "a", 10, 0o644, 1, 1, 100), "Music/a.wav": FileState("file", "w", 5, 0o644, 2)}
    task = Task(description="t", metadata={})
    rewritten = {**before, conf: FileState("file", "b", 12, 0o644, 1, 1, 200), "out.xspf": FileState("file", "x")}
    assert only_changed(task, before, rewritten, ["out.xspf"])
    chmodded = {**rewritten, conf: FileState("file", "a", 10, 0o777, 1, 1, 100)}
    assert not only_changed(task, before, chmodded, ["out.xspf"])
    touched = {**rewritten, conf: FileState("file", "a", 10, 0o644, 1, 1, 50)}
    assert not only_changed(task, before, touched, ["out.xspf"])
    stray = {**rewritten, "Music/.a.wav": FileState("file", "w")}
    assert not only_changed(task, before, stray, ["out.xspf"])
