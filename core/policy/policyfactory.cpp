// SPDX-License-Identifier: GPL-3.0-or-later
#include "forecast.h"
#include "loadguard.h"
#include "staticsplit.h"
#include "timewindows.h"

namespace Zhaoxi::Policy {

QStringList policyNames()
{
    return {QStringLiteral("static"),
            QStringLiteral("windows"),
            QStringLiteral("guard"),
            QStringLiteral("forecast")};
}

std::unique_ptr<Policy> makePolicy(const QString &name,
                                   const QJsonObject &params,
                                   PolicyError *error)
{
    if (name == QLatin1String("static"))
        return StaticSplit::create(params, error);
    if (name == QLatin1String("windows"))
        return TimeWindows::create(params, error);
    if (name == QLatin1String("guard"))
        return LoadGuard::create(params, error);
    if (name == QLatin1String("forecast"))
        return Forecast::create(params, error);
    if (error)
        *error = PolicyError{QString(),
                             QStringLiteral("unknown policy \"%1\" (known: %2)")
                                     .arg(name, policyNames().join(QStringLiteral(", ")))};
    return nullptr;
}

} // namespace Zhaoxi::Policy
