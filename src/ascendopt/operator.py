"""Operators as immutable source bundles: <tiling T, kernel K, spec S>.

An operator directory in the cann-ops / msOpGen layout is read into an :class:`Operator`:
every source file under ``op_host/`` and ``op_kernel/`` (relative path -> text), plus the
directory's ``tests/st`` location. Editing a file yields a new Operator with a parent link;
identical sources have identical digests.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Mapping

from ascendopt.host_sources import graph_level_sources, strip_comments  # noqa: F401 (graph_level_sources re-exported)
from ascendopt.opdef_params import as_written
from ascendopt.oprepo import AUTO_SYNC_DEFAULT, OpRepo, cce_auto_sync, external_files, find_repo, fingerprint

if TYPE_CHECKING:
    from ascendopt.slots import HostSlots

SOURCE_SUFFIXES = (".cpp", ".cc", ".h", ".hpp", ".cxx")
_OP_ADD = re.compile(r"\bOP_ADD\s*\(\s*(\w+)\s*[,)]")
_IMPL_OPTILING = re.compile(r"\bIMPL_OP_OPTILING\s*\(\s*(\w+)\s*\)")
_REGISTER_TILING = re.compile(r"\bREGISTER_TILING_DATA_CLASS\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)")
_KERNEL_ENTRY = re.compile(
    r'extern\s*"C"\s*(?:(?:__global__|__aicore__|inline|__attribute__\s*\(\([^)]*\)\))\s+)*void\s+(\w+)\s*\('
)

_strip_comments = strip_comments  # the name other modules import


#: Op types resolved when an operator directory was loaded, by (directory, name): the
#: candidates made from it share its directory and its type.
_LOADED_TYPES: dict[tuple[str, str], str] = {}


class OperatorError(ValueError):
    """The directory is not a usable operator (missing files, no OpDef registration, no kernel entry)."""


def snake_case(name: str) -> str:
    """Converts an op type such as ``AddCustom`` to ``add_custom`` (msOpGen's rule)."""
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s)
    return s.lower()


