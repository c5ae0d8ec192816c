"""The builder's part for operators that live in a repository with shared code
(:mod:`ascendopt.oprepo`): shared host sources, the host tiling library, CMake's separate
libraries, and quoted includes that leave the operator directory. A mixin of
:class:`~ascendopt.backends.sim.build.SimBuilder` (it uses the builder's cache, toolchain key,
host compile command and publishing)."""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from pathlib import Path

from ascendopt.backends.sim import host_library, host_targets
from ascendopt.backends.sim.toolchain import _hash, _Job
from ascendopt.operator import Operator
from ascendopt.oprepo import external_files, fingerprint


class RepoBuild:
    """Repository-aware object lists and include flags (see the module docstring)."""

    def _shared_objects(self, op: Operator) -> tuple[list[Path], list[tuple[_Job, Path]]]:
        """The cache directories of the objects of `op`'s shared host sources (each holds
        ``shared.o``), and the jobs that build the ones not cached yet (their output in a
        temp dir, to be published to the matching directory)."""
        repo = op.repo
        if repo is None or not repo.host_sources:
            return [], []
        pch = self.host_prelude()
        closure = fingerprint(repo, {}, op.root)  # the shared sources and what they include
        dirs: list[Path] = []
        jobs: list[tuple[_Job, Path]] = []
        for src in repo.host_sources:
            key = _hash(self.toolchain_key, "shared", f"pch={bool(pch)}", repo.describe(), closure, str(src),
                        src.read_bytes())
            d = self.cache_dir / "shared" / key
            dirs.append(d)
            if not (d / "ok").exists():
                tmp = Path(tempfile.mkdtemp(prefix="shared-", dir=self._mkdir(self.cache_dir / "tmp")))
                jobs.append((_Job(self.host_compile_cmd(src, tmp / "shared.o", (), repo), tmp / "shared.o"), d))
        return dirs, jobs

    def _library_objects(self, op: Operator) -> tuple[list[host_library.LibraryObject],
                                                        list[tuple[_Job, host_library.LibraryObject]]]:
        """The objects of `op`'s host tiling library (:mod:`host_library`) and the jobs compiling
        those not cached yet. An object's key is what its compile reads: the toolchain, the
        command's include directories and definitions, and the source with the repository files
        it includes (not the operator: operators sharing the library share its objects)."""
        repo = op.repo
        if repo is None or not repo.host_library_sources:
            return [], []
        objs: list[host_library.LibraryObject] = []
        jobs: list[tuple[_Job, host_library.LibraryObject]] = []
        for src in repo.host_library_sources:
            cmd = self.host_compile_cmd(src, Path("lib.o"), (), repo)
            alone = dataclasses.replace(repo, host_sources=(src,), host_library_sources=())
            closure = [p for p in external_files(alone, {}, op.root)]
            key = _hash(self.toolchain_key, "library", " ".join(cmd), *(str(p) + "\0" + p.read_text(errors="replace")
                                                                      for p in closure))
            obj = host_library.LibraryObject(src, host_library.object_dir(self.cache_dir, key))
            objs.append(obj)
            if not obj.done:
                tmp = Path(tempfile.mkdtemp(prefix="lib-", dir=self._mkdir(self.cache_dir / "tmp")))
                jobs.append((_Job(self.host_compile_cmd(src, tmp / host_library.OBJ, (), repo),
                                  tmp / host_library.OBJ), obj))
        return objs, jobs

    @staticmethod
    def _separate_libraries(groups: tuple[tuple[str, ...], ...], host_objs: dict[str, Path], shared: list[Path],
                            host_tmp: Path) -> str:
        """Links the operator's host objects of each CMake library other than the tiling one
        into one object of their own in `host_tmp` (:mod:`host_targets`); the error or ""."""
        by_group = [[host_objs[r] for r in g if r in host_objs] for g in groups]
        grouped = {o for g in by_group for o in g}
        first = [o for o in host_objs.values() if o not in grouped] + by_group[0]
        _, err = host_targets.link_libraries([first, *by_group[1:]], shared, host_tmp)
        if not err:
            for g in by_group[1:]:
                for o in g:
                    o.unlink()
        return err

    @staticmethod
    def _built_by_repo(op: Operator, rel: str) -> bool:
        """False for an op_host source the operator's own build does not compile (its
        CMakeLists.txt names others but not this one: a stale copy). The source registering
        the OpDef is always built (the simulator reads the operator's signature from it)."""
        own = op.repo.host_own_sources if op.repo is not None else ()
        return not own or rel in own or "OP_ADD" in op.files.get(rel, "")

    def _outside_include_flags(self, op: Operator) -> list[str]:
        """Include options for quoted includes that leave the operator directory by a relative
        path (cann-ops operators share code across operator directories:
        ``#include "../../mat_mul_v3/op_host/mat_mul_v3_tiling.h"``). The repository files so
        reached (not through an include directory of the repository) are copied, at their place
        relative to the repository, into a tree keyed by the operator's external fingerprint,
        with empty op_host/ and op_kernel/ directories where the operator sits; those two are
        quoted-include directories, so a relative path that leaves the operator lands on the
        copies and nothing else changes (an empty directory shadows no header). The copies'
        directories are added last (``-idirafter``) so the sandboxed compiler may read them.
        Empty when the operator has no such include."""
        repo = op.repo
        if repo is None:
            return []
        dirs = (*repo.host_include_dirs, *repo.kernel_include_dirs)
        outside = [p for p in op.external_files()
                   if p not in repo.host_sources and p not in repo.host_library_sources and not any(p.is_relative_to(d) for d in dirs)]
        base = repo.src.parent
        root = op.root.resolve()
        if not outside or not root.is_relative_to(base):
            return []
        tree = self.cache_dir / "src" / ("ext-" + _hash(op.external_fingerprint, str(root.relative_to(base))))
        anchor = tree / root.relative_to(base)
        if not (tree / ".ok").exists():
            tmp = Path(tempfile.mkdtemp(prefix="ext-", dir=self._mkdir(self.cache_dir / "tmp")))
            for p in outside:
                dest = tmp / p.relative_to(base)
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(p, dest)
            for sub in ("op_host", "op_kernel"):
                (tmp / root.relative_to(base) / sub).mkdir(parents=True, exist_ok=True)
            (tmp / ".ok").write_text("")
            self._publish(tmp, tree)
        flags = ["-iquote", str(anchor / "op_host"), "-iquote", str(anchor / "op_kernel")]
        for d in dict.fromkeys((tree / p.relative_to(base)).parent for p in outside):
            flags += ["-idirafter", str(d)]
        return flags
