// SPDX-License-Identifier: GPL-3.0-or-later
#include "policies.h"

#include "bestfitscore.h"
#include "dotprodscore.h"
#include "fgdscore.h"
#include "fragmentationscore.h"
#include "gpuclusteringscore.h"
#include "gpupackingscore.h"
#include "randomscore.h"

namespace Zhaoxi::Sched {

QStringList placementPolicyNames()
{
    return {QStringLiteral("random"),
            QStringLiteral("dotprod"),
            QStringLiteral("gpuclustering"),
            QStringLiteral("gpupacking"),
            QStringLiteral("bestfit"),
            QStringLiteral("fgd"),
            QStringLiteral("default")};
}

std::optional<Profile> placementPolicyProfile(const QString &name, const PolicyOptions &options)
{
    std::shared_ptr<const ScorePlugin> score;
    const auto target = options.target ? options.target : std::make_shared<const TargetWorkload>();
    if (name == QLatin1String("random"))
        score = std::make_shared<RandomScore>(options.seed);
    else if (name == QLatin1String("dotprod"))
        score = std::make_shared<DotProdScore>();
    else if (name == QLatin1String("gpuclustering"))
        score = std::make_shared<GpuClusteringScore>();
    else if (name == QLatin1String("gpupacking"))
        score = std::make_shared<GpuPackingScore>();
    else if (name == QLatin1String("bestfit"))
        score = std::make_shared<BestFitScore>();
    else if (name == QLatin1String("fgd"))
        score = std::make_shared<FgdScore>(target);
    else if (name == QLatin1String("default"))
        score = std::make_shared<FragmentationScore>(target);
    else
        return std::nullopt;
    Profile p;
    p.name = name;
    p.filters = standardFilters();
    p.scores.push_back({score, 1.0});
    return p;
}

} // namespace Zhaoxi::Sched
