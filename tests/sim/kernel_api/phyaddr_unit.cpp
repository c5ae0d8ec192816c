// Driver for LocalTensor::GetPhyAddr as kernels use it: the value cast to a __ubuf__ pointer and
// dereferenced for scalar reads and writes (layer_norm_grad_v3 stores GetAccVal() that way), and
// the same value passed to the pointer-taking forms. Rows "<name> v0 v1 ..." for test_phyaddr.py.
#include <cstdint>
#include <cstring>

#include "ascendopt_kernel/testing.h"
#include "kernel_operator.h"
#include "../reduce_api/unit_rows.h"

using namespace AscendC;

namespace {

void RunAll(void*) {
    unit::Ctx c;
    auto pad = c.Alloc<int16_t>(500);  // 1000 bytes: x starts at UB byte 1024
    auto x = c.Alloc<float>(64);
    auto y = c.Alloc<float>(64);
    unit::Fill(x, 64, 5);
    unit::Row("x", x, 64);
    // Scalar write of a 32-bit pattern into element 3 and reads through the pointer.
    const float one = 1.0f;
    int32_t bits;
    std::memcpy(&bits, &one, 4);
    *(__ubuf__ int32_t*)((__ubuf__ float*)x[3].GetPhyAddr()) = bits;
    float r5 = *((__ubuf__ float*)x.GetPhyAddr(5));
    float r7 = ((__ubuf__ float*)x.GetPhyAddr())[7];
    unit::Row("x_after", x, 64);
    unit::Scalar("read5", r5);
    unit::Scalar("read7", r7);
    // The UB byte address the value stands for, and its alignment.
    unit::Scalar("ub_addr", double(ao::k::LocalAddr(x.GetPhyAddr(), ao::rt::Space::UB)));
    unit::Scalar("align32", double(x.GetPhyAddr() % 32));
    unit::Scalar("pad_addr", double(ao::k::LocalAddr(pad.GetPhyAddr(), ao::rt::Space::UB)));
    // A pointer-taking form on the same value: 16 elements of y from its element 8.
    Duplicate(y, 0.0f, 64);
    PipeBarrier<PIPE_V>();
    DuplicateImpl<float>((__ubuf__ float*)y.GetPhyAddr(8), 2.5f, 16);
    unit::VS();
    unit::Row("dup", y, 64);
}

}  // namespace

int main(int argc, char** argv) { return unit::Main(argc, argv, RunAll, RunAll); }
