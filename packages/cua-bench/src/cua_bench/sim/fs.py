"""The desktop's virtual file system: folders and files in memory, listed in a stable order.

Tasks seed it in setup and read it in evaluation; the file browser and the editor work on it,
so an agent's rename or save is a change evaluators can check without looking at pixels.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterator

__all__ = ["HOME", "VirtualFS"]

HOME = "/home/user"


class VirtualFS:
    """Absolute POSIX paths; errors are the builtin ``OSError`` subclasses ``os`` would raise."""

    def __init__(self, *, home: str = HOME) -> None:
        self._files: dict[str, bytes] = {}
        self._dirs: set[str] = {"/"}
        self._listeners: list[Callable[[], None]] = []
        self.version = 0
        self.home = home
        for folder in (home, f"{home}/Documents", f"{home}/Desktop", "/tmp"):
            self.mkdir(folder)

    # --- paths -----------------------------------------------------------------------------

    @staticmethod
    def normpath(path: str) -> str:
        if not isinstance(path, str) or not path.startswith("/"):
            raise ValueError(f"virtual paths are absolute, like '/home/user/notes.txt'; got {path!r}")
        normal = posixpath.normpath(path)
        return "/" if normal.startswith("//") else normal

    def exists(self, path: str) -> bool:
        path = self.normpath(path)
        return path in self._files or path in self._dirs

    def is_file(self, path: str) -> bool:
        return self.normpath(path) in self._files

    def is_dir(self, path: str) -> bool:
        return self.normpath(path) in self._dirs

    def _parent_dir(self, path: str, *, create: bool) -> None:
        parent = posixpath.dirname(path)
        if parent in self._dirs:
            return
        if parent in self._files:
            raise NotADirectoryError(f"{parent} is a file")
        if not create:
            raise FileNotFoundError(f"no such folder: {parent}")
        self.mkdir(parent)

    # --- changes ---------------------------------------------------------------------------

    def subscribe(self, listener: Callable[[], None]) -> None:
        """Call ``listener`` after every change (file browsers refresh with it)."""
        self._listeners.append(listener)

    def _changed(self) -> None:
        self.version += 1
        for listener in list(self._listeners):
            listener()

    def mkdir(self, path: str, *, parents: bool = True, exist_ok: bool = True) -> None:
        path = self.normpath(path)
        if path in self._files:
            raise FileExistsError(f"{path} is a file")
        if path in self._dirs:
            if not exist_ok:
                raise FileExistsError(f"{path} exists")
            return
        self._parent_dir(path, create=parents)
        self._dirs.add(path)
        self._changed()

    def write(self, path: str, data: bytes | str, *, parents: bool = True) -> None:
        path = self.normpath(path)
        if path in self._dirs:
            raise IsADirectoryError(f"{path} is a folder")
        self._parent_dir(path, create=parents)
        self._files[path] = data.encode() if isinstance(data, str) else bytes(data)
        self._changed()

    def read(self, path: str) -> bytes:
        path = self.normpath(path)
        if path in self._dirs:
            raise IsADirectoryError(f"{path} is a folder")
        try:
            return self._files[path]
        except KeyError:
            raise FileNotFoundError(f"no such file: {path}") from None

    def read_text(self, path: str) -> str:
        return self.read(path).decode("utf-8", errors="replace")

    def listdir(self, path: str = "/") -> list[str]:
        """Names in a folder: folders first, then files, each sorted by name."""
        path = self.normpath(path)
        if path not in self._dirs:
            raise (NotADirectoryError if path in self._files else FileNotFoundError)(f"no such folder: {path}")
        prefix = path.rstrip("/") + "/"
        dirs = sorted(p[len(prefix) :] for p in self._dirs if p.startswith(prefix) and "/" not in p[len(prefix) :])
        files = sorted(p[len(prefix) :] for p in self._files if p.startswith(prefix) and "/" not in p[len(prefix) :])
        return [name for name in dirs if name] + files

    def walk(self) -> Iterator[str]:
        """Every file path, sorted."""
        yield from sorted(self._files)

    def rename(self, source: str, target: str) -> None:
        """Move a file or folder; a bare name in ``target`` renames within the same folder."""
        source = self.normpath(source)
        if not target.startswith("/"):
            if "/" in target or target in ("", ".", ".."):
                raise ValueError(f"{target!r} is not a valid file name")
            target = posixpath.join(posixpath.dirname(source), target)
        target = self.normpath(target)
        if not self.exists(source):
            raise FileNotFoundError(f"no such file or folder: {source}")
        if target == source:
            return
        if self.exists(target):
            raise FileExistsError(f"{target} exists")
        if target.startswith(source.rstrip("/") + "/"):
            raise ValueError(f"cannot move {source} into itself")
        self._parent_dir(target, create=False)
        if source in self._files:
            self._files[target] = self._files.pop(source)
        else:
            prefix = source + "/"
            self._dirs = {target + d[len(source) :] if d == source or d.startswith(prefix) else d for d in self._dirs}
            self._files = {
                (target + p[len(source) :] if p.startswith(prefix) else p): data for p, data in self._files.items()
            }
        self._changed()

    def delete(self, path: str, *, recursive: bool = True) -> None:
        path = self.normpath(path)
        if path in self._files:
            del self._files[path]
        elif path in self._dirs:
            if path == "/":
                raise PermissionError("the root folder cannot be deleted")
            prefix = path + "/"
            inside = [p for p in self._files if p.startswith(prefix)] + [d for d in self._dirs if d.startswith(prefix)]
            if inside and not recursive:
                raise OSError(f"{path} is not empty")
            for p in inside:
                self._files.pop(p, None)
                self._dirs.discard(p)
            self._dirs.discard(path)
        else:
            raise FileNotFoundError(f"no such file or folder: {path}")
        self._changed()

    list = listdir  # the short name tasks reach for first
