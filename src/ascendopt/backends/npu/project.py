"""Builds an operator the way CANN builds custom operators, into its own custom-opp install.

Per candidate (content-addressed, like the simulator's cache)::

    <cache>/npu/<key>/
      op.json            the operator's prototype for msOpGen (inputs, outputs, attrs, dtypes)
      project/           ``msopgen gen -i op.json -c ai_core-<SoC> -lan cpp -out project``, its
                         op_host/ and op_kernel/ sources replaced by the candidate's, its
                         CMakePresets.json pointed at this toolkit, this SoC and a vendor name of
                         its own, for an operator of a repository with shared code the
                         repository's conventions and the files it uses (:mod:`.repo_project`);
                         built with ``bash build.sh`` -> build_out/custom_opp_*.run
      opp/vendors/<vendor>/   ``custom_opp_*.run --install-path=<cache>/npu/<key>/opp``
      harness/           the aclnn host harness (:mod:`.harness`), ``cmake -S . -B build``
      result.json        what the build gave (written last: its presence means done)

Facts used (CANN documentation: msOpGen user guide, "Operator Package Deployment" of the Ascend C
operator development guide): ``msopgen gen -i <op>.json -c ai_core-<soc_version> -lan cpp -out
<dir>`` creates the project (``build.sh``, ``CMakePresets.json``, ``CMakeLists.txt``, ``cmake/``,
``op_host/``, ``op_kernel/``, ``framework/``, ``scripts/``); ``build.sh`` writes
``build_out/custom_opp_<os>_<arch>.run``; ``CMakePresets.json`` cache variables
``ASCEND_CANN_PACKAGE_PATH``, ``ASCEND_COMPUTE_UNIT`` and ``vendor_name`` (default
``customize``); ``custom_opp_*.run --install-path=<path>`` installs into
``<path>/vendors/<vendor_name>/`` (``op_api/include/aclnn_*.h``, ``op_api/lib/libcust_opapi.so``,
``op_impl/``, ``op_proto/``, ``bin/set_env.bash``), used through ``ASCEND_CUSTOM_OPP_PATH``.

Each candidate gets its own vendor name and install directory, so candidates never overwrite
each other's kernels and nothing is installed into the toolkit. The whole build does not depend
on the dtypes asked for (the package holds every dtype combination the OpDef registers): one
build serves every combination, the key of each :class:`BuildResult` names the combination.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from ascendopt.backends.base import BuildResult
from ascendopt.backends.npu.detect import CannInfo
from ascendopt.backends.npu.harness import HARNESS_NAME, Param, aclnn_names, opdef_signature, write_harness
from ascendopt.backends.npu.repo_project import apply_repo
from ascendopt.operator import Operator, OperatorError, snake_case

#: Bumped when the project layout, the build steps or the harness change (part of every key).
PROJECT_FORMAT = 2
BUILD_TIMEOUT_S = 1800.0
_ERROR_CHARS = 8000
_ERROR_LINE = re.compile(r"\berror\b|\bError\b|FAILED|fatal", re.I)
_locks: dict[str, threading.Lock] = {}
_locks_guard = threading.Lock()


def default_cache_dir() -> Path:
    return Path(os.environ.get("ASCENDOPT_CACHE", Path.home() / ".cache" / "ascendopt")) / "npu"


def compute_unit(soc: str) -> str:
    """CMakePresets' ``ASCEND_COMPUTE_UNIT`` for a SoC version (``Ascend910B2`` -> ``ascend910b``)."""
    return re.sub(r"\d+$", "", soc.lower()) or soc.lower()


