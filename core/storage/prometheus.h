// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "metrics.h"

#include <QByteArray>
#include <QStringView>

namespace Zhaoxi::Storage {

// The latest metrics in the Prometheus text exposition format (0.0.4), with dcgm-exporter's
// names and labels where it has them, so existing Grafana dashboards work unchanged:
//
//   gpu-util          DCGM_FI_DEV_GPU_UTIL           (%)
//   memory-used-mib   DCGM_FI_DEV_FB_USED            (MiB; per MIG instance with GPU_I_* labels)
//   temperature-c     DCGM_FI_DEV_GPU_TEMP           (C)
//   power-w           DCGM_FI_DEV_POWER_USAGE        (W)
//   gr-engine-active  DCGM_FI_PROF_GR_ENGINE_ACTIVE  (ratio; per MIG instance)
//
// Device labels come from the series' stored labels (gpu, UUID, device, modelName, Hostname,
// GPU_I_PROFILE, GPU_I_ID), in dcgm-exporter's order. The rest are zhaoxi_* metrics:
//   zhaoxi_inference_latency_seconds{service, quantile}, zhaoxi_inference_requests_per_second
//   {service}, zhaoxi_training_throughput_samples_per_second{job}, zhaoxi_training_loss{job}.
// Pure function; any thread.
QByteArray prometheusText(const QList<LatestMetric> &metrics);

// The spelling of the text format's parts, shared by every writer of it (prometheusText and the
// service's /metrics, core/service/exposition.h) so that both write a value alike.
// Appends `value` as it goes between a label value's quotes: \\, \" and \n escaped, UTF-8.
void appendLabelValue(QByteArray &out, QStringView value);
// Appends a sample value: NaN, +Inf, -Inf, else at most 15 significant digits ("41", "0.5",
// "1e+21"): a value rounded where a double's noise begins, which Prometheus reads as a float64.
void appendSampleValue(QByteArray &out, double value);

} // namespace Zhaoxi::Storage
