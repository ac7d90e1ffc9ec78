// Advanced indexing: index, index_put_, masked_select, nonzero.
//
// The two tables below were produced by PyTorch 1.13 (self = arange(numel) as float64,
// viewed, permuted and sliced as listed; expected values flattened row-major). int32 rows
// used int64 in torch, which 1.13 requires. The generator is a short script:
//   x = arange(prod(shape)).view(shape).permute(perm)[slices]; want = x[tuple(indices)]
//   put: x[tuple(indices)] = values (accumulate: index_put_(..., accumulate=True)); want = base
// Larger and threaded cases are checked against naive loops written here.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstring>
#include <functional>

#include "ember/dispatch.h"
#include "ember/ops.h"
#include "test_util.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::Threads;

constexpr int64_t kEnd = INT64_MAX;

struct IdxSpec {
  char kind;  // '-' full slice, 'l' int64, 'i' int32, 'b' bool, 'u' uint8
  std::vector<int64_t> shape;
  std::vector<int64_t> values;
};
struct SliceSpec {
  int64_t dim, start, end, step;
};
struct IndexCase {
  const char* name;
  std::vector<int64_t> shape, perm;
  std::vector<SliceSpec> slices;
  std::vector<IdxSpec> idx;
  std::vector<int64_t> want_shape;
  std::vector<double> want;
};
struct PutCase {
  const char* name;
  std::vector<int64_t> shape, perm;
  std::vector<SliceSpec> slices;
  std::vector<IdxSpec> idx;
  std::vector<int64_t> vshape;
  std::vector<double> values;
  char vdtype;  // 'd' float64, 'f' float32, 'l' int64 values; 'L' int64 self and values
  bool accumulate;
  std::vector<double> want_base;
};

