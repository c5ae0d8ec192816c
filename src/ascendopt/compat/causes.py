"""Why an operator does not pass: compiler output and failed runs turned into *causes*.

A :class:`Cause` has a ``label`` that totals can count (no paths, no line numbers), an
``origin`` and ``where`` — the ``file:line`` in the operator's sources it points at:

- ``simulator``: our emulation of the toolkit lacks something or differs from it. A name,
  member or header that the operator uses and does not itself declare comes from the CANN
  toolkit (the operator builds there), so its absence is ours: "AscendC API `Xyz` is not
  emulated by the simulator", "header `tiling/tiling_base.h` is not provided by the
  simulator". Names qualified with a toolkit namespace (:data:`TOOLKIT_NAMESPACES`) are
  reported with it (``gert::TilingContext::GetFoo``); an error inside our emulation headers
  is reported at the operator line that reached it.
- ``operator``: an error in the operator's own code or files (a name it declares itself,
  a header of its own that is missing, a syntax error).
- ``run``: the operator built and a case failed: the typed runtime status (``ub_overflow``,
  ``race``, ``gm_out_of_bounds``, ...), a wrong result, a tiling error, a timeout.
- ``cases``: its cases or golden could not be used (case files we cannot parse, no cases, a
  golden that imports a framework that is absent).

The rules read gcc's diagnostics (either quote style), nothing operator-specific.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Mapping

#: Namespaces of the toolkit APIs we emulate: a missing name qualified with one is ours.
TOOLKIT_NAMESPACES = ("AscendC", "gert", "optiling", "ge", "platform_ascendc", "matmul_tiling", "fe", "op")

SIMULATOR, OPERATOR, RUN, CASES = "simulator", "operator", "run", "cases"

#: C++ standard library names operators use without ``std::`` (the toolkit's headers make
#: them visible): an undeclared one is a visibility gap of our headers, not a missing API.
STD_NAMES = frozenset("""map set vector string unordered_map unordered_set pair make_pair tuple make_tuple array
    min max swap move forward function shared_ptr unique_ptr make_shared make_unique to_string numeric_limits
    ostringstream stringstream cout cerr endl sort find accumulate abs ceil floor sqrt memcpy memset
    is_same is_same_v enable_if conditional initializer_list optional variant""".split())


@dataclass(frozen=True)
class Cause:
    """Why an operator failed.

    Attributes:
        label: What totals count, e.g. "AscendC API `GatherMask` is not emulated by the simulator".
        origin: ``simulator``, ``operator``, ``run`` or ``cases`` (module docstring).
        where: ``op_kernel/x.cpp:73`` (relative to the operator directory) or "".
        detail: The first line of the underlying message (compiler error, run message).
    """

    label: str
    origin: str
    where: str = ""
    detail: str = ""

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


# ------------------------------------------------------------------------- gcc diagnostics
_Q = r"[‘'`]"  # gcc quotes names ‘x’ in UTF-8 locales and 'x' in C
_E = r"[’'`]"
_DIAG = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?:(?P<col>\d+):)?\s+"
                   r"(?P<sev>fatal error|error|note|warning):\s*(?P<msg>.*)$")
_CONTEXT = re.compile(r"^(?:In file included from|\s+from)\s+(?P<file>[^:]+):(?P<line>\d+)[,:]"
                      r"|^(?P<file2>[^\s:][^:]*):(?P<line2>\d+):(?:\d+:)?\s+required from")
_SNIPPET = re.compile(r"^\s*\d+\s\|\s?(?P<src>.*)$")
_LINK = re.compile(r"undefined reference to [`‘'](?P<sym>[^’'`]+)[’'`]")


@dataclass(frozen=True)
class _Diag:
    sev: str
    file: str
    line: int
    col: int
    msg: str
    snippet: str = ""


def _parse(text: str) -> tuple[list[_Diag], list[tuple[int, str, int]]]:
    """gcc output -> (diagnostics in order, context locations as (diag index, file, line))."""
    diags: list[_Diag] = []
    ctx: list[tuple[int, str, int]] = []
    lines = text.splitlines()
    for i, ln in enumerate(lines):
        m = _DIAG.match(ln)
        if m:
            snip = _SNIPPET.match(lines[i + 1]) if i + 1 < len(lines) else None
            diags.append(_Diag(m["sev"], m["file"], int(m["line"]), int(m["col"] or 0), m["msg"].strip(),
                               snip["src"] if snip else ""))
            continue
        c = _CONTEXT.match(ln)
        if c:
            ctx.append((len(diags), c["file"] or c["file2"], int(c["line"] or c["line2"])))
    return diags, ctx


class _Source:
    """The operator's files, for locating and declaring names."""

    def __init__(self, root: Path, files: Mapping[str, str]):
        self.root = str(root).rstrip("/") + "/"
        self.files = files
        self._decl: dict[str, bool] = {}

    def rel(self, path: str) -> str | None:
        """``path`` relative to the operator directory, None when outside it. A cached build
        of the same sources may name another copy of the directory: its ``op_host/...`` or
        ``op_kernel/...`` tail counts when the operator has that file."""
        if path.startswith(self.root):
            return path[len(self.root):]
        at = max(path.rfind("/op_host/"), path.rfind("/op_kernel/"))
        return path[at + 1:] if at >= 0 and path[at + 1:] in self.files else None

    def where(self, d: _Diag | tuple[str, int]) -> str:
        file, line = (d.file, d.line) if isinstance(d, _Diag) else d
        rel = self.rel(file)
        return f"{rel}:{line}" if rel else ""

    def declares(self, name: str) -> bool:
        """Whether the operator's own sources declare ``name`` (type, namespace, macro,
        function, variable or tiling field): then a use it cannot see is the operator's."""
        if name not in self._decl:
            n = re.escape(name)
            pat = re.compile(
                rf"\b(?:class|struct|union|enum(?:\s+class|\s+struct)?|namespace|using)\s+{n}\b"
                rf"|#\s*define\s+{n}\b|\btypedef\b[^;]*\b{n}\s*;"
                rf"|\b(?!return\b|else\b|new\b|delete\b|throw\b|case\b|goto\b)[A-Za-z_][\w:]*(?:<[^;()]*?>)?"
                rf"[\s*&]+{n}\s*(?:\(|=|;|\[|\{{)"
                rf"|\bBEGIN_TILING_DATA_DEF\s*\(\s*{n}\s*\)"
                rf"|\bTILING_DATA_FIELD_DEF(?:_ARR|_STRUCT)?\s*\((?:[^,()]*,\s*)+{n}\s*\)")
            self._decl[name] = any(pat.search(_strip_comments(t)) for t in self.files.values())
        return self._decl[name]

    def tiling_data(self, cls: str) -> bool:
        """Whether ``cls`` is a tiling data class (``BEGIN_TILING_DATA_DEF(cls)``)."""
        pat = re.compile(rf"\bBEGIN_TILING_DATA_DEF\s*\(\s*{re.escape(cls)}\s*\)")
        return any(pat.search(t) for t in self.files.values())

    def first_use(self, name: str) -> str:
        """``file:line`` of the first line of the operator's sources that names ``name``."""
        pat = re.compile(rf"\b{re.escape(name)}\b")
        for rel in sorted(self.files, key=lambda k: (not k.startswith("op_kernel/"), k)):
            for i, ln in enumerate(self.files[rel].splitlines(), 1):
                if pat.search(ln):
                    return f"{rel}:{i}"
        return ""


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def _strip_templates(name: str) -> str:
    """``class AscendC::TBuf<AscendC::TPosition::VECCALC>`` -> ``AscendC::TBuf``."""
    name = re.sub(r"^(?:class|struct|union|enum)\s+", "", name.strip())
    out, depth = [], 0
    for ch in name:
        depth += ch == "<"
        if depth == 0:
            out.append(ch)
        depth -= ch == ">" and depth > 0
    return "".join(out).strip()


