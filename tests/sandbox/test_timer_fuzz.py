"""Issue 18, item 3: the timer parses untrusted input (a runner's timing stream). A well-formed
stream is priced; truncated, random and mutated ones give a typed status, never a crash, a hang
or a timing figure they should not have."""

from __future__ import annotations

import json
import random
import struct
import subprocess
import time

import pytest

from ascendopt.hw.soc import DEFAULT_SOC, load_soc

MAGIC, VERSION = 0x53544F41, 3
(NAME, LAUNCH, BEGIN, SWITCH, ISSUE, SYNC_SET, SYNC_WAIT, BARRIER, END_OF_PIPE, ARRIVE, LEAVE, CROSS_SET,
 CROSS_WAIT, MAX, FINISH, QUERY, END) = range(1, 18)
S, V, MTE2, MTE3 = 0, 1, 4, 5
GM, UB = 0, 1
SCALAR_GM, COPY_IN, COPY_OUT, VEC = 2, 3, 4, 6
DEV = 1 << 32


def name(i: int, text: str) -> bytes:
    return bytes([NAME]) + struct.pack("<IH", i, len(text)) + text.encode()


def issue(name_id: int, pipe: int, cls: int, accesses, nbytes: int = 1024, bursts: int = 1,
          burst_bytes: int = 0, l2_policy: int = 0) -> bytes:
    head = struct.pack("<IBBBBIIIIQQQQ", name_id, pipe, cls, len(accesses), l2_policy, 4, 4, bursts, 0,
                       nbytes // 4, nbytes, burst_bytes, 0)
    # (space, write, begin, end[, stride, len]): a strided footprint is optional
    return bytes([ISSUE]) + head + b"".join(struct.pack("<BBQQII", *a, *(0, 0)[len(a) - 4:]) for a in accesses)


def sync(op: int, src: int, dst: int, key: int) -> bytes:
    return bytes([op]) + struct.pack("<BBQ", src, dst, key)


def core_body(core: int, wait: bool = True) -> list[bytes]:
    gm = DEV + core * (2 << 20)
    body = [issue(0, MTE2, COPY_IN, [(GM, 0, gm, gm + 1024), (UB, 1, 0, 1024)]), sync(SYNC_SET, MTE2, V, 7)]
    if wait:
        body.append(sync(SYNC_WAIT, MTE2, V, 7))
    body += [issue(1, V, VEC, [(UB, 0, 0, 1024), (UB, 1, 1024, 2048)]),
             sync(SYNC_SET, V, MTE3, 8), sync(SYNC_WAIT, V, MTE3, 8),
             issue(2, MTE3, COPY_OUT, [(UB, 0, 1024, 2048), (GM, 1, gm + 4096, gm + 5120)])]
    return body


def stream(wait: bool = True, end: bool = True) -> bytes:
    """Two cores meeting at one SyncAll, as the runtime writes it."""
    recs = [name(0, "DataCopy"), name(1, "Adds"), name(2, "DataCopy"), name(3, "block 0"), name(4, "block 1"),
            bytes([LAUNCH]) + struct.pack("<II", 2, 2)]
    recs += [bytes([BEGIN]) + struct.pack("<III", 0, 2, 3), *core_body(0, wait), bytes([ARRIVE])]  # time id 1
    recs += [bytes([BEGIN]) + struct.pack("<III", 1, 2, 4), *core_body(1, wait), bytes([ARRIVE])]  # time id 2
    recs += [bytes([MAX]) + struct.pack("<QQ", 1, 2)]  # time id 3
    recs += [bytes([SWITCH]) + struct.pack("<I", 0), bytes([LEAVE]) + struct.pack("<Q", 3), bytes([QUERY]),
             bytes([END_OF_PIPE]), bytes([FINISH])]
    recs += [bytes([SWITCH]) + struct.pack("<I", 1), bytes([LEAVE]) + struct.pack("<Q", 3), bytes([FINISH])]
    if end:
        recs.append(bytes([END]) + struct.pack("<Q", len(recs)))
    return struct.pack("<II", MAGIC, VERSION) + b"".join(recs)


@pytest.fixture(scope="module")
def timer(backend):
    return backend.builder.timer_exe(backend.sandbox)


def replay(timer, tmp_path, data: bytes, timeout_s: float = 20.0) -> dict:
    """The timer's result for `data` as its event stream (a file in place of the pipe), confined
    as the driver runs it (its seccomp filter: every error path must stay within it)."""
    src = tmp_path / "stream.bin"
    src.write_bytes(data)
    soc = load_soc(DEFAULT_SOC)
    out = tmp_path / "timing.json"
    manifest = tmp_path / "timer.txt"
    with open(src, "rb") as f, open("/dev/null", "wb") as reply:
        lines = [f"soc {soc.name}", *(f"param {k} {v!r}" for k, v in soc.params.items()), f"result {out}",
                 f"stream {f.fileno()} {reply.fileno()}", f"confine {4 << 30} 20"]  # as the driver runs it
        manifest.write_text("\n".join(lines) + "\n")
        p = subprocess.run([str(timer), str(manifest)], pass_fds=(f.fileno(), reply.fileno()), timeout=timeout_s,
                           capture_output=True)
    assert p.returncode == 0, p.stderr.decode(errors="replace")[-2000:]
    res = json.loads(out.read_text())
    out.unlink()
    return res


def test_a_well_formed_stream_is_priced(timer, tmp_path):
    res = replay(timer, tmp_path, stream())
    assert res["status"] == "ok", res
    assert res["cores_timed"] == 2 and len(res["cores"]) == 2 and res["task_duration_us"] > 0
    assert all(c["cycles"] > 1000 for c in res["cores"])  # both waited at the SyncAll
    assert res["warnings"] == []


def test_strided_footprints_are_pieces_and_bounded(timer, tmp_path):
    """Access stride/len: a V write of every other 256-byte row piece does not conflict with a V
    write of the pieces between (no same_pipe_race, the stream is as written without auto-sync);
    the same hull without stride does; a forged stride that would make 4096 pieces (or len 0, or
    len >= stride) is the whole range, priced at once."""
    def one(first, second):
        recs = [name(0, "Adds"), name(1, "block 0"), bytes([LAUNCH]) + struct.pack("<II", 1, 1),
                bytes([BEGIN]) + struct.pack("<III", 0, 1, 1), issue(0, V, VEC, [first]), issue(0, V, VEC, [second]),
                bytes([FINISH])]
        recs.append(bytes([END]) + struct.pack("<Q", len(recs)))
        res = replay(timer, tmp_path, struct.pack("<II", MAGIC, VERSION) + b"".join(recs))
        assert res["status"] == "ok", res
        return [w for w in res["warnings"] if w["kind"] == "same_pipe_race"]

    assert one((UB, 1, 0, 4096 - 256, 512, 256), (UB, 1, 256, 4096, 512, 256)) == []
    assert one((UB, 1, 0, 4096 - 256), (UB, 1, 256, 4096))
    t0 = time.monotonic()
    for forged in ((UB, 1, 0, 1 << 17, 32, 16), (UB, 1, 0, 1 << 17, 64, 0), (UB, 1, 0, 1 << 17, 16, 32)):
        assert one(forged, (UB, 1, (1 << 17) - 32, 1 << 17)), forged  # the whole range: conflicts at its end
    assert time.monotonic() - t0 < 30


def test_a_missing_wait_is_a_race_the_timer_finds(timer, tmp_path):
    res = replay(timer, tmp_path, stream(wait=False))
    assert res["status"] == "ok"
    races = [w for w in res["warnings"] if w["kind"] == "race"]
    assert races and "block 0" in races[0]["message"] and "MTE2" in races[0]["message"], res["warnings"]


def test_every_truncation_is_an_error_never_a_figure(timer, tmp_path):
    data = stream()
    for n in sorted({*range(0, 40), *range(40, len(data), 13), len(data) - 1}):
        res = replay(timer, tmp_path, data[:n])
        assert res["status"] in ("incomplete", "malformed"), (n, res)
        assert "task_duration_us" not in res and "cores" not in res
    assert replay(timer, tmp_path, stream(end=False))["status"] == "incomplete"
    res = replay(timer, tmp_path, data + b"\x00")
    assert res["status"] == "malformed" and "after the end record" in res["message"]


def test_random_and_mutated_streams_give_a_typed_status_in_bounded_time(timer, tmp_path):
    rng = random.Random(18)
    good = stream()
    head = struct.pack("<II", MAGIC, VERSION)
    t0 = time.monotonic()
    seen = set()
    for i in range(150):
        kind = i % 3
        if kind == 0:
            data = bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 2048)))
        elif kind == 1:
            data = head + bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 2048)))
        else:
            buf = bytearray(good)
            for _ in range(rng.randrange(1, 6)):
                buf[rng.randrange(len(buf))] = rng.getrandbits(8)
            data = bytes(buf)
        res = replay(timer, tmp_path, data, timeout_s=10.0)
        assert res["status"] in ("ok", "incomplete", "malformed"), res
        if kind < 2:
            assert res["status"] != "ok", data[:64]
        if res["status"] == "malformed":
            assert res["message"].startswith("forged or malformed timing stream: ")
        seen.add(res["status"])
    assert "malformed" in seen
    assert time.monotonic() - t0 < 120


