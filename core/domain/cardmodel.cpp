// SPDX-License-Identifier: GPL-3.0-or-later
#include "cardmodel.h"

namespace Zhaoxi::Domain {

QString toString(PartitionMode mode)
{
    switch (mode) {
    case PartitionMode::Whole:
        return QStringLiteral("whole");
    case PartitionMode::Mig:
        return QStringLiteral("mig");
    case PartitionMode::TimeSlicing:
        return QStringLiteral("time-slicing");
    case PartitionMode::Mps:
        return QStringLiteral("mps");
    }
    return {};
}

bool partitionModeFromString(const QString &text, PartitionMode *mode)
{
    for (PartitionMode m : {PartitionMode::Whole,
                            PartitionMode::Mig,
                            PartitionMode::TimeSlicing,
                            PartitionMode::Mps}) {
        if (text == toString(m)) {
            *mode = m;
            return true;
        }
    }
    return false;
}

QString toString(IsolationLevel level)
{
    switch (level) {
    case IsolationLevel::None:
        return QStringLiteral("none");
    case IsolationLevel::Weak:
        return QStringLiteral("weak");
    case IsolationLevel::Strong:
        return QStringLiteral("strong");
    }
    return {};
}

bool isolationLevelFromString(const QString &text, IsolationLevel *level)
{
    for (IsolationLevel l : {IsolationLevel::None, IsolationLevel::Weak, IsolationLevel::Strong}) {
        if (text == toString(l)) {
            *level = l;
            return true;
        }
    }
    return false;
}

bool CardModel::supports(PartitionMode mode) const
{
    if (mode == PartitionMode::Whole)
        return true;
    if (mode == PartitionMode::Mig)
        return supportsMig();
    return softMode(mode) != nullptr;
}

int CardModel::profileIndex(const QString &profileName) const
{
    for (int i = 0; i < migProfiles.size(); ++i) {
        if (migProfiles[i].name == profileName)
            return i;
    }
    return -1;
}

const SoftSlicing *CardModel::softMode(PartitionMode mode) const
{
    for (const SoftSlicing &s : softModes) {
        if (s.mode == mode)
            return &s;
    }
    return nullptr;
}

bool CardModel::matchesName(const QString &modelName) const
{
    if (name.compare(modelName, Qt::CaseInsensitive) == 0)
        return true;
    for (const QString &a : aliases) {
        if (a.compare(modelName, Qt::CaseInsensitive) == 0)
            return true;
    }
    return false;
}

} // namespace Zhaoxi::Domain