def _api(scope: str, name: str) -> str:
    """How an API is named in a label: AscendC's without the namespace, others with it."""
    full = f"{scope}::{name}" if scope else name
    return full[len("AscendC::"):] if full.startswith("AscendC::") else full


def _toolkit(scope: str) -> bool:
    return bool(scope) and scope.split("::")[0] in TOOLKIT_NAMESPACES


def _not_emulated(api: str, where: str, detail: str) -> "Cause":
    return Cause(f"AscendC API `{api}` is not emulated by the simulator", SIMULATOR, where, detail)


def _qualified_at(snippet: str, col: int, name: str) -> str:
    """``AscendC::Foo`` when the source at ``col`` reads ``name::Foo`` (a namespace that is
    not declared at all on this side), else ``name``."""
    m = re.compile(rf"{re.escape(name)}((?:::\w+)+)").match(snippet, max(0, col - 1)) if col else None
    return name + m.group(1) if m else name


_MISSING_HEADER = re.compile(r"^(?P<h>[^:]+): No such file or directory")
_QUALIFIED = re.compile(rf"^{_Q}(?P<name>[^’'`]+){_E} (?:is not a member of|in namespace) {_Q}(?P<scope>[^’'`]+){_E}")
_MEMBER = re.compile(rf"^(?:{_Q}(?P<type>[^’'`]+){_E}(?: {{aka {_Q}[^’'`]+{_E}}})?|class {_Q}(?P<type2>[^’'`]+){_E})"
                     rf" (?:has no member named|does not have any field named) {_Q}(?P<name>[^’'`]+){_E}")