@pytest.mark.parametrize("what", ["huge_dma", "huge_scalar_gm", "unknown_name", "bad_pipe", "unknown_time",
                                  "leave_without_arrive", "second_launch", "end_count", "bad_l2_policy"])
def test_forged_records_are_refused(timer, tmp_path, what):
    good = stream()
    head, body = good[:8], good[8:]
    launch_at = body.index(bytes([LAUNCH]) + struct.pack("<II", 2, 2))
    begin = bytes([BEGIN]) + struct.pack("<III", 0, 2, 3)
    prefix = head + body[:launch_at] + bytes([LAUNCH]) + struct.pack("<II", 2, 2) + begin
    bad = {
        "huge_dma": issue(0, MTE2, COPY_IN, [(GM, 0, DEV, DEV + (1 << 39)), (UB, 1, 0, 1024)], nbytes=1 << 39,
                          bursts=(1 << 32) - 1, burst_bytes=1 << 39),
        # the data cache would visit 2^24 lines: refused, not priced for minutes
        "huge_scalar_gm": issue(0, S, SCALAR_GM, [(GM, 0, DEV, DEV + (1 << 30))], nbytes=8),
        "unknown_name": issue(99, V, VEC, []),
        "bad_pipe": sync(SYNC_SET, 9, V, 1),
        "unknown_time": bytes([ARRIVE, LEAVE]) + struct.pack("<Q", 99),
        "leave_without_arrive": bytes([LEAVE]) + struct.pack("<Q", 0),
        "second_launch": bytes([LAUNCH]) + struct.pack("<II", 1, 1),
        "end_count": bytes([END]) + struct.pack("<Q", 3),
        "bad_l2_policy": issue(0, MTE2, COPY_IN, [(GM, 0, DEV, DEV + 1024), (UB, 1, 0, 1024)], l2_policy=2),
    }[what]
    t0 = time.monotonic()
    res = replay(timer, tmp_path, prefix + bad)
    assert res["status"] == "malformed", res
    assert time.monotonic() - t0 < 10
