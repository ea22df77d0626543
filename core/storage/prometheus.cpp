// SPDX-License-Identifier: GPL-3.0-or-later
#include "prometheus.h"

#include <QMap>

#include <algorithm>
#include <cmath>

namespace Zhaoxi::Storage {

namespace {

struct Family
{
    const char *name;
    const char *help;
    double scale; // stored value -> exposed value
};

Family familyOf(Metric m)
{
    switch (m) {
    case Metric::GpuUtil:
        return {"DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", 1};
    case Metric::MemoryUsedMiB:
        return {"DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", 1};
    case Metric::MemoryFreeMiB:
        return {"DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB).", 1};
    case Metric::SmClockMHz:
        return {"DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz).", 1};
    case Metric::TensorActive:
        return {"DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
                "Ratio of cycles the tensor (HMMA) pipe is active; modelled from the training "
                "and inference shares of the busy time.",
                1};
    case Metric::TemperatureC:
        return {"DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).", 1};
    case Metric::PowerW:
        return {"DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).", 1};
    case Metric::GrEngineActive:
        return {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", "Ratio of time the graphics engine is active.", 1};
    case Metric::LatencyP50Ms:
    case Metric::LatencyP95Ms:
    case Metric::LatencyP99Ms:
        return {"zhaoxi_inference_latency_seconds",
                "Inference request latency quantiles (in s).",
                0.001};
    case Metric::RequestRate:
        return {"zhaoxi_inference_requests_per_second", "Inference requests served per second.", 1};
    case Metric::TrainingThroughput:
        return {"zhaoxi_training_throughput_samples_per_second",
                "Training throughput (samples/s).",
                1};
    case Metric::TrainingLoss:
        return {"zhaoxi_training_loss", "Training loss, as last reported.", 1};
    case Metric::ServiceTimeMs:
        return {"zhaoxi_inference_service_seconds",
                "Mean time one request takes on one replica's unit (in s).",
                0.001};
    case Metric::SloAttainment:
        return {"zhaoxi_inference_slo_attainment_ratio",
                "Share of the requests of the period served within the SLO.",
                1};
    case Metric::TrainingWorkH:
        return {"zhaoxi_training_work_reference_card_hours",
                "Training work done so far, in reference card-hours.",
                1};
    case Metric::Replicas:
        return {"zhaoxi_inference_replicas", "Replicas serving the service.", 1};
    case Metric::Count:
        break;
    }
    return {"zhaoxi_unknown", "", 1};
}

const char *const kDcgmLabelOrder[]
        = {"gpu", "UUID", "device", "modelName", "Hostname", "GPU_I_PROFILE", "GPU_I_ID"};

QByteArray labelsFor(const LatestMetric &m)
{
    QList<std::pair<QByteArray, QString>> labels;
    const bool device = isDeviceMetric(m.key.metric);
    if (device) {
        QMap<QString, QString> rest = m.labels;
        for (const char *name : kDcgmLabelOrder) {
            const QString key = QString::fromLatin1(name);
            if (rest.contains(key))
                labels.append({QByteArray(name), rest.take(key)});
        }
        if (!labels.isEmpty() && m.labels.value(QStringLiteral("gpu")).isEmpty() && m.key.card >= 0)
            labels.prepend({"gpu", QString::number(m.key.card)});
        if (labels.isEmpty() && m.key.card >= 0) {
            labels.append({"gpu", QString::number(m.key.card)});
            if (m.key.partition >= 0)
                labels.append({"GPU_I_ID", QString::number(m.key.partition)});
        }
        for (auto it = rest.begin(); it != rest.end(); ++it)
            labels.append({it.key().toUtf8(), it.value()});
    } else {
        if (!m.key.service.isEmpty())
            labels.append({"service", m.key.service});
        if (m.key.job >= 0)
            labels.append({"job_id", QString::number(m.key.job)});
        if (m.key.card >= 0)
            labels.append({"gpu", QString::number(m.key.card)});
        switch (m.key.metric) {
        case Metric::LatencyP50Ms:
            labels.append({"quantile", QStringLiteral("0.5")});
            break;
        case Metric::LatencyP95Ms:
            labels.append({"quantile", QStringLiteral("0.95")});
            break;
        case Metric::LatencyP99Ms:
            labels.append({"quantile", QStringLiteral("0.99")});
            break;
        default:
            break;
        }
        for (auto it = m.labels.begin(); it != m.labels.end(); ++it)
            labels.append({it.key().toUtf8(), it.value()});
    }
    if (labels.isEmpty())
        return {};
    QByteArray r = "{";
    for (qsizetype i = 0; i < labels.size(); ++i) {
        if (i)
            r += ',';
        r += labels[i].first + "=\"";
        appendLabelValue(r, labels[i].second);
        r += '"';
    }
    r += '}';
    return r;
}

} // namespace

QByteArray prometheusText(const QList<LatestMetric> &metrics)
{
    // Group by family, keeping the order families first appear in Metric order.
    QList<LatestMetric> sorted = metrics;
    std::stable_sort(
            sorted.begin(), sorted.end(), [](const LatestMetric &a, const LatestMetric &b) {
                return QByteArray(familyOf(a.key.metric).name)
                       < QByteArray(familyOf(b.key.metric).name);
            });
    QByteArray out;
    QByteArray current;
    for (const LatestMetric &m : sorted) {
        const Family f = familyOf(m.key.metric);
        if (current != f.name) {
            current = f.name;
            out += "# HELP " + current + ' ' + f.help + '\n';
            out += "# TYPE " + current + " gauge\n";
        }
        out += current + labelsFor(m) + ' ';
        appendSampleValue(out, m.point.value * f.scale);
        out += '\n';
    }
    return out;
}

void appendLabelValue(QByteArray &out, QStringView value)
{
    const QByteArray utf8 = value.toUtf8();
    qsizetype from = 0;
    for (qsizetype i = 0; i < utf8.size(); ++i) {
        const char c = utf8[i];
        if (c != '\\' && c != '"' && c != '\n')
            continue;
        out.append(utf8.constData() + from, i - from);
        out += c == '\n'  ? QByteArrayView("\\n")
               : c == '"' ? QByteArrayView("\\\"")
                          : QByteArrayView("\\\\");
        from = i + 1;
    }
    out.append(utf8.constData() + from, utf8.size() - from);
}

void appendSampleValue(QByteArray &out, double value)
{
    if (std::isnan(value))
        out += "NaN";
    else if (std::isinf(value))
        out += value > 0 ? "+Inf" : "-Inf";
    else
        out += QByteArray::number(value, 'g', 15);
}

} // namespace Zhaoxi::Storage