@dataclass(frozen=True)
class Operator:
    """Immutable sources of one operator.

    Attributes:
        name: Directory name (snake case by convention).
        files: Relative path (``op_host/x.cpp``) -> source text, for host and kernel files.
        root: The directory it was loaded from (tests, cases and goldens live there).
        parent: Digest of the operator this one was derived from, if any.
        origin: Free-form label of how it was made (``"original"``, ``"stage2/evo"``, ...).
        slots: Optional build hint (not part of the identity): the host files as a
            parameterized source plus slot values (:mod:`ascendopt.slots`); a backend may
            use it to reuse one host build across knob values, and must ignore it unless it
            renders to exactly these files.

    An operator whose directory sits in a repository with shared code (:mod:`ascendopt.oprepo`)
    is built with that repository's conventions (:attr:`repo`), and its digest covers the
    external files it uses.
    """

    name: str
    files: Mapping[str, str]
    root: Path
    parent: str | None = None
    origin: str = "original"
    _digest: str = field(default="", compare=False, repr=False)
    slots: "HostSlots | None" = field(default=None, compare=False, repr=False)
    _memo: dict = field(default_factory=dict, compare=False, repr=False)

    @staticmethod
    def load(path: str | Path) -> "Operator":
        root = Path(path).resolve()
        if not root.is_dir():
            raise OperatorError(f"{path}: not a directory")
        files: dict[str, str] = {}
        for sub in ("op_host", "op_kernel"):
            d = root / sub
            if not d.is_dir():
                raise OperatorError(f"{root}: missing {sub}/ (expected the cann-ops operator layout)")
            for f in sorted(d.rglob("*")):
                if f.is_file() and f.suffix in SOURCE_SUFFIXES:
                    files[f.relative_to(root).as_posix()] = f.read_text(errors="replace")
        op = Operator(name=root.name, files=MappingProxyType(files), root=root)
        _LOADED_TYPES[(str(root), root.name)] = resolve_op_type(op)  # once, explicitly
        op.kernel_file
        return op

    @staticmethod
    def from_files(name: str, files: Mapping[str, str], root: str | Path = ".", parent: str | None = None,
                   origin: str = "original") -> "Operator":
        """Builds an Operator from a ``relative path -> text`` mapping (e.g. sources read back
        from the record store). `root` is where the operator's tests/cases live, if anywhere."""
        bad = [k for k in files if not k.startswith(("op_host/", "op_kernel/"))]
        if bad:
            raise OperatorError(f"{name}: source paths must start with op_host/ or op_kernel/: {bad}")
        return Operator(name=name, files=MappingProxyType(dict(sorted(files.items()))), root=Path(root),
                        parent=parent, origin=origin)

    def __reduce__(self):
        # MappingProxyType does not pickle; ship a plain dict (process pools, Ray).
        known = self._memo.get("op_type") or _LOADED_TYPES.get((str(self.root), self.name), "")
        return (_restore, (self.name, dict(self.files), str(self.root), self.parent, self.origin, self.slots, known))

    def diff(self, other: "Operator | Mapping[str, str] | None" = None, context: int = 3) -> str:
        """Unified diff from `other` (default: nothing, i.e. every file added) to this operator.

        Typical use: ``child.diff(parent)``; ``other`` may also be a plain files mapping, such
        as sources read back from the record store by the parent digest.
        """
        import difflib

        old = dict(other.files) if isinstance(other, Operator) else dict(other or {})
        out: list[str] = []
        for rel in sorted(set(old) | set(self.files)):
            a, b = old.get(rel), self.files.get(rel)
            if a == b:
                continue
            out += difflib.unified_diff((a or "").splitlines(keepends=True), (b or "").splitlines(keepends=True),
                                        fromfile=f"a/{rel}" if a is not None else "/dev/null",
                                        tofile=f"b/{rel}" if b is not None else "/dev/null", n=context)
            if out and not out[-1].endswith("\n"):
                out[-1] += "\n"
        return "".join(out)

    @property
    def digest(self) -> str:
        """sha256 over the sorted (path, text) pairs, and over the external files the
        operator uses (:attr:`external_fingerprint`) when it uses any."""
        if not self._digest:
            h = hashlib.sha256()
            for k in sorted(self.files):
                h.update(k.encode() + b"\0" + self.files[k].encode() + b"\0")
            if self.external_fingerprint:
                h.update(b"external\0" + self.external_fingerprint.encode())
            object.__setattr__(self, "_digest", h.hexdigest())
        return self._digest

    @property
    def repo(self) -> OpRepo | None:
        """Build conventions of the repository around :attr:`root` (None: a standalone operator)."""
        if "repo" not in self._memo:
            self._memo["repo"] = find_repo(self.root) if str(self.root) not in ("", ".") else None
        return self._memo["repo"]

    @property
    def auto_sync(self) -> bool:
        """Whether the operator's build compiles its kernel with the compiler's automatic
        synchronisation (``--cce-auto-sync``, read from its CMake files: :func:`cce_auto_sync`; on
        unless they turn it off, as the toolkit's compile has it; a bundle without a directory
        has the default, on)."""
        if "auto_sync" not in self._memo:
            self._memo["auto_sync"] = (cce_auto_sync(self.root) if str(self.root) not in ("", ".")
                                       else AUTO_SYNC_DEFAULT)
        return self._memo["auto_sync"]

    @property
    def external_fingerprint(self) -> str:
        """Hash of the repository files this operator's build reads ('' when none)."""
        if "ext" not in self._memo:
            self._memo["ext"] = fingerprint(self.repo, self.files, self.root) if self.repo else ""
        return self._memo["ext"]

    def external_files(self) -> list[Path]:
        """Repository files outside the operator that its build reads (shared sources and
        the headers they and the operator's sources include)."""
        if self.repo is None:
            return []
        if "ext_files" not in self._memo:
            self._memo["ext_files"] = external_files(self.repo, self.files, self.root)
        return list(self._memo["ext_files"])

    def with_file(self, rel: str, text: str, origin: str | None = None) -> "Operator":
        """Returns a new Operator with one file replaced (or added)."""
        files = dict(self.files)
        files[rel] = text
        return Operator(self.name, MappingProxyType(files), self.root, self.digest, origin or self.origin)

    def host_files(self) -> list[str]:
        return [k for k in self.files if k.startswith("op_host/")]

    def kernel_files(self) -> list[str]:
        return [k for k in self.files if k.startswith("op_kernel/")]

    @property
    def op_type(self) -> str:
        """The op type the op_host sources register (``OP_ADD``): written literally (not in a
        macro's body), else the one :meth:`load` resolved for the operator's directory (made by a
        macro: found once, explicitly, in the preprocessed sources, :func:`resolve_op_type`).
        Never runs a compiler."""
        if "op_type" not in self._memo:
            found = _literal_op_type(self) or _LOADED_TYPES.get((str(self.root), self.name))
            if found is None:
                raise OperatorError(f"{self.root}: no OpDef registration (OP_ADD) written literally in op_host/ "
                                    "(one made by a macro is resolved when the directory is loaded: Operator.load)")
            self._memo["op_type"] = found
        return self._memo["op_type"]

    @property
    def kernel_file(self) -> str:
        """The op_kernel source that defines the extern "C" kernel entry."""
        candidates = []
        for k in self.kernel_files():
            if k.endswith((".cpp", ".cc", ".cxx")) and _KERNEL_ENTRY.search(strip_comments(self.files[k])):
                candidates.append(k)
        if not candidates:
            raise OperatorError(f'{self.root}: no extern "C" __global__ __aicore__ kernel entry in op_kernel/')
        preferred = f"op_kernel/{snake_case(self.op_type)}.cpp"
        return preferred if preferred in candidates else candidates[0]

    @property
    def kernel_entry(self) -> str:
        m = _KERNEL_ENTRY.search(strip_comments(self.files[self.kernel_file]))
        assert m is not None
        return m.group(1)

    def tiling_headers(self) -> list[str]:
        """Host headers that define tiling data structs (needed by the kernel's GET_TILING_DATA)."""
        return [k for k in self.host_files() if k.endswith((".h", ".hpp")) and "BEGIN_TILING_DATA_DEF" in self.files[k]]

    def external_tiling_headers(self) -> list[Path]:
        """Repository headers the host build reads that define tiling data structs (the
        real build generates the kernel's tiling struct from what the tiling library
        registers, wherever it is defined)."""
        return [p for p in self.external_files() if p.suffix in (".h", ".hpp")
                and "BEGIN_TILING_DATA_DEF" in p.read_text(errors="replace")]

    @property
    def tiling_struct(self) -> str | None:
        regs: list[tuple[str, str]] = []
        for k in self.host_files():
            regs += _REGISTER_TILING.findall(strip_comments(self.files[k]))
        for p in self.external_tiling_headers():
            regs += _REGISTER_TILING.findall(strip_comments(p.read_text(errors="replace")))
        for op, cls in regs:
            if op == self.op_type:
                return cls
        return regs[0][1] if regs else None

    def write_to(self, dest: str | Path) -> Path:
        """Writes the sources (and copies of tests/ and of the operator's own ``CMakeLists.txt``
        and ``op_kernel/CMakeLists.txt``, which hold its kernel compile options: :attr:`auto_sync`)
        to a new directory."""
        import shutil

        dest = Path(dest)
        dest.mkdir(parents=True, exist_ok=True)
        for rel, text in self.files.items():
            p = dest / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        tests = self.root / "tests"
        if tests.is_dir() and not (dest / "tests").exists():
            shutil.copytree(tests, dest / "tests")
        if str(self.root) not in ("", "."):
            for rel in ("CMakeLists.txt", "op_kernel/CMakeLists.txt"):
                if (self.root / rel).is_file() and not (dest / rel).exists():
                    shutil.copyfile(self.root / rel, dest / rel)
        return dest


