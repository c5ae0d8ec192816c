"""The emulation-source state the toolchain key re-checks on every use: the same files, sizes
and times as a pathlib walk gives, and a change when a source is edited, added or removed
(taken with os.scandir: the walk cost ~10 ms a time, a score of times per evaluation)."""

import os
import shutil

from ascendopt.backends.sim import build as build_mod


def _walk(*dirs):
    return {(str(f), f.stat().st_mtime_ns, f.stat().st_size) for d in dirs for f in d.rglob("*")
            if f.is_file() and f.suffix in (".h", ".hpp", ".cpp")}


def test_same_entries_as_a_pathlib_walk_and_follows_edits(tmp_path):
    inc, rt = tmp_path / "include", tmp_path / "runtime"
    shutil.copytree(build_mod.INCLUDE_DIR, inc)
    shutil.copytree(build_mod.RUNTIME_DIR, rt)
    (inc / "notes.txt").write_text("not a source")
    first = build_mod._tree_state(inc, rt)
    assert set(first) == _walk(inc, rt) and len(first) == len(_walk(inc, rt)) > 50
    assert list(first) == sorted(first) and build_mod._tree_state(inc, rt) == first
    header = next(inc.rglob("*.h"))
    header.write_text(header.read_text() + "\n// edited\n")
    edited = build_mod._tree_state(inc, rt)
    assert edited != first and set(edited) == _walk(inc, rt)
    (inc / "ascendopt_kernel" / "new_api.h").write_text("#pragma once\n")
    added = build_mod._tree_state(inc, rt)
    assert len(added) == len(edited) + 1
    os.remove(inc / "ascendopt_kernel" / "new_api.h")
    assert build_mod._tree_state(inc, rt) == edited