// ---- tables generated with torch (see the top of the file)
const IndexCase kIndexCases[] = {
  {"long_dim0", {4, 3}, {}, {}, {{'l', {4}, {2, 0, -1, 2}}},
   {4, 3}, {6.0, 7.0, 8.0, 0.0, 1.0, 2.0, 9.0, 10.0, 11.0, 6.0, 7.0, 8.0}},
  {"long_2d_index", {4, 3}, {}, {}, {{'l', {2, 2}, {0, 1, 3, -4}}},
   {2, 2, 3}, {0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 9.0, 10.0, 11.0, 0.0, 1.0, 2.0}},
  {"long_dim1", {3, 4}, {}, {}, {{'-', {}, {}}, {'l', {2}, {3, 0}}},
   {3, 2}, {3.0, 0.0, 7.0, 4.0, 11.0, 8.0}},
  {"int32_dim0", {3, 4}, {}, {}, {{'i', {3}, {1, 2, -3}}},
   {3, 4}, {4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 0.0, 1.0, 2.0, 3.0}},
  {"broadcast_pair", {3, 4}, {}, {}, {{'l', {2, 1}, {0, 2}}, {'l', {3}, {1, 3, 0}}},
   {2, 3}, {1.0, 3.0, 0.0, 9.0, 11.0, 8.0}},
  {"adjacent_middle", {2, 3, 4, 5}, {}, {}, {{'-', {}, {}}, {'l', {2}, {0, 2}}, {'l', {2, 1}, {1, 3}}, {'-', {}, {}}},
   {2, 2, 2, 5}, {5.0, 6.0, 7.0, 8.0, 9.0, 45.0, 46.0, 47.0, 48.0, 49.0, 15.0, 16.0, 17.0, 18.0, 19.0, 55.0, 56.0, 57.0, 58.0, 59.0, 65.0, 66.0, 67.0, 68.0, 69.0, 105.0, 106.0, 107.0, 108.0, 109.0, 75.0, 76.0, 77.0, 78.0, 79.0, 115.0, 116.0, 117.0, 118.0, 119.0}},
  {"separated", {2, 3, 4}, {}, {}, {{'l', {2}, {0, 1}}, {'-', {}, {}}, {'l', {2}, {1, 2}}},
   {2, 3}, {1.0, 5.0, 9.0, 14.0, 18.0, 22.0}},
  {"separated_sliced", {3, 4, 5}, {}, {{1, 1, 3, 1}}, {{'l', {2}, {2, 0}}, {'-', {}, {}}, {'l', {1}, {4}}},
   {2, 2}, {49.0, 54.0, 9.0, 14.0}},
  {"separated_step_slice", {4, 5, 6, 2}, {}, {{1, 0, kEnd, 2}}, {{'l', {2}, {1, 3}}, {'-', {}, {}}, {'l', {2, 1}, {0, 5}}, {'-', {}, {}}},
   {2, 2, 3, 2}, {60.0, 61.0, 84.0, 85.0, 108.0, 109.0, 180.0, 181.0, 204.0, 205.0, 228.0, 229.0, 70.0, 71.0, 94.0, 95.0, 118.0, 119.0, 190.0, 191.0, 214.0, 215.0, 238.0, 239.0}},
  {"sliced_then_adjacent", {4, 6}, {}, {{0, 1, kEnd, 1}, {1, 0, kEnd, 2}}, {{'-', {}, {}}, {'l', {2}, {2, 0}}},
   {3, 2}, {10.0, 6.0, 16.0, 12.0, 22.0, 18.0}},
  {"scalar_long", {3, 4}, {}, {}, {{'l', {}, {2}}},
   {4}, {8.0, 9.0, 10.0, 11.0}},
  {"scalar_long_dim1", {3, 4}, {}, {}, {{'-', {}, {}}, {'l', {}, {-1}}},
   {3}, {3.0, 7.0, 11.0}},
  {"scalar_and_vector", {3, 4, 2}, {}, {}, {{'l', {}, {1}}, {'-', {}, {}}, {'l', {3}, {1, 0, 1}}},
   {3, 4}, {9.0, 11.0, 13.0, 15.0, 8.0, 10.0, 12.0, 14.0, 9.0, 11.0, 13.0, 15.0}},
  {"empty_long", {3, 4}, {}, {}, {{'l', {0}, {}}},
   {0, 4}, {}},
  {"empty_long_dim1", {3, 4}, {}, {}, {{'-', {}, {}}, {'l', {0}, {}}},
   {3, 0}, {}},
  {"transposed_self", {3, 4}, {1, 0}, {}, {{'l', {2}, {1, 3}}},
   {2, 3}, {1.0, 5.0, 9.0, 3.0, 7.0, 11.0}},
  {"permuted_3d", {2, 3, 4}, {2, 0, 1}, {}, {{'-', {}, {}}, {'l', {2}, {1, 0}}, {'l', {2}, {2, 2}}},
   {4, 2}, {20.0, 8.0, 21.0, 9.0, 22.0, 10.0, 23.0, 11.0}},
  {"mask_full", {3, 4}, {}, {}, {{'b', {3, 4}, {1, 0, 1, 0, 0, 0, 0, 0, 1, 1, 0, 1}}},
   {5}, {0.0, 2.0, 8.0, 9.0, 11.0}},
  {"mask_dim0", {3, 4}, {}, {}, {{'b', {3}, {1, 0, 1}}},
   {2, 4}, {0.0, 1.0, 2.0, 3.0, 8.0, 9.0, 10.0, 11.0}},
  {"mask_dim1", {3, 4}, {}, {}, {{'-', {}, {}}, {'b', {4}, {1, 0, 0, 1}}},
   {3, 2}, {0.0, 3.0, 4.0, 7.0, 8.0, 11.0}},
  {"mask_2d_trailing", {2, 3, 4}, {}, {}, {{'-', {}, {}}, {'b', {3, 4}, {1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1}}},
   {2, 4}, {0.0, 3.0, 5.0, 11.0, 12.0, 15.0, 17.0, 23.0}},
  {"mask_and_long", {3, 4}, {}, {}, {{'b', {3}, {1, 0, 1}}, {'l', {2}, {1, 3}}},
   {2}, {1.0, 11.0}},
  {"mask_long_separated", {3, 4, 5}, {}, {}, {{'b', {3}, {0, 1, 1}}, {'-', {}, {}}, {'l', {2}, {4, 0}}},
   {2, 4}, {24.0, 29.0, 34.0, 39.0, 40.0, 45.0, 50.0, 55.0}},
  {"uint8_mask", {3, 4}, {}, {}, {{'u', {3}, {1, 0, 1}}},
   {2, 4}, {0.0, 1.0, 2.0, 3.0, 8.0, 9.0, 10.0, 11.0}},
  {"mask_all_false", {3, 4}, {}, {}, {{'b', {3}, {0, 0, 0}}},
   {0, 4}, {}},
  {"bool_scalar_true", {3, 4}, {}, {}, {{'b', {}, {1}}},
   {1, 3, 4}, {0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0}},
  {"bool_scalar_false", {3, 4}, {}, {}, {{'b', {}, {0}}},
   {0, 3, 4}, {}},
  {"bool_scalar_dim1", {3, 4}, {}, {}, {{'-', {}, {}}, {'b', {}, {1}}},
   {3, 1, 4}, {0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0}},
  {"bool_scalar_with_long", {3, 4}, {}, {}, {{'b', {}, {1}}, {'l', {2}, {0, 2}}},
   {2, 4}, {0.0, 1.0, 2.0, 3.0, 8.0, 9.0, 10.0, 11.0}},
  {"no_indices", {2, 3}, {}, {}, {{'-', {}, {}}, {'-', {}, {}}},
   {2, 3}, {0.0, 1.0, 2.0, 3.0, 4.0, 5.0}},
  {"outer_two_dims", {2, 3, 4, 5}, {1, 0, 2, 3}, {}, {{'-', {}, {}}, {'-', {}, {}}, {'l', {3}, {3, 0, 1}}},
   {3, 2, 3, 5}, {15.0, 16.0, 17.0, 18.0, 19.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 75.0, 76.0, 77.0, 78.0, 79.0, 60.0, 61.0, 62.0, 63.0, 64.0, 65.0, 66.0, 67.0, 68.0, 69.0, 35.0, 36.0, 37.0, 38.0, 39.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 95.0, 96.0, 97.0, 98.0, 99.0, 80.0, 81.0, 82.0, 83.0, 84.0, 85.0, 86.0, 87.0, 88.0, 89.0, 55.0, 56.0, 57.0, 58.0, 59.0, 40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 115.0, 116.0, 117.0, 118.0, 119.0, 100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 106.0, 107.0, 108.0, 109.0}},
  {"inner_two_dims", {4, 3, 5}, {0, 2, 1}, {}, {{'l', {3}, {2, 0, -1}}},
   {3, 5, 3}, {30.0, 35.0, 40.0, 31.0, 36.0, 41.0, 32.0, 37.0, 42.0, 33.0, 38.0, 43.0, 34.0, 39.0, 44.0, 0.0, 5.0, 10.0, 1.0, 6.0, 11.0, 2.0, 7.0, 12.0, 3.0, 8.0, 13.0, 4.0, 9.0, 14.0, 45.0, 50.0, 55.0, 46.0, 51.0, 56.0, 47.0, 52.0, 57.0, 48.0, 53.0, 58.0, 49.0, 54.0, 59.0}},
  {"outer_and_inner_strided", {3, 4, 5, 2}, {2, 0, 1, 3}, {{3, 1, kEnd, 1}}, {{'-', {}, {}}, {'l', {2, 1}, {1, 2}}, {'l', {2}, {0, 3}}},
   {5, 2, 2, 1}, {41.0, 71.0, 81.0, 111.0, 43.0, 73.0, 83.0, 113.0, 45.0, 75.0, 85.0, 115.0, 47.0, 77.0, 87.0, 117.0, 49.0, 79.0, 89.0, 119.0}},
  {"mask_on_sliced", {4, 4}, {}, {{1, 1, kEnd, 2}}, {{'b', {4, 2}, {1, 0, 0, 1, 1, 1, 0, 0}}},
   {4}, {1.0, 7.0, 9.0, 11.0}},
};
const PutCase kPutCases[] = {
  {"rows", {3, 4}, {}, {}, {{'l', {2}, {0, 2}}},
   {4}, {10.0, 20.0, 30.0, 40.0}, 'd', false,
   {10.0, 20.0, 30.0, 40.0, 4.0, 5.0, 6.0, 7.0, 10.0, 20.0, 30.0, 40.0}},
  {"dup_last_wins", {5}, {}, {}, {{'l', {5}, {0, 1, 0, 1, 0}}},
   {5}, {1.0, 2.0, 3.0, 4.0, 5.0}, 'd', false,
   {5.0, 4.0, 2.0, 3.0, 4.0}},
  {"dup_accumulate", {5}, {}, {}, {{'l', {5}, {0, 1, 0, 1, 0}}},
   {5}, {1.0, 2.0, 3.0, 4.0, 5.0}, 'd', true,
   {9.0, 7.0, 2.0, 3.0, 4.0}},
  {"dup_rows_accumulate", {3, 4}, {}, {}, {{'l', {3}, {2, 2, 0}}},
   {3, 4}, {1.0, 2.0, 3.0, 4.0, 10.0, 20.0, 30.0, 40.0, 100.0, 200.0, 300.0, 400.0}, 'd', true,
   {100.0, 201.0, 302.0, 403.0, 4.0, 5.0, 6.0, 7.0, 19.0, 31.0, 43.0, 55.0}},
  {"mask_scalar", {3, 4}, {}, {}, {{'b', {3, 4}, {1, 0, 1, 0, 0, 0, 0, 0, 1, 1, 0, 1}}},
   {}, {-1.0}, 'd', false,
   {-1.0, 1.0, -1.0, 3.0, 4.0, 5.0, 6.0, 7.0, -1.0, -1.0, 10.0, -1.0}},
  {"mask_rows", {3, 4}, {}, {}, {{'b', {3}, {0, 1, 1}}},
   {1, 4}, {1.0, 2.0, 3.0, 4.0}, 'd', false,
   {0.0, 1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 4.0, 1.0, 2.0, 3.0, 4.0}},
  {"separated", {2, 3, 4}, {}, {}, {{'l', {2}, {0, 1}}, {'-', {}, {}}, {'l', {2}, {1, 2}}},
   {2, 3}, {1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, 'd', false,
   {0.0, 1.0, 2.0, 3.0, 4.0, 2.0, 6.0, 7.0, 8.0, 3.0, 10.0, 11.0, 12.0, 13.0, 4.0, 15.0, 16.0, 17.0, 5.0, 19.0, 20.0, 21.0, 6.0, 23.0}},
  {"separated_accumulate_dup", {2, 3, 4}, {}, {}, {{'l', {2}, {1, 1}}, {'-', {}, {}}, {'l', {2}, {3, 3}}},
   {2, 3}, {1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, 'd', true,
   {0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 20.0, 16.0, 17.0, 18.0, 26.0, 20.0, 21.0, 22.0, 32.0}},
  {"broadcast_indices", {3, 4}, {}, {}, {{'l', {2, 1}, {0, 2}}, {'l', {2}, {1, 3}}},
   {2, 2}, {1.0, 2.0, 3.0, 4.0}, 'd', false,
   {0.0, 1.0, 2.0, 2.0, 4.0, 5.0, 6.0, 7.0, 8.0, 3.0, 10.0, 4.0}},
  {"negative", {4}, {}, {}, {{'l', {2}, {-1, -4}}},
   {2}, {7.0, 8.0}, 'd', false,
   {8.0, 1.0, 2.0, 7.0}},
  {"empty_index", {3, 4}, {}, {}, {{'l', {0}, {}}},
   {}, {5.0}, 'd', false,
   {0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0}},
  {"transposed_self", {3, 4}, {1, 0}, {}, {{'l', {2}, {1, 3}}},
   {3}, {1.0, 2.0, 3.0}, 'd', false,
   {0.0, 1.0, 2.0, 1.0, 4.0, 2.0, 6.0, 2.0, 8.0, 3.0, 10.0, 3.0}},
  {"sliced_self_dim1", {3, 6}, {}, {{1, 0, kEnd, 2}}, {{'-', {}, {}}, {'l', {2}, {2, 0}}},
   {1, 2}, {1.0, 2.0}, 'd', true,
   {2.0, 1.0, 2.0, 3.0, 5.0, 5.0, 8.0, 7.0, 8.0, 9.0, 11.0, 11.0, 14.0, 13.0, 14.0, 15.0, 17.0, 17.0}},
  {"cast_float_to_double", {2, 2}, {}, {}, {{'l', {1}, {1}}},
   {2}, {0.10000000149011612, 0.20000000298023224}, 'f', false,
   {0.0, 1.0, 0.10000000149011612, 0.20000000298023224}},
  {"cast_long_to_double", {2, 2}, {}, {}, {{'l', {1}, {0}}},
   {2}, {3, 4}, 'l', false,
   {3.0, 4.0, 2.0, 3.0}},
  {"long_self_accumulate", {4}, {}, {}, {{'l', {3}, {3, 3, 3}}},
   {3}, {1, 2, 3}, 'L', true,
   {0, 1, 2, 9}},
  {"bool_scalar_index", {3}, {}, {}, {{'b', {}, {1}}, {'l', {2}, {0, 2}}},
   {2}, {9.0, 8.0}, 'd', false,
   {9.0, 1.0, 8.0}},
  {"mask_middle_scalar", {2, 3, 4}, {}, {}, {{'-', {}, {}}, {'b', {3}, {1, 0, 1}}},
   {}, {7.0}, 'd', false,
   {7.0, 7.0, 7.0, 7.0, 4.0, 5.0, 6.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 7.0, 16.0, 17.0, 18.0, 19.0, 7.0, 7.0, 7.0, 7.0}},
  {"mask_transposed_scalar", {3, 4}, {1, 0}, {}, {{'b', {4, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 1}}},
   {1}, {-2.0}, 'd', false,
   {-2.0, 1.0, 2.0, -2.0, 4.0, -2.0, 6.0, -2.0, 8.0, 9.0, 10.0, -2.0}},
  {"mask_sliced_self_long_value", {4, 4}, {}, {{1, 1, kEnd, 2}}, {{'b', {4, 2}, {1, 0, 0, 1, 1, 1, 0, 0}}},
   {}, {5}, 'l', false,
   {0.0, 5.0, 2.0, 3.0, 4.0, 5.0, 6.0, 5.0, 8.0, 5.0, 10.0, 5.0, 12.0, 13.0, 14.0, 15.0}},
  {"mask_accumulate_scalar", {3, 4}, {}, {}, {{'-', {}, {}}, {'b', {4}, {1, 0, 0, 1}}},
   {}, {0.5}, 'd', true,
   {0.5, 1.0, 2.0, 3.5, 4.5, 5.0, 6.0, 7.5, 8.5, 9.0, 10.0, 11.5}},
  {"broadcast_values_over_index", {3, 4}, {}, {}, {{'l', {2, 1}, {0, 2}}, {'l', {2}, {1, 3}}},
   {2}, {5.0, 6.0}, 'd', false,
   {0.0, 5.0, 2.0, 6.0, 4.0, 5.0, 6.0, 7.0, 8.0, 5.0, 10.0, 6.0}},
  {"inner_two_dims_accumulate", {4, 3, 5}, {0, 2, 1}, {}, {{'l', {3}, {2, 0, 2}}},
   {5, 3}, {1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 1.0, 2.0, 3.0}, 'd', true,
   {1.0, 2.0, 3.0, 4.0, 5.0, 7.0, 8.0, 9.0, 10.0, 11.0, 13.0, 14.0, 15.0, 16.0, 17.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 32.0, 33.0, 34.0, 35.0, 36.0, 39.0, 40.0, 41.0, 42.0, 43.0, 46.0, 47.0, 48.0, 49.0, 50.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0}},
  {"outer_two_dims_put", {2, 3, 4, 5}, {1, 0, 2, 3}, {}, {{'-', {}, {}}, {'-', {}, {}}, {'l', {3}, {3, 0, 3}}},
   {3, 1}, {1.0, 2.0, 3.0}, 'd', false,
   {2.0, 2.0, 2.0, 2.0, 2.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 3.0, 3.0, 3.0, 3.0, 3.0, 2.0, 2.0, 2.0, 2.0, 2.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 3.0, 3.0, 3.0, 3.0, 3.0, 2.0, 2.0, 2.0, 2.0, 2.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 3.0, 3.0, 3.0, 3.0, 3.0, 2.0, 2.0, 2.0, 2.0, 2.0, 65.0, 66.0, 67.0, 68.0, 69.0, 70.0, 71.0, 72.0, 73.0, 74.0, 3.0, 3.0, 3.0, 3.0, 3.0, 2.0, 2.0, 2.0, 2.0, 2.0, 85.0, 86.0, 87.0, 88.0, 89.0, 90.0, 91.0, 92.0, 93.0, 94.0, 3.0, 3.0, 3.0, 3.0, 3.0, 2.0, 2.0, 2.0, 2.0, 2.0, 105.0, 106.0, 107.0, 108.0, 109.0, 110.0, 111.0, 112.0, 113.0, 114.0, 3.0, 3.0, 3.0, 3.0, 3.0}},
  {"no_indices_accumulate", {2, 2}, {}, {}, {{'-', {}, {}}},
   {2}, {1.0, 2.0}, 'd', true,
   {1.0, 3.0, 3.0, 5.0}},
};

Tensor arange_t(int64_t n, ScalarType dt = kDouble) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<double>(i);
  return tensor(v).to(dt);
}

int64_t prod(const std::vector<int64_t>& s) {
  int64_t n = 1;
  for (int64_t x : s) n *= x;
  return n;
}

std::vector<int64_t> shape_of(const Tensor& t) { return t.sizes().vec(); }

std::optional<Tensor> make_index(const IdxSpec& s) {
  if (s.kind == '-') return std::nullopt;
  Tensor t = tensor(s.values).view(s.shape);
  switch (s.kind) {
    case 'i': return t.to(kInt32);
    case 'b': return t.to(kBool);
    case 'u': return t.to(kUInt8);
    default: return t;
  }
}

std::vector<std::optional<Tensor>> make_indices(const std::vector<IdxSpec>& specs) {
  std::vector<std::optional<Tensor>> out;
  for (const IdxSpec& s : specs) out.push_back(make_index(s));
  return out;
}

Tensor apply_view(Tensor x, const std::vector<int64_t>& perm, const std::vector<SliceSpec>& slices) {
  if (!perm.empty()) x = x.permute(perm);
  for (const SliceSpec& s : slices)
    x = x.slice(s.dim, s.start, s.end == kEnd ? std::nullopt : std::optional<int64_t>(s.end), s.step);
  return x;
}


// Deterministic pseudo-random integers in [lo, hi).
struct Lcg {
  uint64_t s;
  explicit Lcg(uint64_t seed) : s(seed) {}
  int64_t next(int64_t lo, int64_t hi) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return lo + static_cast<int64_t>((s >> 33) % static_cast<uint64_t>(hi - lo));
  }
};

