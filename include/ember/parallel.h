// Intra-op threads: one OpenMP pool shared by Ember's kernels and OpenBLAS (OpenMP build).
#pragma once

namespace ember {

int get_num_threads();
// Sets the threads used by later ops on the calling thread (ValueError if n < 1).
void set_num_threads(int n);

}  // namespace ember
