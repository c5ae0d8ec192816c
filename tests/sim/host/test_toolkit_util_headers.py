"""The toolkit utility headers operator code reaches through a repository's own log headers
(cann-ops log/inner/dfx_base.h): securec.h (bounds-checked copies and formatting),
base/alog_pub.h (level check + record) and base/err_msg.h. A small program of ours uses each
call the way that code does and prints what it got; -Wall -Wextra -Werror, format checks on."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from .test_host import INCLUDE

PROGRAM = r"""
#include <cstdio>
#include <cstring>
#include "securec.h"
#include "base/alog_pub.h"
#include "base/err_msg.h"

int main() {
    char buf[8];
    std::memset(buf, 'x', sizeof buf);
    std::printf("memcpy_ok %d\n", memcpy_s(buf, sizeof buf, "abcd", 4));
    int over = memcpy_s(buf, 4, "abcdefgh", 8);
    std::printf("memcpy_over %d first %d\n", over, buf[0]);
    std::printf("memcpy_null %d\n", memcpy_s(nullptr, 4, "ab", 2));
    std::printf("memcpy_overlap %d\n", memcpy_s(buf, sizeof buf, buf + 1, 4));
    char mv[8] = "abcdef";
    int moved = memmove_s(mv, sizeof mv, mv + 1, 5);
    std::printf("memmove %d %s\n", moved, mv);
    int set = memset_s(buf, sizeof buf, 7, 8);
    std::printf("memset %d %d\n", set, buf[7]);
    std::printf("memset_over %d\n", memset_s(buf, 4, 0, 8));
    int fit = snprintf_s(buf, sizeof buf, sizeof buf - 1, "%d-%s", 42, "ab");
    std::printf("snprintf_fit %d %s\n", fit, buf);
    int cut = snprintf_s(buf, sizeof buf, sizeof buf - 1, "%s", "0123456789");
    std::printf("snprintf_cut %d %s\n", cut, buf);
    std::printf("strcpy_over %d\n", strcpy_s(buf, 4, "abcdef"));
    int cpy = strcpy_s(buf, sizeof buf, "abc");
    std::printf("strcpy_ok %d %s\n", cpy, buf);
    int cat = strcat_s(buf, sizeof buf, "de");
    std::printf("strcat %d %s\n", cat, buf);
    std::printf("levels %d %d %d %d\n", AlogCheckDebugLevel(OP, DLOG_DEBUG), AlogCheckDebugLevel(OP, DLOG_INFO),
                AlogCheckDebugLevel(OP, DLOG_WARN), AlogCheckDebugLevel(OP, DLOG_ERROR));
    AlogRecord(OP, DLOG_TYPE_DEBUG, DLOG_ERROR, "error record %d", 7);
    AlogRecord(OP, DLOG_TYPE_DEBUG, DLOG_DEBUG, "debug record %d", 8);
    REPORT_INNER_ERR_MSG("EZ9999", "reported %s", "x");
    return 0;
}
"""


def test_securec_alog_and_err_msg(tmp_path):
    if shutil.which("g++") is None:
        pytest.skip("g++ not available")
    src = tmp_path / "t.cpp"
    src.write_text(PROGRAM)
    exe = tmp_path / "t"
    res = subprocess.run(["g++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-Wno-format-truncation",
                          f"-I{INCLUDE}", str(src), "-o", str(exe)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-4000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=30)
    assert run.returncode == 0
    out = dict(line.split(" ", 1) for line in run.stdout.splitlines())
    assert out["memcpy_ok"] == "0"
    assert out["memcpy_over"].startswith("34 ") and out["memcpy_over"].endswith("first 0")  # ERANGE, cleared
    assert out["memcpy_null"] == "22"  # EINVAL
    assert out["memcpy_overlap"] == "34"
    assert out["memmove"] == "0 bcdeff"
    assert out["memset"] == "0 7" and out["memset_over"] == "34"
    assert out["snprintf_fit"] == "5 42-ab"
    assert out["snprintf_cut"] == "-1 0123456"
    assert out["strcpy_over"] == "34" and out["strcpy_ok"] == "0 abc" and out["strcat"] == "0 abcde"
    assert out["levels"] == "0 0 1 1"
    assert "error record 7" in run.stderr and "debug record" not in run.stderr and "reported" not in run.stderr
