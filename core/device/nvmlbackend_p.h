// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the parts of NvmlBackend share, not for other units: nvmlbackend.cpp opens the library
// and answers the DeviceBackend queries, nvmlbackend_read.cpp discovers and samples the cards,
// nvmlbackend_apply.cpp carries out orders. All on the backend's thread.

#include "nvmlbackend.h"

namespace Zhaoxi::Device::NvmlDetail {

constexpr int kMaxInstancesPerProfile = 32; // more than any card offers (7)

} // namespace Zhaoxi::Device::NvmlDetail
