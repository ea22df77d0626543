// SPDX-License-Identifier: GPL-3.0-or-later
// The demo appliance's state (resources/appliances/demo.json) and a job bound by hand, for the
// model tests that build their states themselves.
#pragma once

#include "core/catalogue/catalogue.h"
#include "core/sched/appliancefile.h"
#include "core/sched/clusterstate.h"

#include <QtGlobal>

namespace DemoState {

using namespace Zhaoxi;

inline Sched::ClusterState demo()
{
    Sched::ApplianceError error;
    const std::optional<Sched::Appliance> a = Sched::loadApplianceFile(
            QStringLiteral(ZHAOXI_SOURCE_DIR "/resources/appliances/demo.json"),
            Catalogue::Catalogue::builtIn(),
            &error);
    if (!a)
        qFatal("demo appliance: %s", qPrintable(error.toString()));
    return a->state;
}

// Binds a new running job named `name` to unit `uid` of `card`.
inline Domain::JobId bindJob(Sched::ClusterState &s,
                             Domain::CardId card,
                             int uid,
                             const QString &name,
                             Domain::WorkloadKind kind = Domain::WorkloadKind::Batch)
{
    Domain::WorkloadSpec spec;
    spec.name = name;
    spec.kind = kind;
    const Domain::JobId job = s.addJob(spec, 0);
    s.attachHost(job, s.card(card).host);
    Sched::UnitChoice choice;
    choice.card = card;
    choice.kind = Sched::UnitChoice::Kind::Existing;
    choice.uid = uid;
    s.bind(job, choice);
    s.setJobState(job, Sched::JobState::Running);
    return job;
}

} // namespace DemoState