def _restore(name: str, files: dict[str, str], root: str, parent: str | None, origin: str,
             slots: "HostSlots | None" = None, op_type: str = "") -> Operator:
    if op_type:  # the type its directory was loaded with (a worker process loaded nothing)
        _LOADED_TYPES.setdefault((root, name), op_type)
    return Operator(name, MappingProxyType(files), Path(root), parent, origin, slots=slots)


def _literal_op_type(op: Operator) -> str | None:
    """The op type an op_host source registers literally (``OP_ADD(Name)``), or None."""
    for k in op.host_files():
        m = _OP_ADD.search(as_written(op.files[k]))
        if m:
            return m.group(1)
    return None


def resolve_op_type(op: Operator) -> str:
    """The op type of a loaded operator: written literally, else made by a macro and found by
    preprocessing op_host with the simulator's compiler (the one function-local import of the
    backend, allowed in tests/test_import_cycles.py: the scan needs an Operator).

    Raises:
        OperatorError: No registration either way.
    """
    found = _literal_op_type(op)
    if found:
        return found
    from ascendopt.backends.sim.opdef_scan import registered_op_types

    names = registered_op_types(op)
    if not names:
        raise OperatorError(f"{op.root}: no OpDef registration (OP_ADD) found in op_host/, "
                            "literally or after preprocessing")
    return names[0]
