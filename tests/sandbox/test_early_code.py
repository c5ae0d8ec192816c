"""Issue 18: the runner's filter is in place before any code of the candidate runs — static
initializers and constructors of any priority, ``.preinit_array`` entries — and code that
would run even earlier (ifunc resolvers) or replace the runner (a ``main``) is refused when
linked. Each test is a one-edit variant of the ``scale_copy`` fixture."""

from __future__ import annotations

import socket
import zlib
from pathlib import Path

import pytest

from ascendopt import sandbox
from ascendopt.cases import load_op_cases
from ascendopt.evaluate.check import CheckConfig, check_operator
from ascendopt.operator import Operator

from ..conftest import FIXTURE_OPS

KERNEL = "op_kernel/scale_copy.cpp"
HOST = "op_host/scale_copy.cpp"
HEADERS = ("#include <fcntl.h>\n#include <unistd.h>\n#include <sys/socket.h>\n#include <netinet/in.h>\n"
           "#include <arpa/inet.h>\n#include <cstdio>\n#include <cstdlib>\n")


@pytest.fixture(scope="module")
def base() -> Operator:
    return Operator.load(FIXTURE_OPS / "scale_copy")


@pytest.fixture(scope="module")
def cases():
    return {c.name: c for c in load_op_cases(FIXTURE_OPS / "scale_copy")}


def with_global(op: Operator, code: str, rel: str = KERNEL) -> Operator:
    """`code` (statements) in the constructor of a global object of `rel`."""
    unique = zlib.crc32(f"{rel}:{code}".encode())
    text = (HEADERS + f"namespace {{ struct EarlyBird{unique} {{ EarlyBird{unique}() {{ {code} }} }} "
            f"g_early_bird{unique}; }}\n" + op.files[rel])
    return op.with_file(rel, text, origin="test/sandbox")


def run(backend, op, cases, name="small_tail"):
    [res] = check_operator(backend, op, [cases[name]], cfg=CheckConfig(timeout_s=30.0))
    return res


@pytest.mark.parametrize("rel", [KERNEL, HOST])
@pytest.mark.parametrize("code, named", [
    ('int fd = open("forged.txt", O_WRONLY | O_CREAT, 0644); if (fd >= 0) { write(fd, "x", 1); }', '"forged.txt"'),
    ('execl("/bin/true", "true", (char*)0);', '"/bin/true"'),
    ("socket(AF_INET, SOCK_STREAM, 0);", "AF_INET"),
    ("fork();", "clone"),
])
def test_a_static_initializer_runs_under_the_filter(backend, base, cases, rel, code, named):
    res = run(backend, with_global(base, code, rel), cases)
    assert (res.status, res.error_kind) == ("runtime_error", "sandbox_violation"), res.message
    assert named in res.message