// ---------------------------------------------------------------- tables

TEST(Index, TableAgainstTorch) {
  for (const IndexCase& c : kIndexCases) {
    SCOPED_TRACE(c.name);
    Tensor x = apply_view(arange_t(prod(c.shape)).view(c.shape), c.perm, c.slices);
    auto idx = make_indices(c.idx);
    Tensor r = index(x, idx);
    EXPECT_EQ(shape_of(r), c.want_shape);
    EXPECT_EQ(testing::as_double(r), c.want);
    EXPECT_TRUE(r.is_contiguous());
  }
}

TEST(IndexPut, TableAgainstTorch) {
  for (const PutCase& c : kPutCases) {
    SCOPED_TRACE(c.name);
    ScalarType self_dt = c.vdtype == 'L' ? kInt64 : kDouble;
    ScalarType val_dt = c.vdtype == 'f' ? kFloat : (c.vdtype == 'l' || c.vdtype == 'L') ? kInt64 : kDouble;
    Tensor base = arange_t(prod(c.shape), self_dt).view(c.shape);
    Tensor x = apply_view(base, c.perm, c.slices);
    Tensor v = tensor(c.values).to(val_dt).view(c.vshape);
    auto idx = make_indices(c.idx);
    if (val_dt != self_dt) {
      // Values of another dtype raise (PyTorch), leaving self as it was; a 0-dim value may be
      // a masked fill, which converts (IndexPut.ValuesOfAnotherDtype... covers it).
      if (v.dim() > 0) {
        const std::vector<double> before = testing::as_double(base);
        EXPECT_THROW(index_put_(x, idx, v, c.accumulate), RuntimeError);
        EXPECT_EQ(testing::as_double(base), before);
      }
      v = v.to(self_dt);
    }
    uint32_t version = x.version();
    Tensor& r = index_put_(x, idx, v, c.accumulate);
    EXPECT_TRUE(r.is_same(x));
    EXPECT_EQ(base.dtype(), self_dt);
    EXPECT_EQ(testing::as_double(base), c.want_base);
    EXPECT_GT(x.version(), version);
  }
}

