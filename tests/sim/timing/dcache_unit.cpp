// Driver for the data-cache coherence warnings (test_dcache_coherence.py): one core, x is 128
// floats of GM (8 lines of 64 bytes). `dcache_unit fail NAME` runs one scenario; the test reads
// the warnings on stderr.
#include <cstring>
#include <string>
#include <vector>

#include "ascendopt_kernel/testing.h"
#include "kernel_operator.h"
#include "../reduce_api/unit_rows.h"

using namespace AscendC;

namespace {

template <HardEvent E>
void Order() {
    SetFlag<E>(EVENT_ID0);
    WaitFlag<E>(EVENT_ID0);
}

void Dcci(const GlobalTensor<float>& g) {
    DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(g);
}

void Scenario(void* arg) {
    const std::string name = arg != nullptr ? static_cast<const char*>(arg) : "";
    static std::vector<float> host(128, 1.0f);
    GlobalTensor<float> x = unit::Gm(host, "x");
    unit::Ctx c;
    LocalTensor<float> ub = c.Alloc<float>(32);
    Duplicate(ub, 2.0f, 32);
    PipeBarrier<PIPE_ALL>();
    float sink = 0;
    if (name == "stale" || name == "stale_cleaned" || name == "other_line") {
        sink += x.GetValue(1);                         // line 0 cached
        Order<HardEvent::S_MTE3>();
        DataCopy(x[name == "other_line" ? 64 : 0], ub, 32);  // DMA writes lines 0-1 (or 4-5)
        Order<HardEvent::MTE3_S>();
        if (name == "stale_cleaned") Dcci(x);
        sink += x.GetValue(2);                         // line 0 again
    } else if (name == "dirty_read" || name == "dirty_read_cleaned") {
        x.SetValue(3, 5.0f);                           // line 0 dirty
        if (name == "dirty_read_cleaned") Dcci(x);
        Order<HardEvent::S_MTE2>();
        DataCopy(ub, x, 32);                           // DMA reads lines 0-1
        Order<HardEvent::MTE2_S>();
    } else if (name == "reference_read") {
        sink += x(3);                                  // operator(): a reference, used as a read
        Order<HardEvent::S_MTE2>();
        DataCopy(ub, x, 32);
        Order<HardEvent::MTE2_S>();
    } else if (name == "dirty_write") {
        x.SetValue(3, 5.0f);
        Order<HardEvent::S_MTE3>();
        DataCopy(x[16], ub, 16);                       // DMA writes line 1 only: line 0 untouched
        Order<HardEvent::MTE3_S>();
        DataCopy(x, ub, 16);                           // ... then line 0, still dirty
        Order<HardEvent::MTE3_S>();
    } else if (name == "entire_cleaned") {
        x.SetValue(3, 5.0f);
        sink += x.GetValue(40);
        DataCacheCleanAndInvalid<float, CacheLine::ENTIRE_DATA_CACHE, DcciDst::CACHELINE_OUT>(x);
        Order<HardEvent::S_MTE3>();
        DataCopy(x, ub, 32);
        DataCopy(x[32], ub, 32);
        Order<HardEvent::MTE3_S>();
        sink += x.GetValue(40);
    }
    unit::Scalar("sink", sink);
}

}  // namespace

int main(int argc, char** argv) { return unit::Main(argc, argv, Scenario, Scenario); }
