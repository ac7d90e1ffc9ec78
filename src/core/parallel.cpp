#include "ember/parallel.h"

#include <omp.h>

#include "ember/error.h"

namespace ember {

int get_num_threads() { return omp_get_max_threads(); }

void set_num_threads(int n) {
  EMBER_CHECK(n >= 1, ValueError, "set_num_threads expects a positive integer, got ", n);
  omp_set_num_threads(n);
}

}  // namespace ember
