// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace Zhaoxi::Trace {

// An error in a trace file: the file, the 1-based line, the column (by header name) and why.
struct TraceError
{
    QString file;
    int line = 0;   // 0 when the error is about the file as a whole
    QString column; // empty when not about one column
    QString message;
    QString toString() const; // "file:line: column 'x': message"
};

// One host of Alibaba's openb cluster trace (openb_node_list_*.csv).
struct NodeRecord
{
    QString name;         // sn
    qint64 cpuMilli = 0;  // cpu_milli
    qint64 memoryMiB = 0; // memory_mib
    int gpus = 0;         // gpu
    QString model;        // model (GPU model name; may be empty when gpus == 0)
    friend bool operator==(const NodeRecord &, const NodeRecord &) = default;
};

// One pod of an openb pod list (openb_pod_list_*.csv). Only the columns the FGD protocol uses
// are kept (2.2); qos, pod_phase and the times are ignored.
struct PodRecord
{
    QString name;
    qint64 cpuMilli = 0;
    qint64 memoryMiB = 0;
    int numGpu = 0;   // num_gpu
    int gpuMilli = 0; // gpu_milli as written
    QString gpuSpec;  // gpu_spec as written ('|'-separated models, empty = any)

    // The request per FGD protocol 2.2: cards g, share per card m, allowed models.
    int cards() const { return numGpu; }
    int milliPerCard() const
    {
        if (numGpu < 1)
            return 0;
        return gpuMilli > 1000 ? 1000 : (gpuMilli > 0 ? gpuMilli : 0);
    }
    qint64 gpuDemand() const { return qint64(numGpu) * milliPerCard(); }
    QStringList models() const; // only when numGpu >= 1; empty parts dropped
    friend bool operator==(const PodRecord &, const PodRecord &) = default;
};

// Readers: the header names the columns (any order; extra columns are ignored; CRLF accepted).
// All-or-nothing: on the first bad row they return nullopt and fill *error with the file, the
// line number and the column. Checks: every required column present, each row with as many
// fields as the header, integers where integers belong, no negative amounts, non-empty and
// unique names, a model on every host that has GPUs.
std::optional<QList<NodeRecord>> readNodes(const QString &path, TraceError *error);
std::optional<QList<PodRecord>> readPods(const QString &path, TraceError *error);
// The same on bytes already read; `fileName` is what errors name.
std::optional<QList<NodeRecord>> parseNodes(const QByteArray &csv,
                                            const QString &fileName,
                                            TraceError *error);
std::optional<QList<PodRecord>> parsePods(const QByteArray &csv,
                                          const QString &fileName,
                                          TraceError *error);

} // namespace Zhaoxi::Trace
