// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/sched/framework.h"
#include "core/sched/targetworkload.h"

#include <memory>
#include <optional>

namespace Zhaoxi::Sched {

// What a placement policy may need besides the state: the workload to keep the cluster ready for
// (FGD and our default) and a seed (Random).
struct PolicyOptions
{
    std::shared_ptr<const TargetWorkload> target;
    quint64 seed = 0;
};

// The placement policies by name: the FGD paper's baselines "random", "dotprod",
// "gpuclustering", "gpupacking", "bestfit", "fgd", and ours, "default". Each is the standard
// filters plus one score plugin.
QStringList placementPolicyNames();
// nullopt for an unknown name.
std::optional<Profile> placementPolicyProfile(const QString &name, const PolicyOptions &options);

} // namespace Zhaoxi::Sched
