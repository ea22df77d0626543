// SPDX-License-Identifier: GPL-3.0-or-later
#include "framework.h"

#include "plugins/binpackingscore.h"
#include "plugins/priorityqueuesort.h"
#include "plugins/replicaspreadscore.h"
#include "plugins/topologyscore.h"

namespace Zhaoxi::Sched {

Profile defaultProfile()
{
    Profile p;
    p.name = QStringLiteral("default");
    p.queueSort = std::make_shared<PriorityQueueSort>();
    p.filters = standardFilters();
    p.scores.push_back({std::make_shared<BinPackingScore>(), 1.0});
    p.scores.push_back({std::make_shared<TopologyScore>(), 1.0});
    p.scores.push_back({std::make_shared<ReplicaSpreadScore>(), 2.0});
    return p;
}

} // namespace Zhaoxi::Sched
