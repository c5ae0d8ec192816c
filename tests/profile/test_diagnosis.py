"""One diagnosis for Stage I, Stage II and the bank (issue 32, item 2): one set of thresholds,
idle cores and small transfers computed once, Stage II's findings read off the same Diagnosis."""

from __future__ import annotations

from ascendopt.profile.diagnosis import HEADROOM, compact_profile, diagnose_profile, findings

SUMMARY = {
    "task_duration_us": 45.6, "block_dim": 12, "bound": "MTE2", "achieved_fraction": 0.66,
    "pipe_ratio_mean": {"S": 0.0, "V": 0.38, "MTE2": 0.60, "MTE3": 0.31}, "gm_bytes": 3.0e6,
    "top_instructions": [{"name": "DataCopyPad", "pipe": "MTE2", "count": 400, "cycles": 1.0, "share": 0.4},
                         {"name": "DataCopyPad", "pipe": "MTE3", "count": 200, "cycles": 1.0, "share": 0.2},
                         {"name": "Mul", "pipe": "V", "count": 8976, "cycles": 1.0, "share": 0.1}],
}


def test_full_and_compact_profiles_give_the_same_diagnosis():
    full, compact = diagnose_profile(SUMMARY, 48), diagnose_profile(compact_profile(SUMMARY), 48)
    assert full.findings == compact.findings
    assert full.bytes_per_transfer == compact.bytes_per_transfer == 3.0e6 / 600
    assert full.findings == ["idle_cores", "serialized_pipes", "memory_stalls", "small_transfers",
                             "memory_bound", "roofline_gap"]


def test_stage2_findings_are_the_diagnosis_findings_it_can_answer():
    d = diagnose_profile(SUMMARY, 48)
    found = findings(compact_profile(SUMMARY), 48)
    # the gap to the roofline has clearer causes here: not answered by itself
    assert [f.kind for f in found] == ["idle_cores", "memory_stalls", "small_transfers"]
    assert all(f.reason == d.notes[f.kind] for f in found)
    assert found[1].value == d.numbers["memory_stalls"] == 3


def test_one_roofline_threshold():
    just_below = {"block_dim": 48, "achieved_fraction": HEADROOM - 0.01}
    at = {"block_dim": 48, "achieved_fraction": HEADROOM}
    assert "roofline_gap" in diagnose_profile(just_below, 48).findings
    assert [f.kind for f in findings(just_below, 48)] == ["roofline_gap"]
    assert "roofline_gap" not in diagnose_profile(at, 48).findings and findings(at, 48) == []


def test_memory_stalls_only_when_a_memory_pipe_is_the_busiest():
    """When the vector pipe is the busiest the memory pipes already hide behind it: more
    buffers would only cut the UB into smaller tiles and add per-tile work to that pipe."""
    vector = {"block_dim": 48, "bound": "HBM", "pipe_ratio_mean": {"S": 0.0, "V": 0.92, "MTE2": 0.70, "MTE3": 0.43}}
    assert "memory_stalls" not in diagnose_profile(vector, 48).findings
    scalar = {"block_dim": 48, "pipe_ratio_mean": {"S": 0.8, "V": 0.1, "MTE2": 0.5}}
    assert "memory_stalls" not in diagnose_profile(scalar, 48).findings
    memory = {"block_dim": 48, "pipe_ratio_mean": {"V": 0.3, "MTE2": 0.7, "MTE3": 0.2}}
    assert diagnose_profile(memory, 48).numbers["memory_stalls"] == 2
    saturated = {"block_dim": 48, "pipe_ratio_mean": {"V": 0.3, "MTE2": 0.96}}
    assert "memory_stalls" not in diagnose_profile(saturated, 48).findings
