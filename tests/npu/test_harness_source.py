"""The generated aclnn harness compiles against the documented ACL / aclnn declarations.

No CANN here: the declarations below are our own stubs with the signatures the AscendCL
reference and the generated aclnn headers document (types, argument order). The harness is only
type-checked (-fsyntax-only), never linked or run."""

from __future__ import annotations

import subprocess

from ascendopt.backends.npu.harness import Param, harness_source

ACL_STUB = r"""
#pragma once
#include <cstddef>
#include <cstdint>
typedef int aclError;
typedef int32_t aclnnStatus;
typedef void *aclrtStream;
enum aclDataType { ACL_FLOAT = 0 };
enum aclFormat { ACL_FORMAT_ND = 2 };
enum aclrtMemMallocPolicy { ACL_MEM_MALLOC_HUGE_FIRST = 0 };
enum aclrtMemcpyKind { ACL_MEMCPY_HOST_TO_DEVICE = 1, ACL_MEMCPY_DEVICE_TO_HOST = 2 };
const aclError ACL_SUCCESS = 0;
struct aclTensor; struct aclTensorList; struct aclIntArray; struct aclFloatArray; struct aclBoolArray;
struct aclOpExecutor;
aclError aclInit(const char *configPath);
aclError aclFinalize();
aclError aclrtSetDevice(int32_t deviceId);
aclError aclrtResetDevice(int32_t deviceId);
aclError aclrtCreateStream(aclrtStream *stream);
aclError aclrtDestroyStream(aclrtStream stream);
aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout);
aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
aclError aclrtFree(void *devPtr);
aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind);
const char *aclGetRecentErrMsg();
aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t *stride, int64_t offset, aclFormat format, const int64_t *storageDims,
                           uint64_t storageDimsNum, void *tensorData);
aclnnStatus aclDestroyTensor(const aclTensor *tensor);
aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size);
aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size);
aclFloatArray *aclCreateFloatArray(const float *value, uint64_t size);
aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size);
"""

OP_STUB = r"""
#pragma once
#include "acl/acl.h"
aclnnStatus aclnnMixDemoGetWorkspaceSize(const aclTensor *x, const aclTensorList *xs, const aclTensor *biasOptional,
    int64_t n, double alpha, bool flag, char *mode, const aclIntArray *axes, const aclFloatArray *w,
    const aclBoolArray *mask, const aclTensor *y, uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnMixDemo(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);
"""


def test_the_harness_type_checks_against_the_documented_api(tmp_path):
    params = [Param("input", "x", "required"), Param("input", "xs", "dynamic"), Param("input", "bias", "optional"),
              Param("output", "y", "required"), Param("attr", "n", "int"), Param("attr", "alpha", "float"),
              Param("attr", "flag", "bool"), Param("attr", "mode", "str"), Param("attr", "axes", "list_int"),
              Param("attr", "w", "list_float"), Param("attr", "mask", "list_bool")]
    (tmp_path / "acl").mkdir()
    (tmp_path / "acl" / "acl.h").write_text(ACL_STUB)
    (tmp_path / "aclnn_mix_demo.h").write_text(OP_STUB)
    (tmp_path / "harness.cpp").write_text(harness_source("aclnn_mix_demo.h", "aclnnMixDemo", params))
    out = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-Wall", "-I", str(tmp_path),
                          str(tmp_path / "harness.cpp")], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
