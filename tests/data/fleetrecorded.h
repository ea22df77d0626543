// SPDX-License-Identifier: GPL-3.0-or-later
// A Slurm cluster's answers recorded from the real daemons (tests/fleet/data, its README says
// how), read the way the fleet session reads them. An answer that does not parse is a broken
// checkout, so the test stops (qFatal) with the reader's error.
#pragma once

#include "core/fleet/slurmjson.h"

#include <QFile>

namespace Zhaoxi::TestData {

inline QByteArray fleetAnswer(const QString &name)
{
    QFile f(QStringLiteral(ZHAOXI_SOURCE_DIR "/tests/fleet/data/") + name);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("tests/fleet/data/%s: %s", qPrintable(name), qPrintable(f.errorString()));
    return f.readAll();
}

// The recorded cluster: four nodes, eight jobs (3 and 7 pending), its partitions; `jobsFile`
// another recorded job list (squeue-after-preemption.json: job 9 preempted job 6).
inline Fleet::FleetSnapshot recordedFleet(const QString &jobsFile
                                          = QStringLiteral("rest-jobs.json"))
{
    Fleet::FleetSnapshot s;
    Domain::JsonError e;
    const auto check = [&e](auto parsed, const char *what) {
        if (!parsed)
            qFatal("%s: %s", what, qPrintable(e.toString()));
        return *parsed;
    };
    s.nodes = check(Fleet::parseNodes(fleetAnswer(QStringLiteral("rest-nodes.json")), &e), "nodes");
    s.jobs = check(Fleet::parseJobs(fleetAnswer(jobsFile), &e), "jobs");
    s.partitions
            = check(Fleet::parsePartitions(fleetAnswer(QStringLiteral("rest-partitions.json")), &e),
                    "partitions");
    return s;
}

} // namespace Zhaoxi::TestData
