"""Detection of the CANN toolkit, device and tools (ascendopt doctor, --backend npu)."""

from __future__ import annotations

import pytest

from ascendopt.backends.npu.detect import CannUnavailable, detect, parse_npu_smi
from tests.npu.conftest import FAKE, fake_environ


def test_detect_finds_the_fake_toolkit_through_set_env(cann):
    assert cann.set_env.resolve() == FAKE / "ascend-toolkit" / "set_env.sh"
    assert cann.home.resolve() == FAKE / "ascend-toolkit" / "latest"
    assert cann.env["ASCEND_HOME_PATH"] == str(cann.home)
    assert cann.version == "8.0.RC3.fake"
    assert cann.driver == "24.1.0"
    assert [c.soc for c in cann.chips] == ["Ascend910B2", "Ascend910B2"]
    assert {"msprof", "msopgen", "cmake", "cxx", "bisheng"} <= set(cann.tools)
    assert cann.tool_versions["cmake"] == "cmake version 3.28.3-fake"
    assert cann.missing() == []
    cann.require()


def test_npu_smi_table_pairs_rows_per_npu():
    chips, driver = parse_npu_smi((FAKE / "recorded" / "npu-smi_info.txt").read_text())
    assert driver == "24.1.0"
    assert [(c.npu, c.name, c.health, c.bus_id) for c in chips] == [
        (0, "910B2", "OK", "0000:C1:00.0"), (1, "910B2", "OK", "0000:C2:00.0")]


def test_without_cann_the_one_line_names_the_toolkit(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    info = detect(env, probe_versions=False)
    assert info.home is None and not info.chips
    with pytest.raises(CannUnavailable) as e:
        info.require()
    msg = str(e.value)
    assert "\n" not in msg and "CANN toolkit" in msg and "ASCEND_HOME_PATH" in msg


def test_without_a_device_the_line_names_npu_smi(tmp_path):
    info = detect(fake_environ(tmp_path, with_driver=False), probe_versions=False)
    assert info.home is not None
    with pytest.raises(CannUnavailable, match="an Ascend device .npu-smi info: npu-smi not found"):
        info.require()


def test_report_rows_cover_what_doctor_shows(cann):
    rows = {what: (found, ok) for what, found, ok in cann.report()}
    assert rows["CANN toolkit"] == (str(cann.home), True)
    assert rows["toolkit version"] == ("8.0.RC3.fake", True)
    assert "Ascend910B2" in rows["SoC (npu-smi)"][0]
    for what in ("msprof", "msopgen", "cmake", "host C++ compiler", "bisheng", "sandbox"):
        assert what in rows