def test_a_static_initializer_cannot_read_host_files(backend, base, cases, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("s3cret-early")
    code = (f'if (open("/etc/passwd", O_RDONLY) >= 0 || open("{secret}", O_RDONLY) >= 0) '
            f'{{ fputs("s3cret-early", stderr); abort(); }}')
    res = run(backend, with_global(base, code), cases)
    assert res.status == "ok", res.message  # neither file exists in the runner's file system
    assert "s3cret-early" not in res.message


def test_a_static_initializer_cannot_write_outside_scratch(backend, base, cases, tmp_path):
    target = tmp_path / "pwned_early.txt"
    res = run(backend, with_global(base, f'open("{target}", O_WRONLY | O_CREAT, 0644);'), cases)
    assert (res.status, res.error_kind) == ("runtime_error", "sandbox_violation"), res.message
    assert str(target) in res.message
    assert not target.exists()


@pytest.mark.parametrize("how", ["constructor(101)", "constructor(0)", "preinit_array"])
def test_early_constructors_and_preinit_entries_run_after_the_filter(backend, base, cases, how):
    body = 'static void EarlyOpen(int, char**, char**) { open("early.txt", O_WRONLY | O_CREAT, 0644); }\n'
    if how == "preinit_array":
        hook = ('__attribute__((section(".preinit_array"), used)) static void (*const kEarly)(int, char**, char**) '
                '= &EarlyOpen;\n')
    else:
        hook = f"__attribute__(({how})) static void EarlyCtor() {{ EarlyOpen(0, nullptr, nullptr); }}\n"
    op = base.with_file(KERNEL, HEADERS + body + hook + base.files[KERNEL], origin="test/sandbox")
    res = run(backend, op, cases)
    assert (res.status, res.error_kind) == ("runtime_error", "sandbox_violation"), res.message
    assert '"early.txt"' in res.message


def test_an_ifunc_resolver_is_refused_at_link_time(backend, base, cases):
    code = ('extern "C" { static int AoImpl() { return 1; }\n'
            'static void* AoResolver() { socket(AF_INET, SOCK_STREAM, 0); return (void*)AoImpl; }\n'
            'int AoPick() __attribute__((ifunc("AoResolver"))); }\n'
            'int AoUsePick() { return AoPick(); }\n')
    op = base.with_file(KERNEL, HEADERS + code + base.files[KERNEL], origin="test/sandbox")
    res = run(backend, op, cases)
    assert res.status == "compile_error"
    assert res.message.startswith("sandbox_violation") and "AoResolver" in res.message, res.message


def test_ifunc_resolvers_reads_elf_files(tmp_path):
    assert sandbox.ifunc_resolvers(Path("/bin/true")) == []
    (tmp_path / "x").write_text("#!/bin/sh\n")
    with pytest.raises(ValueError, match="ELF"):
        sandbox.ifunc_resolvers(tmp_path / "x")


def test_a_candidate_main_cannot_replace_the_runner(backend, base, cases):
    forge = ('int main() { FILE* f = fopen("result.json", "w"); '
             'if (f) { fputs("{\\"status\\": \\"ok\\", \\"task_duration_us\\": 0.001}", f); fclose(f); } return 0; }\n')
    op = base.with_file(KERNEL, HEADERS + base.files[KERNEL] + forge, origin="test/sandbox")
    res = run(backend, op, cases)
    assert res.status == "compile_error", (res.status, res.message)
    assert "main" in res.message


def test_a_runner_shares_no_network_it_can_use(backend, base, cases):
    """The runner keeps the host's network namespace (no new one per run): it must hold no
    socket and be unable to make or use one, here to a server listening on loopback."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(0.5)
    port = server.getsockname()[1]
    held = ('struct stat st; for (int fd = 0; fd < 1024; ++fd) '
            '{ if (fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode)) abort(); }')
    connect = ('sockaddr_in a{}; a.sin_family = AF_INET; a.sin_port = htons(' + str(port) + '); '
               'a.sin_addr.s_addr = htonl(0x7f000001); int s = socket(AF_INET, SOCK_STREAM, 0); '
               'connect(s, (sockaddr*)&a, sizeof a);')
    try:
        op = with_global(base, held)
        op = op.with_file(KERNEL, "#include <sys/stat.h>\n" + op.files[KERNEL], origin="test/sandbox")
        assert run(backend, op, cases).status == "ok"
        for where in ("static initializer", "kernel"):
            if where == "kernel":
                text = base.files[KERNEL]
                anchor = "GET_TILING_DATA(tilingData, tiling);"
                op = base.with_file(KERNEL, HEADERS + text.replace(anchor, anchor + "\n" + connect, 1),
                                    origin="test/sandbox")
            else:
                op = with_global(base, connect)
            res = run(backend, op, cases)
            assert (res.status, res.error_kind) == ("runtime_error", "sandbox_violation"), (where, res.message)
            assert "socket" in res.message
            with pytest.raises(socket.timeout):
                server.accept()
        # A connect on any descriptor is trapped and names the address it was for.
        op = with_global(base, connect.replace("int s = socket(AF_INET, SOCK_STREAM, 0);", "int s = 3;"))
        res = run(backend, op, cases)
        assert (res.status, res.error_kind) == ("runtime_error", "sandbox_violation"), res.message
        assert f"connect(127.0.0.1:{port})" in res.message
        with pytest.raises(socket.timeout):
            server.accept()
    finally:
        server.close()
