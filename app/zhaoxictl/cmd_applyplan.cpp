// SPDX-License-Identifier: GPL-3.0-or-later
// zhaoxictl apply-plan: apply a repartition plan exported from the console to this machine's
// NVIDIA cards through the NVML backend. Refuses without --yes; stops a card at its first failed
// step and prints what the card holds afterwards, as read back from the driver.
#include "commands.h"

#include "core/catalogue/catalogue.h"
#include "core/catalogue/layoutrules.h"
#include "core/device/nvmlapply.h"
#include "core/device/nvmlbackend.h"
#include "core/device/nvmlplan.h"

#include <QFile>

namespace Zhaoxi::Cli {

namespace Cat = Zhaoxi::Catalogue;
using namespace Zhaoxi::Device;

int runApplyPlan(const QStringList &arguments, Io &io)
{
    Args args(arguments);
    const bool yes = args.flag(QStringLiteral("yes"));
    const std::optional<QString> planPath = args.value(QStringLiteral("plan"));
    if (!args.missingValueFor().isEmpty() || !args.unknownOptions().isEmpty()
        || !args.positional().isEmpty() || !planPath) {
        io.err << "zhaoxictl apply-plan: usage: apply-plan --plan FILE [--yes]\n";
        return 2;
    }
    const Cat::Catalogue catalogue = Cat::Catalogue::builtIn();
    QFile f(*planPath);
    if (!f.open(QIODevice::ReadOnly)) {
        io.err << "zhaoxictl apply-plan: cannot read " << *planPath << ": " << f.errorString()
               << "\n";
        return 2;
    }
    QString error;
    const std::optional<PlanFile> plan = readPlanFile(f.readAll(), catalogue, &error);
    if (!plan) {
        io.err << "zhaoxictl apply-plan: " << *planPath << ": " << error << "\n";
        return 2;
    }
    io.out << "plan " << *planPath
           << (plan->note.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(plan->note)) << ":\n";
    for (const PlanCard &c : plan->cards) {
        const Domain::CardModel &m = catalogue.models()[c.model];
        io.out << "  card " << (c.uuid.isEmpty() ? QStringLiteral("#%1").arg(c.index) : c.uuid)
               << " (" << m.name << ")\n";
        for (const PlanStep &s : c.steps)
            io.out << "    "
                   << (s.kind == DeviceStep::Kind::DestroyInstance ? "destroy " : "create  ")
                   << Cat::formatPlacement(m, s.placement) << "\n";
    }
    if (!yes) {
        io.err << "zhaoxictl apply-plan: not applied: this changes MIG instances on real cards; "
                  "run again with --yes to apply\n";
        return 2;
    }

    NvmlBackendOptions options;
    options.applyEnabled = true;
    options.catalogue = catalogue;
    NvmlOpenResult opened;
    std::unique_ptr<NvmlBackend> backend = NvmlBackend::open(options, &opened);
    if (!backend) {
        io.err << "zhaoxictl apply-plan: " << opened.message << "\n";
        return 2;
    }
    if (backend->access() != NvmlAccess::Writable) {
        io.err << "zhaoxictl apply-plan: " << backend->accessMessage() << " Nothing was applied.\n";
        return 1;
    }
    const ResolvedPlan resolved = resolvePlan(*plan, catalogue, backend->cardReports());
    if (!resolved.problems.isEmpty()) {
        for (const QString &p : resolved.problems)
            io.err << "zhaoxictl apply-plan: " << p << "\n";
        io.err << "zhaoxictl apply-plan: the plan does not fit the cards; nothing was applied\n";
        return 1;
    }
    const NvmlApplyOutcome outcome = applyNow(*backend, resolved.steps, 0);
    for (const NvmlStepReport &r : outcome.reports) {
        const NvmlCardReport &rep = backend->cardReports()[r.result.step.card.value()];
        io.out << "card " << rep.index << " " << rep.uuid << ": "
               << describeStep(catalogue, rep.model, r.result.step) << ": " << toString(r.state);
        if (r.state != NvmlStepState::Done)
            io.out << " (" << toString(r.status) << ")";
        if (!r.message.isEmpty())
            io.out << ": " << r.message;
        io.out << "\n";
    }
    for (CardId card : outcome.cards) {
        const NvmlCardReport &rep = backend->cardReports()[card.value()];
        io.out << "card " << rep.index << " " << rep.uuid
               << " now holds: " << formatLayout(catalogue, rep.model, rep.layout.instances)
               << "\n";
        for (const QString &p : rep.layoutProblems)
            io.out << "  also: " << p << "\n";
    }
    return outcome.allDone ? 0 : 1;
}

} // namespace Zhaoxi::Cli