TEST(Index, StridedAndExpandedIndexTensors) {
  Tensor x = arange_t(12).view({3, 4});
  Tensor strided = tensor<int64_t>({0, 9, 2, 9, 1}).slice(0, 0, std::nullopt, 2);  // [0, 2, 1]
  EXPECT_EQ(testing::as_double(index(x, {strided})), testing::as_double(index(x, {tensor<int64_t>({0, 2, 1})})));
  Tensor col = tensor<int64_t>({2, 0}).view({2, 1}).expand({2, 3});  // stride 0 along dim 1
  Tensor r = index(x, {col, tensor<int64_t>({1, 2, 3})});
  EXPECT_EQ(testing::as_double(r), (std::vector<double>{9, 10, 11, 1, 2, 3}));
  Tensor tr = tensor<int64_t>({1, 0, 3, 2}).view({2, 2}).t();  // [[1, 3], [0, 2]]
  EXPECT_EQ(testing::as_double(index(x, {std::nullopt, tr})), (std::vector<double>{1, 3, 0, 2, 5, 7, 4, 6, 9, 11, 8, 10}));
}

// Every element size goes through the gather and every dtype through accumulate.
TEST(Index, AllDtypes) {
  const ScalarType dtypes[] = {kBool, kUInt8, kInt8, kInt16, kInt32, kInt64, kHalf,
                               kBFloat16, kFloat, kDouble, kComplexFloat, kComplexDouble};
  Tensor ref_src = arange_t(12).view({3, 4});
  std::vector<std::optional<Tensor>> idx{tensor<int64_t>({2, 0, 2, -1})};
  std::vector<std::optional<Tensor>> cols{std::nullopt, tensor<int64_t>({3, 1})};
  for (ScalarType dt : dtypes) {
    SCOPED_TRACE(dtype_name(dt));
    Tensor x = ref_src.to(dt);
    EXPECT_EQ(index(x, idx).dtype(), dt);
    EXPECT_EQ(testing::as_double(index(x, idx)), testing::as_double(index(ref_src.to(dt).to(kDouble), idx)));
    EXPECT_EQ(testing::as_double(index(x, cols)), testing::as_double(index(ref_src.to(dt).to(kDouble), cols)));

    Tensor z = zeros({5}, dt);
    index_put_(z, {tensor<int64_t>({0, 1, 0, 4})}, ones({4}, dt), /*accumulate=*/true);
    std::vector<double> want = dt == kBool ? std::vector<double>{1, 1, 0, 0, 1}
                                           : std::vector<double>{2, 1, 0, 0, 1};
    EXPECT_EQ(testing::as_double(z), want);
    Tensor w = zeros({5}, dt);
    index_put_(w, {tensor<int64_t>({3, 3})}, ones({2}, dt), /*accumulate=*/false);
    EXPECT_EQ(testing::as_double(w), (std::vector<double>{0, 0, 0, 1, 0}));
  }
}

