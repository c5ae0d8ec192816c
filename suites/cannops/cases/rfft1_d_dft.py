"""Writes the ``dft`` inputs of the Rfft1D cases (rfft1_d*.json): the matrix the operator's aclnn
layer computes on the host for n <= 4096 and passes as the kernel's second input.

Its layout, as the aclnn layer documents it in code (op_host/acl_rfft1d.cpp, Rfft1DDftGen): row i
(i < n) holds the n/2 + 1 output bins' (cos, sin)(-2 pi i j / n), scaled by the norm (1: none,
2: 1/n, 3: 1/sqrt(n)), in a matrix of n + 16 - n % 16 rows of n + 8 - n % 8 float columns. When
n % 16 is in [1, 8] the matrix is passed row-major (rows of 2 (n/2 + 1) values, packed);
otherwise it is passed in the NZ layout of 8-column blocks (each block's rows in turn).

Run from this directory: ``python rfft1_d_dft.py`` (rewrites the .bin files).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def dft_input(n: int, norm: int) -> np.ndarray:
    scale = {1: 1.0, 2: 1.0 / n, 3: 1.0 / np.sqrt(n)}[norm]
    cols, rows_padded, bins = n + 8 - n % 8, n + 16 - n % 16, n // 2 + 1
    angle = -2.0 * np.pi * np.outer(np.arange(n), np.arange(bins)) / n
    rows = np.stack([np.cos(angle), np.sin(angle)], axis=-1).reshape(n, 2 * bins) * scale
    if 0 < n % 16 <= 8:
        packed = np.zeros(cols * rows_padded)
        packed[:rows.size] = rows.ravel()
        return packed.astype(np.float32)
    nd = np.zeros((rows_padded, cols))
    nd[:n, :2 * bins] = rows
    return nd.reshape(rows_padded, cols // 8, 8).transpose(1, 0, 2).ravel().astype(np.float32)


def main() -> None:
    for case_file in sorted(HERE.glob("rfft1_d*.json")):
        for case in json.loads(case_file.read_text()):
            attrs = {a["name"]: a["value"] for a in case["attr"]}
            [desc] = [d for d in case["input_desc"] if d["name"] == "dft"]
            data = dft_input(int(attrs["n"]), int(attrs["norm"]))
            assert desc["shape"] == [data.size], (case["case_name"], desc["shape"], data.size)
            data.tofile(HERE / desc["value"])


if __name__ == "__main__":
    main()
