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
// are kept (2.2). The request is read from five required columns: name, cpu_milli, memory_mib,
// num_gpu and gpu_milli. gpu_spec is optional: a file without it (the openb family has such
// files) reads as if every pod's gpu_spec were empty, so every pod may use any GPU model.
// qos, pod_phase, creation_time, deletion_time and scheduled_time are never read, present or
// not: the protocol replays no time (every pod is there from the start, no pod leaves, and the
// arrival order is drawn from the seed, 3.2), so a file with or without them replays the same.
struct PodRecord
{
    QString name;
    qint64 cpuMilli = 0;
    qint64 memoryMiB = 0;
    int numGpu = 0;   // num_gpu
    int gpuMilli = 0; // gpu_milli as written
    QString gpuSpec;  // gpu_spec as written ('|'-separated models); empty = any, also when the
                      // file has no gpu_spec column

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

// Readers: the header (the first non-blank line) names the columns. Columns are found by name,
// in any order; columns a reader does not know are ignored; CRLF line ends and a UTF-8 byte order
// mark are accepted. Required columns: sn, cpu_milli, memory_mib, gpu and model for hosts; name,
// cpu_milli, memory_mib, num_gpu and gpu_milli for pods (gpu_spec optional, see PodRecord).
// All-or-nothing: on the first error they return nullopt and fill *error (when not null) with the
// file, the line number and the column. A header without some required column is refused at its
// line (1 unless blank lines precede it), naming the missing column; when several are missing,
// `column` is the first of them and the message lists them all. Row checks: as many fields as the
// header, integers where integers belong, no negative amounts, non-empty and unique names, a
// model on every host that has GPUs. They keep no state; callable from any thread.
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