_UNDECLARED = re.compile(rf"^(?:{_Q}(?P<a>[^’'`]+){_E} (?:was not declared in this scope|does not name a "
                         rf"(?:template )?type|has not been declared|is not a template)"
                         rf"|there are no arguments to {_Q}(?P<b>[^’'`]+){_E} that depend on a template parameter)")
_STD_HEADER = re.compile(rf"{_Q}(?P<name>std::\w+){_E} is defined in header {_Q}(?P<h><[\w./]+>){_E}")
_NO_MATCH_CALL = re.compile(rf"^no matching (?:member )?function for call to {_Q}(?P<call>[^’'`(]+)")
_AMBIGUOUS = re.compile(rf"^call of overloaded {_Q}(?P<call>[\w:]+)")
_NO_OPERATOR = re.compile(rf"^no match for {_Q}operator(?P<op>[^’'`]+){_E} \(operand types are "
                          rf"{_Q}(?P<t1>[^’'`]+){_E}(?: and {_Q}(?P<t2>[^’'`]+){_E})?")


def classify_compile_error(text: str, root: Path, files: Mapping[str, str], include_dir: Path | None = None) -> Cause:
    """The cause of a failed build from the compiler's (or linker's) output.

    Args:
        text: The build's error text (paths already pointing at the operator directory).
        root: The operator directory.
        files: The operator's sources (relative path -> text).
        include_dir: Our emulation headers (errors inside them are the simulator's).
    """
    src = _Source(root, files)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not lines:
        return Cause("compile_error (no compiler output)", SIMULATOR)
    if "compiler timed out" in text:
        return Cause("the compiler timed out", SIMULATOR, "", next(ln for ln in lines if "timed out" in ln)[:240])
    diags, ctx = _parse(text)
    errors = [(i, d) for i, d in enumerate(diags) if d.sev in ("error", "fatal error")]
    if not errors:
        m = _LINK.search(text)
        if m:
            sym = m["sym"].split("(")[0]
            scope, _, name = _strip_templates(sym).rpartition("::")
            origin = SIMULATOR if _toolkit(scope) or not src.declares(name) else OPERATOR
            label = (f"AscendC API `{_api(scope, name)}` is declared but not implemented by the simulator"
                     if origin == SIMULATOR else f"operator code: `{name}` is declared but never defined")
            return Cause(label, origin, src.first_use(name), m.group(0)[:240])
        first = next((ln for ln in lines if "error" in ln.lower()), lines[0])
        return Cause("compile_error: " + _short(first), SIMULATOR, "", first[:240])
    idx, err = errors[0]
    inc = str(include_dir).rstrip("/") + "/" if include_dir else None
    detail = (f"{src.where(err) or Path(err.file).name + ':' + str(err.line)}: {err.sev}: {err.msg}")[:240]
    where = src.where(err) or _context_where(src, ctx, diags, idx)
    block = diags[idx + 1:next((j for j, _ in errors[1:]), len(diags))]  # its notes
    in_ours = bool(inc) and (err.file.startswith(inc) or any(n.file.startswith(inc) for n in block))

    m = _MISSING_HEADER.match(err.msg) if err.sev == "fatal error" else None
    if m:
        return _missing_header(m["h"].strip(), err, src, where, detail)
    std = _STD_HEADER.search("\n".join(n.msg for n in block))
    if std and re.search(r"(?:not a member of|in namespace) [‘']std[’']", err.msg):
        return Cause(f"`{std['name']}` needs `{std['h']}`: the simulator's headers do not include it (the toolkit's "
                     "do)", SIMULATOR, where, detail)
    m = _QUALIFIED.match(err.msg)
    if m:
        scope, name = _strip_templates(m["scope"]), m["name"]
        if _toolkit(scope) and not src.declares(name):
            return _not_emulated(_api(scope, name), where, detail)
        return Cause(f"operator code: `{name}` is not a member of `{scope}`", OPERATOR, where, detail)
    m = _MEMBER.match(err.msg)
    if m:
        scope, name = _strip_templates(m["type"] or m["type2"]), m["name"]
        cls = scope.rpartition("::")[2]
        if not src.declares(cls):  # a toolkit class (ours), or one from elsewhere (std::)
            if _toolkit(scope):
                return _not_emulated(_api(scope, name), where, detail)
        elif src.tiling_data(cls) and not src.declares(name):
            return Cause(f"the simulator's tiling data macros do not generate `{name}`", SIMULATOR, where, detail)
        return Cause(f"operator code: `{scope}` has no member `{name}`", OPERATOR, where, detail)
    m = _UNDECLARED.match(err.msg)
    if m:
        name = _strip_templates(m["a"] or m["b"])
        if "::" in name:
            scope, _, name = name.rpartition("::")
        else:
            scope = ""
            if name in TOOLKIT_NAMESPACES or re.search(rf"\b{re.escape(name)}::\w", err.snippet):
                scope, _, name = _qualified_at(err.snippet, err.col, name).rpartition("::")
        if src.declares(name):
            return Cause(f"operator code: `{name}` is declared by the operator but not visible here",
                         OPERATOR, where, detail)
        if not scope and re.fullmatch(r"(?:ORIG_)?DTYPE_\w+", name):
            return Cause(f"build macro `{name}` (a tensor's dtype) is not defined by the simulator's build",
                         SIMULATOR, where, detail)
        if not scope and name in STD_NAMES:
            return Cause(f"`{name}` is used without `std::`: the simulator's headers do not make `std::{name}` "
                         "visible (the operator expects a toolkit header to)", SIMULATOR, where, detail)
        if scope and not _toolkit(scope) and src.declares(scope.split("::")[0]):
            return Cause(f"operator code: `{scope}::{name}` is not declared", OPERATOR, where, detail)
        return _not_emulated(_api(scope, name), where, detail)
    m = _AMBIGUOUS.match(err.msg)
    if m and in_ours:
        name = m["call"].split("<")[0]
        return Cause(f"the simulator declares `{name}`, which clashes with the operator's own", SIMULATOR, where, detail)
    m = _NO_MATCH_CALL.match(err.msg)
    if m:
        scope, _, name = _strip_templates(m["call"]).rpartition("::")
        if _toolkit(scope) or in_ours:
            return Cause(f"AscendC API `{_api(scope, name)}` is emulated, but not for these arguments", SIMULATOR,
                         where, detail)
    m = _NO_OPERATOR.match(err.msg)
    if m:
        types = [_strip_templates(t) for t in (m["t1"], m["t2"]) if t]
        ours = [t for t in types if _toolkit(t.rpartition("::")[0])]
        if ours:
            return _not_emulated(f"{_api(*ours[0].rpartition('::')[::2])} operator{m['op']}", where, detail)
    if inc and err.file.startswith(inc):
        return Cause(f"error inside the simulator's headers: {_short(err.msg)}", SIMULATOR, where, detail)
    return Cause(f"operator code: {_short(err.msg)}", OPERATOR, where, detail)


