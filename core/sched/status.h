// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <array>
#include <cstdint>

namespace Zhaoxi::Sched {

// Why a host, card or job cannot take a placement. Codes with parameters: the UI turns them into
// translated sentences in one place (HOUSE_STYLE 4). Append only: codes are stored in traces.
enum class Reason : std::uint8_t {
    None,
    // host level
    HostDown,
    HostNotAllowed,         // affinity pins another host
    InsufficientHostCpu,    // need = needed milli, have = free milli
    InsufficientHostMemory, // need = needed MiB, have = free MiB
    HostCpuTooSmall,        // need = needed, have = capacity   (unresolvable)
    HostMemoryTooSmall,     // need = needed, have = capacity   (unresolvable)
    // card level
    CardFailed,
    ModelNotAllowed,    // affinity excludes the card model
    ProfileNotOnModel,  // the requested MIG profile does not exist on this model
    IsolationMismatch,  // hard isolation asked, card only soft-sliced
    CardMemoryTooSmall, // need = needed MiB, have = the most any unit of this card can have
    CardMemoryInUse,    // need = needed MiB, have = free MiB
    CardComputeInUse,   // need = needed milli, have = free milli
    NoFreeUnit,         // every fitting unit of the card is busy
    NeedsRepartition,   // the card could serve after its layout changes
    TooManyClients,     // need = 1 more client, have = the soft mode's client limit
    CardReconfiguring,
    // job level
    GangTooWide,            // need = cards needed, have = most cards any host/domain can offer
    GangNotInOneLinkDomain, // need = cards needed, have = most feasible cards in one domain
    ClassBudgetExceeded,    // need = needed milli-cards, have = what the class may still use
    NoHosts,
    Count
};

constexpr int kReasonCount = int(Reason::Count);

// English identifiers for logs, traces and exports (stable: other tools read them).
const char *reasonCode(Reason reason);

// A typed verdict: success, unschedulable (preemption or repartitioning could help), unresolvable
// (nothing could: skip it in the planner), or an internal error. `need` and `have` are the
// reason's parameters (see each reason): what the job needs and what there is; 0 when the reason
// has none.
struct Status
{
    enum class Code : std::uint8_t { Success, Unschedulable, Unresolvable, Error };
    Code code = Code::Success;
    Reason reason = Reason::None;
    qint64 need = 0;
    qint64 have = 0;

    static constexpr Status success() { return {}; }
    static constexpr Status unschedulable(Reason r, qint64 need = 0, qint64 have = 0)
    {
        return {Code::Unschedulable, r, need, have};
    }
    static constexpr Status unresolvable(Reason r, qint64 need = 0, qint64 have = 0)
    {
        return {Code::Unresolvable, r, need, have};
    }
    static constexpr Status error(Reason r) { return {Code::Error, r, 0, 0}; }
    constexpr bool isSuccess() const { return code == Code::Success; }
    // English, for logs and the headless tool; the console translates codes itself.
    QString describe() const;
};

const char *statusCodeName(Status::Code code);

} // namespace Zhaoxi::Sched
