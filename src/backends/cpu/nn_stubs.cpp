#include "backends/cpu/nn_stubs.h"

namespace ember::cpu {

Stub<SoftmaxFn> softmax_stub;
Stub<SoftmaxFn> softmax_backward_stub;
Stub<LayerNormFn> layer_norm_stub;
Stub<LayerNormFn> layer_norm_backward_stub;
Stub<ChannelFn> channel_stub;

}  // namespace ember::cpu