def _context_where(src: _Source, ctx: list[tuple[int, str, int]], diags: list[_Diag], idx: int) -> str:
    """The operator line that reached an error outside its files: the last include or
    instantiation context before it, else the first operator location among its notes."""
    for at, file, line in reversed(ctx):
        if at <= idx and src.rel(file):
            return src.where((file, line))
    for d in diags[idx + 1:]:
        if d.sev in ("error", "fatal error"):
            break
        if src.rel(d.file):
            return src.where(d)
    return ""


def _missing_header(header: str, err: _Diag, src: _Source, where: str, detail: str) -> Cause:
    """A header the toolkit provides is ours to provide; one of the operator's own (it
    exists beside the including file, or names a path up the tree) is the operator's."""
    including = Path(err.file)
    beside = (including.parent / header).resolve()
    if beside.is_file():  # in the checkout but not in the operator's op_host/ + op_kernel/ build
        inside = src.rel(str(beside))
        what = "is in the operator directory but not among its built sources" if inside else \
            "is outside the operator directory (only op_host/ and op_kernel/ are built)"
        return Cause(f"header `{header}` {what}", SIMULATOR, where, detail)
    if header.startswith(("./", "../")) or Path(header).name in {Path(k).name for k in src.files}:
        return Cause(f"operator's own header `{header}` is missing", OPERATOR, where, detail)
    return Cause(f"header `{header}` is not provided by the simulator", SIMULATOR, where, detail)


def _short(msg: str, n: int = 70) -> str:
    """A message made countable: quoted template arguments dropped, shortened."""
    msg = re.sub(r"\[-f[\w-]+\]$", "", msg).strip()
    msg = re.sub(r"<[^<>]*(?:<[^<>]*>[^<>]*)*>", "<…>", msg)
    return msg if len(msg) <= n else msg[: n - 1] + "…"