class NpuBuilder:
    """Builds candidates into isolated custom-opp installs, with a content-addressed cache.

    Args:
        cann: The toolchain (:func:`~ascendopt.backends.npu.detect.detect`).
        soc: SoC version to build for.
        cache_dir: Where builds are kept (default ``$ASCENDOPT_CACHE/npu``).
        timeout_s: Wall-clock limit of each build step.
    """

    def __init__(self, cann: CannInfo, soc: str, cache_dir: Path | None = None, timeout_s: float = BUILD_TIMEOUT_S):
        self.cann = cann
        self.soc = soc
        self.cache_dir = Path(cache_dir) if cache_dir else default_cache_dir()
        self.timeout_s = timeout_s

    @property
    def toolchain_key(self) -> str:
        """Hash of the toolkit (home, version) and the compilers' identities."""
        ident = [str(self.cann.home), self.cann.version, *(f"{k}={v}" for k, v in
                                                           sorted(self.cann.tool_versions.items()))]
        return hashlib.sha256("\0".join(ident).encode()).hexdigest()[:16]

    def key(self, op: Operator) -> str:
        """Content key of a candidate's build: everything that goes into it and nothing else (the
        repository's conventions and the contents of the external files the build reads, as in
        the simulator's keys, included)."""
        h = hashlib.sha256(f"npu-project-{PROJECT_FORMAT}\0{self.toolchain_key}\0{self.soc}\0".encode())
        h.update((op.repo.describe() if op.repo else "").encode() + b"\0")
        h.update(op.external_fingerprint.encode() + b"\0" + op.op_type.encode() + b"\0")
        for rel in sorted(op.files):
            if rel.startswith(("op_host/", "op_kernel/")):
                h.update(rel.encode() + b"\0" + op.files[rel].encode() + b"\0")
        return h.hexdigest()[:24]

    def build(self, op: Operator, dtypes: dict[str, str]) -> BuildResult:
        """The candidate's harness, built once per content key. Never raises for a bad candidate."""
        t0 = time.perf_counter()
        try:
            key = self.key(op)
            params = opdef_signature(op)
        except OperatorError as e:
            return BuildResult(None, error=str(e))
        combo = hashlib.sha256(json.dumps(sorted(dtypes.items())).encode()).hexdigest()[:8]
        root = self.cache_dir / key
        with _lock(key), _file_lock(self.cache_dir / f"{key}.lock"):
            done = _read_result(root)
            cached = done is not None
            if done is None:
                done = self._build(op, params, root, key)
                if not done.get("timed_out"):  # a timeout may be load-dependent: never cached
                    (root / "result.json").write_text(json.dumps(done))
        seconds = 0.0 if cached else time.perf_counter() - t0
        if not done.get("ok"):
            return BuildResult(None, error=done.get("error", "build failed"), key=f"{key}-{combo}",
                               seconds=seconds, cached=cached, timed_out=bool(done.get("timed_out")))
        vendor = done["vendor_dir"]
        env = (("ASCEND_CUSTOM_OPP_PATH", vendor), ("LD_LIBRARY_PATH", str(Path(vendor) / "op_api" / "lib")))
        return BuildResult(Path(done["harness"]), key=f"{key}-{combo}", seconds=seconds, cached=cached, run_env=env)

    # ----------------------------------------------------------------------------- steps
    def _build(self, op: Operator, params: list[Param], root: Path, key: str) -> dict[str, Any]:
        if root.exists():
            shutil.rmtree(root)
        root.mkdir(parents=True)
        if not params:
            return {"ok": False, "error": f"{op.name}: no OpDef parameters found in the op_host sources "
                                          f"(this->Input(\"...\") / this->Output(\"...\"))"}
        vendor = f"ao_{key[:12]}"
        (root / "op.json").write_text(json.dumps([msopgen_prototype(op, params)], indent=2))
        proj = root / "project"
        steps = [("msopgen", [self.cann.tools["msopgen"], "gen", "-i", str(root / "op.json"),
                              "-c", f"ai_core-{self.soc}", "-lan", "cpp", "-out", str(proj)], root)]
        for name, cmd, cwd in steps:
            err = self._step(name, cmd, cwd)
            if err:
                return err
        try:
            overlay_sources(proj, op)
            apply_repo(proj, op)
            set_presets(proj / "CMakePresets.json", vendor, str(self.cann.home), compute_unit(self.soc))
        except (OSError, ValueError) as e:
            return {"ok": False, "error": f"the msOpGen project is not as expected: {e}"}
        err = self._step("build.sh", ["bash", "build.sh"], proj, compile_step=True)
        if err:
            return err
        runs = sorted((proj / "build_out").glob("custom_opp_*.run"))
        if not runs:
            return {"ok": False, "error": "build.sh finished without build_out/custom_opp_*.run"}
        runs[0].chmod(0o755)
        err = self._step("install", [str(runs[0]), f"--install-path={root / 'opp'}"], proj)
        if err:
            return err
        vendor_dir = root / "opp" / "vendors" / vendor
        header, _ = aclnn_names(op)
        if not (vendor_dir / "op_api" / "include" / header).exists():
            return {"ok": False, "error": f"the installed package has no op_api/include/{header} "
                                          f"(under {vendor_dir})"}
        hdir = write_harness(root / "harness", op, params)
        cmake = self.cann.tools["cmake"]
        for name, cmd in (("harness cmake", [cmake, "-S", str(hdir), "-B", str(hdir / "build"),
                                             f"-DASCEND_HOME={self.cann.home}", f"-DVENDOR_DIR={vendor_dir}",
                                             f"-DCMAKE_CXX_COMPILER={self.cann.tools['cxx']}"]),
                          ("harness build", [cmake, "--build", str(hdir / "build")])):
            err = self._step(name, cmd, hdir)
            if err:
                return err
        exe = hdir / "build" / HARNESS_NAME
        if not exe.exists():
            return {"ok": False, "error": f"the harness build wrote no {exe.name}"}
        return {"ok": True, "vendor_dir": str(vendor_dir), "harness": str(exe), "vendor": vendor}

    def _step(self, name: str, cmd: list[str], cwd: Path, compile_step: bool = False) -> dict[str, Any] | None:
        """Runs one build step, bounded; None when it succeeded, else the failure."""
        code, out, timed_out = run_tool(cmd, cwd, self.cann.env, self.timeout_s)
        if timed_out:
            return {"ok": False, "timed_out": True, "error": f"{name} did not finish within {self.timeout_s:g} s"}
        if code != 0:
            text = compiler_errors(out) if compile_step else out.strip()[-_ERROR_CHARS:]
            return {"ok": False, "error": f"{name} failed (exit {code}):\n{text}".strip()}
        return None


