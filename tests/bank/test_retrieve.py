from ascendopt.bank.retrieve import profile_similarity, retrieve
from ascendopt.bank.store import ExperienceBank
from ascendopt.profile.diagnosis import Diagnosis, diagnose_profile

from .test_store import make


def bank_of_three():
    bank = ExperienceBank()
    bank.add(make(family="vectorization", diff="-v\n+w\n", title="Use vector instructions, not scalar loops",
                  findings=("scalar_heavy", "roofline_gap"), ratios={"S": 0.9, "V": 0.05, "MTE2": 0.05}, op="abs"))
    bank.add(make(family="pipeline_overlap", diff="-p\n+q\n", title="Double-buffer the copy queues",
                  findings=("serialized_pipes", "memory_bound"), ratios={"V": 0.3, "MTE2": 0.5, "MTE3": 0.3},
                  op="gelu"))
    bank.add(make(family="multi_core", diff="-c\n+d\n", title="Split the work over all AI cores",
                  findings=("idle_cores",), ratios={"V": 0.9, "MTE2": 0.9}, op="silu"))
    return bank


def test_hand_made_scalar_diagnosis_retrieves_vectorization_first():
    d = diagnose_profile({"task_duration_us": 100.0, "pipe_ratio_mean": {"S": 0.85, "V": 0.04, "MTE2": 0.06},
                          "bound": "V", "achieved_fraction": 0.05, "block_dim": 48}, cores=48)
    assert "scalar_heavy" in d.findings
    hits = retrieve(bank_of_three(), d, k=3)
    assert hits[0].experience.family == "vectorization"
    assert hits[0].parts["lexical"] == 1.0


def test_serialized_pipes_retrieve_double_buffering_and_idle_cores_multicore():
    d = diagnose_profile({"pipe_ratio_mean": {"V": 0.3, "MTE2": 0.45, "MTE3": 0.25}, "bound": "HBM",
                          "achieved_fraction": 0.4, "block_dim": 48}, cores=48)
    assert "serialized_pipes" in d.findings
    assert retrieve(bank_of_three(), d, k=1)[0].experience.family == "pipeline_overlap"
    d = diagnose_profile({"pipe_ratio_mean": {"V": 0.9, "MTE2": 0.9}, "bound": "V", "achieved_fraction": 0.05,
                          "block_dim": 2}, cores=48)
    assert retrieve(bank_of_three(), d, k=1)[0].experience.family == "multi_core"


def test_held_out_operator_does_not_retrieve_its_own_lessons():
    d = Diagnosis(findings=["scalar_heavy"], pipe_ratios={"S": 0.9})
    hits = retrieve(bank_of_three(), d, k=3, exclude_ops=["abs"])
    assert all(h.experience.family != "vectorization" for h in hits) and len(hits) == 2


def test_profile_similarity_is_one_for_equal_features():
    f = Diagnosis(pipe_ratios={"V": 0.5}, overlap=1.2, roofline_share=0.5).features()
    assert profile_similarity(f, f) == 1.0
    assert profile_similarity(f, Diagnosis(pipe_ratios={"S": 1.0}).features()) < 0.9
