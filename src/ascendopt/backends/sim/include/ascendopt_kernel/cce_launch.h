// AscendOptimizer simulator: the device toolchain's kernel launch syntax inside kernel sources.
// Some kernel files carry a host-side launcher for the device compiler's `kernel<<<blockDim,
// l2ctrl, stream>>>(args...)` form; the simulator's build lowers that expression to
// `::ao::rt::CceLaunch(kernel, blockDim, l2ctrl, stream)(args...)` so the file compiles. The
// simulator launches kernels from its own runner; calling such a launcher is unsupported.
#pragma once
#include "ascendopt_kernel/runtime.h"

namespace ao::rt {
struct CceLaunchCall {
    template <typename... A>
    void operator()(A&&...) const {
        Fail(ErrorKind::Unsupported,
             "a <<<...>>> kernel launch in kernel sources was called: the simulator launches kernels from its "
             "runner only");
    }
};
template <typename K, typename... C>
inline CceLaunchCall CceLaunch(K&&, C&&...) {
    return {};
}
}  // namespace ao::rt
