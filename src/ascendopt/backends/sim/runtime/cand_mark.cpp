// AscendOptimizer simulator: the markers the runner's link puts around the candidate's objects
// (build.py: compiled twice, `-DAO_MARK_END` for the second). Sections are laid out in link
// order, so the candidate's .data (and .data.*) and .bss lie between the two objects' symbols:
// a batch of cases (main.cpp) compares that memory after each case with what it was before
// the first, to find a candidate that keeps state from one case to the next.
#ifdef AO_MARK_END
#define AO_MARK(kind) ao_cand_##kind##_end
#else
#define AO_MARK(kind) ao_cand_##kind##_begin
#endif

extern "C" {
__attribute__((used)) char AO_MARK(data)[1] = {1};
__attribute__((used)) char AO_MARK(bss)[1];
}