def msopgen_prototype(op: Operator, params: list[Param]) -> dict[str, Any]:
    """The operator's prototype in msOpGen's JSON input format. Only the project's framework
    is kept from what msOpGen generates (the candidate's own sources replace its stubs), so the
    dtypes listed are the OpDef's literal ``DataType({...})`` lists, ``float`` otherwise."""
    from ascendopt.cases import CaseError
    from ascendopt.dtypes import canonical_dtype

    def msopst(ge: str) -> str | None:
        try:
            name = canonical_dtype(ge)
        except CaseError:
            return None
        return "float" if name == "float32" else name

    def desc(p: Param) -> dict[str, Any]:
        types = [t for t in (msopst(g) for g in p.dtypes) if t] or ["float"]
        return {"name": p.name, "param_type": p.kind, "format": ["ND"] * len(types), "type": types}

    attr_types = {"int": "int", "float": "float", "bool": "bool", "str": "string", "list_int": "listInt",
                  "list_float": "listFloat", "list_bool": "listBool"}
    return {"op": op.op_type, "language": "cpp",
            "input_desc": [desc(p) for p in params if p.role == "input"],
            "output_desc": [desc(p) for p in params if p.role == "output"],
            "attr": [{"name": p.name, "param_type": "optional", "type": attr_types[p.kind]}
                     for p in params if p.role == "attr"]}


def overlay_sources(proj: Path, op: Operator) -> None:
    """Replaces the generated op_host/ op_kernel/ sources with the candidate's (the project's
    own CMakeLists.txt there are kept; the candidate's build files are not copied)."""
    for sub in ("op_host", "op_kernel"):
        d = proj / sub
        d.mkdir(exist_ok=True)
        for p in d.iterdir():
            if p.is_file() and p.suffix in (".cpp", ".cc", ".h", ".hpp"):
                p.unlink()
        for rel, text in op.files.items():
            if rel.startswith(sub + "/") and not rel.endswith("CMakeLists.txt"):
                dest = proj / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_text(text)


def set_presets(path: Path, vendor: str, home: str, unit: str) -> None:
    """Points every configure preset at this toolkit, SoC and vendor name."""
    data = json.loads(path.read_text())
    want = {"vendor_name": vendor, "ASCEND_CANN_PACKAGE_PATH": home, "ASCEND_COMPUTE_UNIT": unit}
    presets = data.get("configurePresets") or []
    if not presets:
        raise ValueError(f"{path.name} has no configurePresets")
    for preset in presets:
        cache = preset.setdefault("cacheVariables", {})
        for k, v in want.items():
            if isinstance(cache.get(k), dict):
                cache[k]["value"] = v
            else:
                cache[k] = {"type": "STRING", "value": v}
    path.write_text(json.dumps(data, indent=2))


def compiler_errors(output: str) -> str:
    """The build's error lines with a little context (what a compile error is reported as)."""
    lines = output.splitlines()
    keep: list[str] = []
    for i, ln in enumerate(lines):
        if _ERROR_LINE.search(ln):
            keep.extend(x for x in lines[max(0, i - 1): i + 3] if x not in keep[-4:])
    text = "\n".join(keep) if keep else output.strip()
    return text[-_ERROR_CHARS:]


def run_tool(cmd: list[str], cwd: Path, env: dict[str, str], timeout_s: float,
             extra_env: dict[str, str] | None = None) -> tuple[int, str, bool]:
    """Runs a tool in its own process group (killed whole at the timeout); returns (exit code,
    stdout+stderr, timed out)."""
    full = {**env, **(extra_env or {})}
    try:
        p = subprocess.Popen(cmd, cwd=cwd, env=full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, process_group=0)
    except OSError as e:
        return 127, f"{cmd[0]}: {e.strerror or e}", False
    try:
        out, _ = p.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.communicate()
        return -signal.SIGKILL, "", True
    return p.returncode, out.decode(errors="replace"), False


def _read_result(root: Path) -> dict[str, Any] | None:
    try:
        return json.loads((root / "result.json").read_text())
    except (OSError, ValueError):
        return None


def _lock(key: str) -> threading.Lock:
    with _locks_guard:
        return _locks.setdefault(key, threading.Lock())


class _file_lock:
    """An exclusive ``flock`` on a file (other processes building the same key wait)."""

    def __init__(self, path: Path):
        self.path = path

    def __enter__(self) -> "_file_lock":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: object) -> None:
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)
