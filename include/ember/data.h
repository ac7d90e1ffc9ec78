// ember::data, torch.utils.data for C++: datasets, samplers, a DataLoader with worker threads,
// and the IDX file reader (MNIST / Fashion-MNIST).
#pragma once

#include "ember/data/dataloader.h"
#include "ember/data/dataset.h"
#include "ember/data/idx.h"
#include "ember/data/sampler.h"
