// SPDX-License-Identifier: GPL-3.0-or-later
#include "status.h"

namespace Zhaoxi::Sched {

const char *reasonCode(Reason reason)
{
    switch (reason) {
    case Reason::None:
        return "none";
    case Reason::HostDown:
        return "host-down";
    case Reason::HostNotAllowed:
        return "host-not-allowed";
    case Reason::InsufficientHostCpu:
        return "insufficient-host-cpu";
    case Reason::InsufficientHostMemory:
        return "insufficient-host-memory";
    case Reason::HostCpuTooSmall:
        return "host-cpu-too-small";
    case Reason::HostMemoryTooSmall:
        return "host-memory-too-small";
    case Reason::CardFailed:
        return "card-failed";
    case Reason::ModelNotAllowed:
        return "model-not-allowed";
    case Reason::ProfileNotOnModel:
        return "profile-not-on-model";
    case Reason::IsolationMismatch:
        return "isolation-mismatch";
    case Reason::CardMemoryTooSmall:
        return "card-memory-too-small";
    case Reason::CardMemoryInUse:
        return "card-memory-in-use";
    case Reason::CardComputeInUse:
        return "card-compute-in-use";
    case Reason::NoFreeUnit:
        return "no-free-unit";
    case Reason::NeedsRepartition:
        return "needs-repartition";
    case Reason::TooManyClients:
        return "too-many-clients";
    case Reason::CardReconfiguring:
        return "card-reconfiguring";
    case Reason::GangTooWide:
        return "gang-too-wide";
    case Reason::GangNotInOneLinkDomain:
        return "gang-not-in-one-link-domain";
    case Reason::ClassBudgetExceeded:
        return "class-budget-exceeded";
    case Reason::NoHosts:
        return "no-hosts";
    case Reason::Count:
        break;
    }
    return "unknown";
}

const char *statusCodeName(Status::Code code)
{
    switch (code) {
    case Status::Code::Success:
        return "success";
    case Status::Code::Unschedulable:
        return "unschedulable";
    case Status::Code::Unresolvable:
        return "unresolvable";
    case Status::Code::Error:
        return "error";
    }
    return "?";
}

QString Status::describe() const
{
    const QString n1 = QString::number(need), n2 = QString::number(have);
    switch (reason) {
    case Reason::None:
        return code == Code::Success ? QStringLiteral("ok") : QStringLiteral("failed");
    case Reason::HostDown:
        return QStringLiteral("host is down");
    case Reason::HostNotAllowed:
        return QStringLiteral("affinity pins the job to another host");
    case Reason::InsufficientHostCpu:
        return QStringLiteral("needs %1 mCPU, host has %2 free").arg(n1, n2);
    case Reason::InsufficientHostMemory:
        return QStringLiteral("needs %1 MiB host memory, %2 free").arg(n1, n2);
    case Reason::HostCpuTooSmall:
        return QStringLiteral("needs %1 mCPU, host has %2 in all").arg(n1, n2);
    case Reason::HostMemoryTooSmall:
        return QStringLiteral("needs %1 MiB host memory, host has %2 in all").arg(n1, n2);
    case Reason::CardFailed:
        return QStringLiteral("card has failed");
    case Reason::ModelNotAllowed:
        return QStringLiteral("card model not allowed by the job's affinity");
    case Reason::ProfileNotOnModel:
        return QStringLiteral("card model has no such MIG profile");
    case Reason::IsolationMismatch:
        return QStringLiteral("job needs hard isolation, card is soft-sliced");
    case Reason::CardMemoryTooSmall:
        return QStringLiteral("needs %1 MiB, card offers at most %2 MiB").arg(n1, n2);
    case Reason::CardMemoryInUse:
        return QStringLiteral("needs %1 MiB, card has %2 MiB free").arg(n1, n2);
    case Reason::CardComputeInUse:
        return QStringLiteral("needs %1/1000 of a card, %2/1000 free").arg(n1, n2);
    case Reason::NoFreeUnit:
        return QStringLiteral("every fitting partition is busy");
    case Reason::NeedsRepartition:
        return QStringLiteral("card must be repartitioned first");
    case Reason::TooManyClients:
        return QStringLiteral("card already has its %1 clients").arg(n2);
    case Reason::CardReconfiguring:
        return QStringLiteral("card is being reconfigured");
    case Reason::GangTooWide:
        return QStringLiteral("needs %1 cards on one host, at most %2 available").arg(n1, n2);
    case Reason::GangNotInOneLinkDomain:
        return QStringLiteral("needs %1 cards in one fast-link domain, at most %2 free")
                .arg(n1, n2);
    case Reason::ClassBudgetExceeded:
        return QStringLiteral("needs %1/1000 cards, the class budget has %2 left").arg(n1, n2);
    case Reason::NoHosts:
        return QStringLiteral("the appliance has no hosts");
    case Reason::Count:
        break;
    }
    return QString::fromLatin1(reasonCode(reason));
}

} // namespace Zhaoxi::Sched