TEST(Index, ComplexValuesKeepBothParts) {
  Tensor x = tensor<complex128>({{1, 2}, {3, 4}, {5, 6}});
  Tensor r = index(x, {tensor<int64_t>({2, 0})});
  const complex128* p = r.data_ptr<complex128>();
  EXPECT_EQ(p[0], complex128(5, 6));
  EXPECT_EQ(p[1], complex128(1, 2));
  index_put_(x, {tensor<int64_t>({1, 1})}, tensor<complex128>({{1, 1}, {2, -1}}), true);
  EXPECT_EQ(x.data_ptr<complex128>()[1], complex128(6, 4));
}

TEST(IndexPut, ValuesOfAnotherDtypeOnlyFromNumbersOrAMaskFill) {
  Tensor x = zeros({3}, kFloat);
  expect_error<RuntimeError>([&] { index_put_(x, {tensor<int64_t>({1})}, scalar_tensor(0.1, kDouble)); },
                             "Index put requires the source and destination dtypes match, got float32 for the "
                             "destination and float64 for the source.");
  Tensor number = scalar_tensor(0.1, kDouble);
  number.impl()->set_wrapped_number(true);  // a Python number: converted like copy_
  index_put_(x, {tensor<int64_t>({1})}, number);
  EXPECT_EQ(x.data_ptr<float>()[1], static_cast<float>(0.1));
  Tensor y = zeros({2}, kInt32);
  Tensor two = scalar_tensor(2.75, kDouble);
  two.impl()->set_wrapped_number(true);
  index_put_(y, {tensor<int64_t>({0})}, two);
  EXPECT_EQ(y.data_ptr<int32_t>()[0], 2);  // truncation toward zero, like copy_
  index_put_(y, {tensor<bool>({false, true})}, scalar_tensor(5.5, kDouble));  // a masked fill
  EXPECT_EQ(y.data_ptr<int32_t>()[1], 5);
}

TEST(IndexPut, FullOverlapOfValuesIsReadBeforeWritten) {
  // values is self itself: every value must be read before it is overwritten.
  Tensor x = arange_t(4);
  index_put_(x, {tensor<int64_t>({3, 2, 1, 0})}, x);
  EXPECT_EQ(testing::as_double(x), (std::vector<double>{3, 2, 1, 0}));
}

TEST(IndexPut, MaskAliasingSelf) {
  // The mask is a shifted view of self: it must be read in full before self is written.
  Tensor x = tensor<uint8_t>({1, 0, 1, 1, 0});
  Tensor self = x.slice(0, 0, 4);
  index_put_(self, {x.slice(0, 1, 5)}, scalar_tensor(int64_t(7)));
  EXPECT_EQ(testing::as_double(x), (std::vector<double>{1, 7, 7, 1, 0}));
  Tensor b = tensor<bool>({true, false, true});
  index_put_(b, {b}, scalar_tensor(false));
  EXPECT_EQ(testing::as_double(b), (std::vector<double>{0, 0, 0}));
}

