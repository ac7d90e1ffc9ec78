// LAPACK through LAPACKE (Debian's liblapacke, which reaches OpenBLAS's LAPACK): the one place
// the C interface is included, so its macros stay out of the rest of the tree.
#pragma once

#include <lapacke.h>
