// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common.h"

namespace Zhaoxi::Policy {

// A fixed share of the appliance's compute for inference, the rest for training, all day.
// Replicas follow the observed load within the inference share; nothing moves between classes.
//
//   inferenceShare   number 0..1, default 0.4
//   + the common parameters (common.h)
class StaticSplit final : public Policy
{
public:
    static std::unique_ptr<Policy> create(const QJsonObject &params, PolicyError *error);
    QString name() const override { return QStringLiteral("static"); }
    void start(PolicyContext &ctx, qint64 nowMs) override;
    qint64 tick(PolicyContext &ctx, qint64 nowMs) override;

    double inferenceShare() const { return m_share; }

private:
    CommonParams m_common;
    double m_share = 0.4;
    QosKnobs m_qos;
    ConsolidationMemo m_consolidation;
};

} // namespace Zhaoxi::Policy