TEST(IndexPut, IndexTensorAliasingSelf) {
  Tensor x = tensor<int64_t>({1, 0, 3, 2});
  index_put_(x, {x}, tensor<int64_t>({7}));
  EXPECT_EQ(testing::as_double(x), (std::vector<double>{7, 7, 7, 7}));
}

// ---------------------------------------------------------------- masked_select and nonzero

TEST(IndexMaskedSelect, Basic) {
  Tensor x = arange_t(12).view({3, 4});
  Tensor m = tensor<bool>({true, false, true, true});
  Tensor r = masked_select(x, m);  // mask broadcasts over rows
  EXPECT_EQ(shape_of(r), (std::vector<int64_t>{9}));
  EXPECT_EQ(testing::as_double(r), (std::vector<double>{0, 2, 3, 4, 6, 7, 8, 10, 11}));
  // self broadcasts against the mask
  Tensor r2 = masked_select(tensor<double>({1, 2}), tensor<bool>({true, false, true}).view({3, 1}));
  EXPECT_EQ(testing::as_double(r2), (std::vector<double>{1, 2, 1, 2}));
  // 0-dim
  EXPECT_EQ(testing::as_double(masked_select(scalar_tensor(5.0), scalar_tensor(true))), (std::vector<double>{5}));
  EXPECT_EQ(masked_select(scalar_tensor(5.0), scalar_tensor(false)).numel(), 0);
  // uint8 mask
  EXPECT_EQ(testing::as_double(masked_select(x, tensor<uint8_t>({0, 1, 0, 0}))), (std::vector<double>{1, 5, 9}));
  expect_error<RuntimeError>([&] { masked_select(x, tensor<int64_t>({1, 0, 1, 1})); },
                             "masked_select: expected BoolTensor or ByteTensor for mask");
  expect_error<RuntimeError>([&] { masked_select(x, tensor<bool>({true, false, true})); },
                             "The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 1");
}

