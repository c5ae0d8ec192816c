"""Issue 18: candidate code is compiled and run in the sandbox, and every attempt to leave it
is a typed ``sandbox_violation`` naming what was tried. Each test is a one-edit variant of the
``scale_copy`` fixture. These tests need bubblewrap (``.ci/run`` installs it): without it they
fail, they are never skipped."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from ascendopt import sandbox
from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import CheckConfig, check_operator
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS

KERNEL = "op_kernel/scale_copy.cpp"
HOST = "op_host/scale_copy.cpp"
ENTRY = "GET_TILING_DATA(tilingData, tiling);"
HEADERS = ("#include <fcntl.h>\n#include <unistd.h>\n#include <sys/socket.h>\n#include <sys/syscall.h>\n"
           "#include <sys/stat.h>\n#include <sys/ioctl.h>\n#include <cstdio>\n#include <cstdlib>\n")


@pytest.fixture(scope="module")
def base() -> Operator:
    return Operator.load(FIXTURE_OPS / "scale_copy")


@pytest.fixture(scope="module")
def cases():
    return {c.name: c for c in load_op_cases(FIXTURE_OPS / "scale_copy")}


def in_kernel(op: Operator, code: str, rel: str = KERNEL, anchor: str = ENTRY) -> Operator:
    text = op.files[rel]
    assert anchor in text, f"fixture changed: {anchor!r} not in {rel}"
    return op.with_file(rel, HEADERS + text.replace(anchor, anchor + "\n" + code, 1), origin="test/sandbox")


def run(backend, op, cases, name="many_cores"):
    [res] = check_operator(backend, op, [cases[name]], cfg=CheckConfig(timeout_s=30.0))
    return res


def test_sandbox_is_available_here():
    sup = sandbox.probe()
    assert sup.available, f"the sandbox must be available (CI installs bubblewrap): {sup.reason}"
    assert sandbox.current().active


def test_good_kernel_passes_in_the_sandbox(backend, base, cases):
    assert run(backend, base, cases).status == "ok"


@pytest.mark.parametrize("secret_where", ["etc", "home"])
def test_include_of_a_host_file_fails_without_its_contents(backend, base, cases, tmp_path, secret_where):
    if secret_where == "etc":
        path = Path("/etc/passwd")
        secret = Path(path).read_text().splitlines()[0]
    else:
        path = tmp_path / "id_rsa"
        secret = "PRIVATE-KEY-abc123"
        path.write_text(secret + "\n")
    op = base.with_file(KERNEL, f'#include "{path}"\n' + base.files[KERNEL], origin="test/sandbox")
    res = run(backend, op, cases)
    assert res.status == "compile_error"
    assert res.message.startswith("sandbox_violation"), res.message
    assert str(path) in res.message
    assert secret not in res.message


def test_sandbox_violation_is_the_evaluations_error_kind(backend, base, cases):
    from ascendopt.evaluate.evaluator import Evaluator

    op = base.with_file(KERNEL, '#include "/etc/hostname"\n' + base.files[KERNEL], origin="test/sandbox")
    ev = Evaluator(backend).evaluate(op, [cases["small_tail"]])
    assert (ev.status, ev.error_kind) == ("compile_error", "sandbox_violation")


@pytest.mark.parametrize("code, named", [
    ("fork();", "clone"),
    ('execl("/bin/sh", "sh", "-c", "true", (char*)0);', '"/bin/sh"'),
    ("socket(AF_INET, SOCK_STREAM, 0);", "AF_INET"),
    ("connect(-1, nullptr, 0);", "connect"),  # the runner shares the network namespace: no socket call works
    ("syscall(SYS_io_uring_setup, 1, nullptr);", "io_uring_setup"),
    ("open((const char*)8, O_WRONLY);", "openat"),  # an unreadable path: still a named violation
    # the driver reads the outputs back: they cannot be swapped for a link to a host file or a FIFO
    ('unlink("out0.bin"); symlink("/etc/passwd", "out0.bin");', 'unlink'),
    ('symlink("/etc/passwd", "evil.bin");', 'symlink'),
    ('mkfifo("fifo.bin", 0600);', 'mknod'),
    ('rename("in0.bin", "out0.bin");', 'rename'),
    ('ioctl(0, 0x5412, "x");', 'TIOCSTI'),  # typing into a terminal (it has none: no new session needed)
    ('fopen("/etc/hostname", "w");', '"/etc/hostname"'),
])
def test_runner_violations_are_named(backend, base, cases, code, named):
    res = run(backend, in_kernel(base, code), cases)
    assert (res.status, res.error_kind) == ("runtime_error", "sandbox_violation"), res.message
    assert named in res.message


def _collect_in_time(backend, work, case):
    """backend._collect on a crafted scratch directory, in a thread: a FIFO must not block it."""
    import subprocess
    import threading

    out: list = []
    proc = subprocess.CompletedProcess([], 0, "", "")
    t = threading.Thread(target=lambda: out.append(backend._collect(work, proc, case, 0.0)), daemon=True)
    t.start()
    t.join(10)
    assert out, "the driver blocked reading the run's files"
    return out[0]


@pytest.mark.parametrize("what", ["symlink", "fifo", "short"])
@pytest.mark.parametrize("which", ["out0.bin", "result.json"])
def test_the_driver_reads_only_regular_scratch_files(backend, cases, tmp_path, what, which):
    """Whatever a candidate (unconfined, --unsafe-no-sandbox) leaves in its scratch directory,
    the driver neither follows a link out of it, nor blocks on a FIFO, nor fails on a short
    output: the run is a runtime error."""
    case = cases["small_tail"]
    secret = tmp_path / "secret.bin"
    secret.write_bytes(b"TOPSECRET" * 1000)
    work = tmp_path / "work"
    work.mkdir()
    (work / "result.json").write_text('{"status": "ok", "task_duration_us": 1.0}')
    [spec] = case.outputs
    nbytes = int(__import__("numpy").prod(spec.shape)) * 4
    (work / "out0.bin").write_bytes(bytes(nbytes))
    (work / which).unlink()
    if what == "symlink":
        (work / which).symlink_to(secret)
    elif what == "fifo":
        os.mkfifo(work / which)
    else:
        (work / which).write_bytes(b"{" if which == "result.json" else bytes(nbytes // 2))
    res = _collect_in_time(backend, work, case)
    assert res.status.value == "runtime_error", (res.status, res.message)
    assert "TOPSECRET" not in res.message


def test_files_outside_the_sandbox_are_not_there(backend, base, cases, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("s3cret")
    op = in_kernel(base, f'if (fopen("{secret}", "r") || fopen("/etc/hostname", "r") || fopen("/root", "r")) abort();')
    assert run(backend, op, cases).status == "ok"


def test_write_outside_scratch_is_refused_and_changes_nothing(backend, base, cases, tmp_path):
    target = tmp_path / "pwned.txt"
    res = run(backend, in_kernel(base, f'open("{target}", O_WRONLY | O_CREAT, 0644);'), cases)
    assert (res.status, res.error_kind) == ("runtime_error", "sandbox_violation")
    assert str(target) in res.message
    assert not target.exists()


def test_host_tiling_code_is_sandboxed_too(backend, base, cases, tmp_path):
    target = tmp_path / "from_tiling.txt"
    text = base.files[HOST]
    anchor = "return ge::GRAPH_SUCCESS;"
    assert anchor in text
    op = base.with_file(HOST, "#include <cstdio>\n" + text.replace(
        anchor, f'fopen("{target}", "w");\n    ' + anchor, 1), origin="test/sandbox")
    res = run(backend, op, cases)
    assert (res.status, res.error_kind) == ("runtime_error", "sandbox_violation"), res.message
    assert not target.exists()


def test_environment_is_scrubbed(backend, base, cases, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret")
    monkeypatch.setenv("HOME", "/root")
    op = in_kernel(base, 'if (getenv("OPENAI_API_KEY") || getenv("HOME")) abort();')
    assert run(backend, op, cases).status == "ok"


def test_timing_cannot_be_forged_through_the_result_file(backend, base, cases):
    forge = ('FILE* f = fopen("result.json", "w"); if (f) { fputs("{\\"status\\": \\"ok\\", '
             '\\"task_duration_us\\": 0.001}", f); fclose(f); }')
    res = run(backend, in_kernel(base, forge), cases)
    assert (res.status, res.error_kind) == ("runtime_error", "sandbox_violation")


def test_unavailable_sandbox_refuses_unless_unsafe(tmp_path):
    missing = sandbox.Support(None, None, "no bwrap (test)")
    with pytest.raises(sandbox.SandboxUnavailable, match="--unsafe-no-sandbox"):
        sandbox.Sandbox(_support=missing).require()
    with sandbox.Sandbox(allow_unsafe=True, _support=missing).run_command(["/bin/true"], 1 << 30, tmp_path) as cmd:
        assert "bwrap" not in " ".join(cmd.argv) and cmd.argv[-1] == "/bin/true" and not cmd.pass_fds


def test_an_unavailable_sandbox_is_said_once(monkeypatch, caplog):
    monkeypatch.setattr(sandbox, "find_bwrap", lambda: None)
    sandbox.probe.cache_clear()
    try:
        with caplog.at_level(logging.WARNING, logger=sandbox.__name__):
            for _ in range(3):
                with pytest.raises(sandbox.SandboxUnavailable, match="no bwrap"):
                    sandbox.Sandbox().require()
        said = [r for r in caplog.records if "sandbox unavailable" in r.getMessage()]
        assert len(said) == 1 and "--unsafe-no-sandbox" in said[0].getMessage()
    finally:
        sandbox.probe.cache_clear()


def test_cli_refuses_without_sandbox(monkeypatch):
    import typer

    from ascendopt.cli import common as cli_common

    monkeypatch.setattr(sandbox, "probe", lambda: sandbox.Support(None, None, "no bwrap (test)"))
    previous = sandbox.current()
    try:
        with pytest.raises(typer.Exit):
            cli_common.backend("Ascend910B2")
        assert cli_common.backend("Ascend910B2", unsafe_no_sandbox=True) is not None
    finally:
        sandbox.configure(previous)
