"""Sort family (sort.h): Sort32, MrgSort (+ exhausted suspension, GetMrgSortResult), the
high-level Sort / MrgSort / Concat / Extract, GetSortLen / GetSortOffset against numpy stable
descending sorts of (score, index) structures; misuse as typed errors."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import assert_fails


def desc(scores, index):
    order = np.argsort(-scores, kind="stable")
    return scores[order], index[order]


def check_sorted(rows, name, scores, index):
    exp_s, exp_i = desc(np.asarray(scores), np.asarray(index))
    np.testing.assert_array_equal(rows[name + "_score"], exp_s)
    np.testing.assert_array_equal(rows[name + "_index"], exp_i)


def inputs(rows):
    x = rows["sort_in"].astype(np.float32).astype(np.float64)
    return x, 100 + np.arange(len(x), dtype=np.float64)


def test_sort32_sorts_each_repeat_stably(more_rows):
    x, ix = inputs(more_rows)
    got_s, got_i = more_rows["sort32_f_score"], more_rows["sort32_f_index"]
    for r in range(2):
        s, i = desc(x[32 * r:32 * (r + 1)], ix[32 * r:32 * (r + 1)])
        np.testing.assert_array_equal(got_s[32 * r:32 * (r + 1)], s)
        np.testing.assert_array_equal(got_i[32 * r:32 * (r + 1)], i)
    xh = x[:32].astype(np.float16).astype(np.float64)
    check_sorted(more_rows, "sort32_h", xh, ix[:32])


def test_mrgsort_four_runs_is_a_full_sort(more_rows):
    x, ix = inputs(more_rows)
    check_sorted(more_rows, "mrg4", x, ix)


def merge(queues, suspend):
    pos, out = [0] * len(queues), []
    while True:
        live = [q for q in range(len(queues)) if pos[q] < len(queues[q][0])]
        if not live or (suspend and len(live) < len(queues)):
            return out, pos
        best = max(live, key=lambda q: (queues[q][0][pos[q]], -q))
        out.append((queues[best][0][pos[best]], queues[best][1][pos[best]]))
        pos[best] += 1


def runs(rows, name, lens):
    s, i = rows[name + "_score"], rows[name + "_index"]
    return [(s[32 * k:32 * k + n], i[32 * k:32 * k + n]) for k, n in enumerate(lens)]


def test_mrgsort_exhausted_suspension_and_result(more_rows):
    out, pos = merge(runs(more_rows, "mrg_sus_runs", [10, 32]), suspend=True)
    assert [more_rows["mrg_sus_q1"][0], more_rows["mrg_sus_q2"][0]] == pos and more_rows["mrg_sus_q3"][0] == 0
    assert pos[0] == 10 or pos[1] == 32
    np.testing.assert_array_equal(more_rows["mrg_sus_score"][:len(out)], [o[0] for o in out])
    np.testing.assert_array_equal(more_rows["mrg_sus_index"][:len(out)], [o[1] for o in out])
    assert (more_rows["mrg_sus_score"][len(out):] == -1).all()


def test_high_level_mrgsort_sorted_num(more_rows):
    out, pos = merge(runs(more_rows, "mrg_hl_runs", [32, 5, 32]), suspend=True)
    np.testing.assert_array_equal(more_rows["mrg_hl_sorted"], pos + [0])
    np.testing.assert_array_equal(more_rows["mrg_hl_score"], [o[0] for o in out])
    np.testing.assert_array_equal(more_rows["mrg_hl_index"], [o[1] for o in out])


def test_full_sort_concat_extract(more_rows):
    x, ix = inputs(more_rows)
    s, i = desc(x, ix)
    np.testing.assert_array_equal(more_rows["full_val"], s)
    np.testing.assert_array_equal(more_rows["full_idx"], i)
    got_s, got_i = more_rows["part_score"], more_rows["part_index"]
    for r in range(4):
        s, i = desc(x[32 * r:32 * (r + 1)], ix[32 * r:32 * (r + 1)])
        np.testing.assert_array_equal(got_s[32 * r:32 * (r + 1)], s)
        np.testing.assert_array_equal(got_i[32 * r:32 * (r + 1)], i)


def test_sort_len_and_offset_in_elements(more_rows):
    assert more_rows["sort_len_f"][0] == 20  # 10 structures of 8 bytes = 20 floats
    assert more_rows["sort_off_h"][0] == 12  # 3 structures = 12 halves


@pytest.mark.parametrize("case, kind", [
    ("sort_out_of_bounds", "local_write_outside_buffer"),
    ("sort_misaligned", "misaligned"),
    ("sort_bad_valid_bit", "invalid_argument"),
    ("sort_repeat_not_contiguous", "invalid_argument"),
])
def test_sort_failures_are_typed(more_exe, case, kind):
    assert_fails(more_exe, case, kind)
