"""An operator's shared host tiling library (sources its CMakeLists adds by ``file(GLOB ...)``,
:attr:`ascendopt.oprepo.OpRepo.host_library_sources`), linked as a static library.

cann-ops' matmul and convolution operators add the whole ``common/op_host/op_tiling`` tree to
their tiling library; each uses a part of it (matmul: the GEMM cache tiling; convolution: the
cube and AOE bank code). The simulator compiles every source of the library once (the objects
are shared by all operators using it), archives those that compiled, and links the archive:
the linker takes only the objects that define symbols the operator's tiling references, so
the rest neither has to link nor runs. A source that does not compile against the simulator's
emulation is left out of the archive and its error kept; if the operator needs it, the link
fails on its undefined symbols and the report shows that source's compile error too.

The sources the operator's own tiling target adds (:attr:`~ascendopt.oprepo.OpRepo.host_library_kept`)
are a shared library in the real build, which keeps every object: an object whose only job is a
static registration (matmul's GEMM estimators) is linked although nothing references it, and the
registration runs. They are linked as objects, before the archive (:func:`link_keeping`); one
whose own link fails (a symbol the simulator does not define, a definition the operator's
sources also make) is left to the archive, as a source that did not compile is left out.
"""

from __future__ import annotations

import hashlib
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

OBJ = "lib.o"
FAILED = "failed.txt"
ARCHIVE = "libtiling.a"
_ERROR_LINES = 12  # of one failed source, in a link error


@dataclass
class LibraryObject:
    """One library source's cache directory: ``lib.o`` when it compiled, ``failed.txt`` when not."""

    source: Path
    dir: Path
    last_error: str = ""  # this build's compile error (also when not cached: a timeout)

    @property
    def done(self) -> bool:
        return (self.dir / "ok").exists() or (self.dir / FAILED).exists()

    @property
    def ok(self) -> bool:
        return (self.dir / "ok").exists()

    def error(self) -> str:
        f = self.dir / FAILED
        return f.read_text(errors="replace") if f.exists() else self.last_error


def object_dir(cache_dir: Path, key: str) -> Path:
    return cache_dir / "library" / key


def record(obj: LibraryObject, tmp: Path, error: str, publish: Callable[[Path, Path], None],
           cacheable: bool) -> None:
    """Publishes the result of compiling `obj` in `tmp` (an error is cached too, unless it may
    be load-dependent: `cacheable` False)."""
    if not error:
        (tmp / "ok").write_text("")
        publish(tmp, obj.dir)
    elif cacheable:
        for f in tmp.iterdir():
            f.unlink()
        (tmp / FAILED).write_text(error[-8000:])
        publish(tmp, obj.dir)


def archive(cache_dir: Path, objs: list[LibraryObject], publish: Callable[[Path, Path], None],
            mkdir: Callable[[Path], Path]) -> tuple[Path | None, str]:
    """The static library of the objects that compiled (cached by their directories), and the
    archiver's error ("" when fine). ``ar`` runs outside the sandbox, as for the simulator's
    runtime library: it only packs objects, it runs no candidate code."""
    good = [o for o in objs if o.ok]
    if not good:
        return None, ""
    key = hashlib.sha256("\0".join(str(o.dir) for o in good).encode()).hexdigest()
    final = cache_dir / "library" / ("a-" + key)
    if (final / "ok").exists():
        return final / ARCHIVE, ""
    tmp = Path(tempfile.mkdtemp(prefix="lib-", dir=mkdir(cache_dir / "tmp")))
    res = subprocess.run(["ar", "rcs", str(tmp / ARCHIVE), *(str(o.dir / OBJ) for o in good)],
                         capture_output=True, text=True)
    if res.returncode != 0:
        return None, res.stderr.strip() or f"ar exited with {res.returncode}"
    (tmp / "ok").write_text("")
    publish(tmp, final)
    return final / ARCHIVE, ""


def kept_objects(objs: list[LibraryObject], kept_sources: tuple[Path, ...]) -> list[Path]:
    """The objects of `objs` (those that compiled) whose sources are in `kept_sources`."""
    keep = set(kept_sources)
    return [o.dir / OBJ for o in objs if o.ok and o.source in keep]


def link_keeping(link: Callable[[list[Path]], str], kept: list[Path]) -> str:
    """Links with `kept` (objects linked whatever references them): ``link(objects)`` runs the
    link with those objects and returns its error ("" when fine). When it fails, the kept objects
    the linker's messages name (an undefined reference in one, a definition it duplicates) are
    dropped and the link tried again; when it fails naming none of them, once more with none.
    Returns the last link's error."""
    err = link(kept)
    while err and kept:
        named = [o for o in kept if str(o) in err]
        kept = [o for o in kept if o not in named] if named else []
        err = link(kept)
    return err


def explain_link_error(err: str, objs: list[LibraryObject]) -> str:
    """`err` (a failed link) followed by the compile errors of the library sources left out of
    the archive: an undefined symbol may be defined in one of them."""
    failed = [o for o in objs if not o.ok]
    if not failed or "undefined reference" not in err:
        return err
    parts = [err, "", f"{len(failed)} source(s) of the operator's host tiling library did not compile against "
                     "the simulator and were left out (an undefined symbol above may be theirs):"]
    for o in failed:
        lines = [ln for ln in o.error().splitlines() if ln.strip()]
        first = next((i for i, ln in enumerate(lines) if "error" in ln), 0)
        parts.append(f"--- {o.source}")
        parts += lines[first:first + _ERROR_LINES]
    return "\n".join(parts)