TEST(IndexNonzero, Basic) {
  Tensor r = nonzero(tensor<int64_t>({1, 0, 0, 1}).view({2, 2}));
  EXPECT_EQ(r.dtype(), kInt64);
  EXPECT_EQ(shape_of(r), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(r.strides().vec(), (std::vector<int64_t>{1, 2}));  // column-major, as torch returns it
  EXPECT_EQ(testing::as_double(r), (std::vector<double>{0, 0, 1, 1}));
  EXPECT_EQ(shape_of(nonzero(scalar_tensor(5.0))), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(shape_of(nonzero(scalar_tensor(0.0))), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(shape_of(nonzero(zeros({0, 3}))), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(testing::as_double(nonzero(tensor<complex64>({{1, 0}, {0, 0}, {0, 1}}))), (std::vector<double>{0, 2}));
  Tensor nan = tensor<float>({0.f, NAN, -0.f, 2.f});
  EXPECT_EQ(testing::as_double(nonzero(nan)), (std::vector<double>{1, 3}));  // NaN counts, -0 does not
  EXPECT_EQ(testing::as_double(nonzero(tensor<float>({0, 1, 1, 0}).to(kHalf))), (std::vector<double>{1, 2}));
  // Non-contiguous input: indices follow the logical (row-major) order.
  Tensor t = tensor<int64_t>({1, 0, 0, 0, 1, 1}).view({2, 3}).t();  // [[1,0],[0,1],[0,1]]
  EXPECT_EQ(testing::as_double(nonzero(t)), (std::vector<double>{0, 0, 1, 1, 2, 1}));
}

// ---------------------------------------------------------------- large, threaded

TEST(Index, LargeRowGatherMatchesLoop) {
  Threads th(4);
  const int64_t rows = 50000, cols = 16, n = 70000;
  Tensor x = arange_t(rows * cols, kFloat).view({rows, cols});
  Lcg g(1);
  std::vector<int64_t> iv(n);
  for (auto& v : iv) v = g.next(-rows, rows);
  Tensor r = index(x, {tensor(iv)});
  ASSERT_EQ(shape_of(r), (std::vector<int64_t>{n, cols}));
  const float* p = r.data_ptr<float>();
  const float* s = x.data_ptr<float>();
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    int64_t row = iv[i] < 0 ? iv[i] + rows : iv[i];
    bad += std::memcmp(p + i * cols, s + row * cols, cols * sizeof(float)) != 0;
  }
  EXPECT_EQ(bad, 0);
  // The same rows through a non-contiguous self (every other column).
  Tensor xs = x.slice(1, 0, std::nullopt, 2);
  Tensor rs = index(xs, {tensor(iv)});
  const float* q = rs.data_ptr<float>();
  bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    int64_t row = iv[i] < 0 ? iv[i] + rows : iv[i];
    for (int64_t j = 0; j < cols / 2; ++j) bad += q[i * (cols / 2) + j] != s[row * cols + 2 * j];
  }
  EXPECT_EQ(bad, 0);
}

TEST(Index, LargeColumnGatherMatchesLoop) {
  Threads th(4);
  const int64_t rows = 40000, cols = 10;
  Tensor x = arange_t(rows * cols, kDouble).view({rows, cols});
  Tensor r = index(x, {std::nullopt, tensor<int64_t>({9, 0, -1, 4})});
  ASSERT_EQ(shape_of(r), (std::vector<int64_t>{rows, 4}));
  const double* p = r.data_ptr<double>();
  const int64_t want_cols[] = {9, 0, 9, 4};
  int64_t bad = 0;
  for (int64_t i = 0; i < rows; ++i)
    for (int j = 0; j < 4; ++j) bad += p[i * 4 + j] != static_cast<double>(i * cols + want_cols[j]);
  EXPECT_EQ(bad, 0);
}

TEST(Index, LargeMaskMatchesLoop) {
  Threads th(4);
  const int64_t a = 300, b = 700;
  Lcg g(7);
  std::vector<uint8_t> mb(a * b);
  for (size_t i = 0; i < mb.size(); ++i) mb[i] = g.next(0, 3) == 0;
  Tensor mask = tensor(mb).to(kBool).view({a, b});
  Tensor x = arange_t(a * b, kFloat).view({a, b});
  Tensor sel = masked_select(x, mask);
  Tensor nz = nonzero(mask);
  std::vector<double> want;
  std::vector<double> want_nz0, want_nz1;
  for (int64_t i = 0; i < a * b; ++i)
    if (mb[i]) { want.push_back(static_cast<double>(i)); want_nz0.push_back(i / b); want_nz1.push_back(i % b); }
  EXPECT_EQ(testing::as_double(sel), want);
  ASSERT_EQ(shape_of(nz), (std::vector<int64_t>{static_cast<int64_t>(want.size()), 2}));
  EXPECT_EQ(testing::as_double(nz.select(1, 0)), want_nz0);
  EXPECT_EQ(testing::as_double(nz.select(1, 1)), want_nz1);
  // x[mask] = -x[mask]: the unique-positions (parallel) put path.
  index_put_(x, {mask}, sel * -1.0);
  std::vector<double> got = testing::as_double(x);
  int64_t bad = 0;
  for (int64_t i = 0; i < a * b; ++i) bad += got[i] != (mb[i] ? -static_cast<double>(i) : static_cast<double>(i));
  EXPECT_EQ(bad, 0);
}

TEST(IndexPut, LargeDuplicatesAreDeterministic) {
  Threads th(4);
  Lcg g(3);
  // (rows, cols, dim, n): inner-split path (few rows, long rows), outer-split path (many
  // rows, index on dim 1) and the serial path (many short rows).
  struct Shape { int64_t rows, cols; int dim; int64_t n; };
  for (Shape s : {Shape{8, 40000, 0, 12}, Shape{40000, 6, 1, 5}, Shape{500, 8, 0, 60000}}) {
    for (bool acc : {false, true}) {
      SCOPED_TRACE(std::to_string(s.rows) + "x" + std::to_string(s.cols) + (acc ? " acc" : " put"));
      const int64_t extent = s.dim == 0 ? s.rows : s.cols;
      std::vector<int64_t> idx(s.n);
      for (auto& v : idx) v = g.next(0, extent);
      const int64_t nv = s.n * (s.dim == 0 ? s.cols : s.rows);
      std::vector<double> vals(nv);
      for (auto& v : vals) v = static_cast<double>(g.next(-1000, 1000)) * 0.37;
      std::vector<double> init(s.rows * s.cols);
      for (auto& v : init) v = static_cast<double>(g.next(-50, 50)) * 0.11;
      // float32 so that the sum's order would show in the result
      Tensor x = tensor(init).to(kFloat).view({s.rows, s.cols});
      Tensor v = tensor(vals).to(kFloat).view(s.dim == 0 ? std::vector<int64_t>{s.n, s.cols}
                                                         : std::vector<int64_t>{s.rows, s.n});
      std::vector<std::optional<Tensor>> ind;
      if (s.dim == 1) ind.push_back(std::nullopt);
      ind.push_back(tensor(idx));
      index_put_(x, ind, v, acc);
      // The reference runs in float32 too, in index order.
      std::vector<float> ref(init.begin(), init.end());
      std::vector<float> fv = [&] { std::vector<float> f; for (double d : vals) f.push_back(static_cast<float>(d)); return f; }();
      for (auto& r : ref) r = static_cast<float>(r);
      std::vector<float> want(ref);
      if (s.dim == 0) {
        for (int64_t b = 0; b < s.n; ++b)
          for (int64_t j = 0; j < s.cols; ++j) {
            float& d = want[idx[b] * s.cols + j];
            d = acc ? d + fv[b * s.cols + j] : fv[b * s.cols + j];
          }
      } else {
        for (int64_t i = 0; i < s.rows; ++i)
          for (int64_t b = 0; b < s.n; ++b) {
            float& d = want[i * s.cols + idx[b]];
            d = acc ? d + fv[i * s.n + b] : fv[i * s.n + b];
          }
      }
      const float* p = x.data_ptr<float>();
      int64_t bad = 0;
      for (size_t i = 0; i < want.size(); ++i) bad += std::memcmp(&p[i], &want[i], sizeof(float)) != 0;
      EXPECT_EQ(bad, 0);
    }
  }
}

TEST(IndexPut, LargeInt64AccumulateMatchesLoop) {
  Threads th(4);
  Lcg g(11);
  const int64_t rows = 1000, cols = 8, n = 100000;
  std::vector<int64_t> idx(n), vals(n * cols);
  for (auto& v : idx) v = g.next(-rows, rows);
  for (auto& v : vals) v = g.next(-100000, 100000);
  Tensor x = zeros({rows, cols}, kInt64);
  index_put_(x, {tensor(idx)}, tensor(vals).view({n, cols}), true);
  std::vector<int64_t> want(rows * cols, 0);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t j = 0; j < cols; ++j) want[(idx[b] < 0 ? idx[b] + rows : idx[b]) * cols + j] += vals[b * cols + j];
  const int64_t* p = x.data_ptr<int64_t>();
  EXPECT_TRUE(std::equal(want.begin(), want.end(), p));
}

// ---------------------------------------------------------------- errors

TEST(IndexErrors, Messages) {
  Tensor x = arange_t(3);
  expect_error<IndexError>([&] { index(x, {tensor<int64_t>({0, 5})}); },
                           "index 5 is out of bounds for dimension 0 with size 3");
  expect_error<IndexError>([&] { index(x, {tensor<int64_t>({-4})}); },
                           "index -4 is out of bounds for dimension 0 with size 3");
  expect_error<IndexError>([&] { index(x, {tensor<bool>({true, false})}); },
                           "The shape of the mask [2] at index 0 does not match the shape of the indexed tensor [3] at index 0");
  Tensor y = arange_t(12).view({3, 4});
  expect_error<IndexError>([&] { index(y, {std::nullopt, tensor<int64_t>({4})}); },
                           "index 4 is out of bounds for dimension 1 with size 4");
  expect_error<IndexError>([&] { index(y, {std::nullopt, tensor<bool>({true, false})}); },
                           "The shape of the mask [2] at index 0 does not match the shape of the indexed tensor [3, 4] at index 1");
  expect_error<IndexError>([&] { index(y, {tensor<int64_t>({0}), std::nullopt, std::nullopt}); },
                           "too many indices for tensor of dimension 2 (got 3)");
  expect_error<IndexError>([&] { index(y, {tensor<int64_t>({0, 1}), tensor<int64_t>({0, 1, 2})}); },
                           "shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]");
  expect_error<IndexError>([&] { index(y, {tensor<double>({0.0})}); },
                           "tensors used as indices must be long, int, byte or bool tensors");
  expect_error<IndexError>([&] { index(y, {tensor<int16_t>({0})}); },
                           "tensors used as indices must be long, int, byte or bool tensors");
  expect_error<IndexError>([&] { index(scalar_tensor(1.0), {scalar_tensor(int64_t(0))}); },
                           "too many indices for tensor of dimension 0 (got 1)");
  expect_error<IndexError>([&] { index(zeros({0, 3}), {tensor<int64_t>({0})}); },
                           "index 0 is out of bounds for dimension 0 with size 0");
}

TEST(IndexErrors, LargeIndexReportsFirstBadIndex) {
  Threads th(4);
  const int64_t n = 200000;
  std::vector<int64_t> iv(n);
  for (int64_t i = 0; i < n; ++i) iv[i] = i % 1000;
  iv[150000] = 1000;
  iv[190000] = -2000;
  expect_error<IndexError>([&] { index(zeros({1000}), {tensor(iv)}); },
                           "index 1000 is out of bounds for dimension 0 with size 1000");
}

TEST(IndexErrors, PutFailsBeforeWriting) {
  Tensor x = arange_t(4);
  expect_error<IndexError>([&] { index_put_(x, {tensor<int64_t>({0, 1, 9})}, scalar_tensor(-1.0, kDouble)); },
                           "index 9 is out of bounds for dimension 0 with size 4");
  EXPECT_EQ(testing::as_double(x), (std::vector<double>{0, 1, 2, 3}));
  Tensor y = arange_t(12).view({3, 4});
  expect_error<RuntimeError>([&] { index_put_(y, {tensor<int64_t>({0, 0})}, tensor<double>({1, 2, 3})); },
                             "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of shape [2, 4]");
  expect_error<RuntimeError>([&] { index_put_(y, {tensor<int64_t>({0, 0})}, ones({1, 2, 4}, TensorOptions(y.dtype()))); },
                             "cannot be broadcast to indexing result of shape [2, 4]");
  expect_error<RuntimeError>([&] { index_put_(y, {tensor<int64_t>({0, 1})}, y.select(0, 1)); },
                             "refer to a single memory location");
  Tensor e = zeros({1, 3}).expand({3, 3});
  expect_error<RuntimeError>([&] { index_put_(e, {tensor<int64_t>({0})}, scalar_tensor(1.0), true); },
                             "more than one element of the written-to tensor refers to a single memory location");
  EXPECT_EQ(testing::as_double(y), testing::as_double(arange_t(12)));
}

// ---------------------------------------------------------------- Meta and dispatch

TEST(IndexMeta, ShapesWithoutData) {
  Tensor m = empty({3, 4, 5}, TensorOptions(kFloat).device(kMeta));
  Tensor r = index(m, {std::nullopt, tensor<int64_t>({0, 1, 1}).view({3, 1}), tensor<int64_t>({0, 2})});
  EXPECT_TRUE(r.is_meta());
  EXPECT_EQ(shape_of(r), (std::vector<int64_t>{3, 3, 2}));
  Tensor midx = empty({2}, TensorOptions(kInt64).device(kMeta));
  Tensor r2 = index(m, {midx, std::nullopt, midx});
  EXPECT_EQ(shape_of(r2), (std::vector<int64_t>{2, 4}));  // separated: index dims first
  // A CPU mask on a Meta tensor has a known count.
  EXPECT_EQ(shape_of(index(m, {tensor<bool>({true, false, true})})), (std::vector<int64_t>{2, 4, 5}));
  Tensor mmask = empty({3}, TensorOptions(kBool).device(kMeta));
  expect_error<NotImplementedError>([&] { index(m, {mmask}); }, "Meta");
  expect_error<NotImplementedError>([&] { nonzero(mmask); }, "Meta");
  expect_error<NotImplementedError>([&] { masked_select(m, mmask.view({3, 1, 1})); }, "Meta");
  // index_put_ on Meta: checks shapes only (a Meta mask leaves the count unknown).
  Tensor& same = index_put_(m, {midx}, empty({4, 5}, TensorOptions(kFloat).device(kMeta)));
  EXPECT_TRUE(same.is_same(m));
  index_put_(m, {mmask}, empty({7}, TensorOptions(kFloat).device(kMeta)));
  expect_error<RuntimeError>([&] { index_put_(m, {midx}, empty({3}, TensorOptions(kFloat).device(kMeta))); },
                             "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of shape [2, 4, 5]");
  // Index tensors must be on the CPU or on self's device.
  expect_error<RuntimeError>([&] { index(arange_t(3), {midx}); },
                             "indices should be either on cpu or on the same device as the indexed tensor (cpu)");
}

TEST(IndexDispatch, BoxedCallWithOptionalTensorList) {
  const OpEntry* op = Dispatcher::get().find("index.Tensor");
  ASSERT_NE(op, nullptr);
  EXPECT_EQ(op->schema().arguments[1].type, "Tensor?[]");
  Stack stack;
  stack.emplace_back(arange_t(12).view({3, 4}));
  stack.emplace_back(std::vector<Tensor>{Tensor(), tensor<int64_t>({3, 0})});
  op->call_boxed(DispatchKeySet(DispatchKey::CPU), stack);
  ASSERT_EQ(stack.size(), 1u);
  EXPECT_EQ(testing::as_double(stack[0].tensor()), (std::vector<double>{3, 0, 7, 4, 11, 8}));

  const OpEntry* put = Dispatcher::get().find("index_put_");
  ASSERT_NE(put, nullptr);
  Tensor x = zeros({4});
  Stack s2;
  s2.emplace_back(x);
  s2.emplace_back(std::vector<Tensor>{tensor<int64_t>({1, 1})});
  s2.emplace_back(tensor<float>({2.f, 3.f}));
  s2.emplace_back(true);
  put->call_boxed(DispatchKeySet(DispatchKey::CPU), s2);
  EXPECT_EQ(testing::as_double(x), (std::vector<double>{0, 5, 0, 0}));
}

}  // namespace
}  // namespace ember
