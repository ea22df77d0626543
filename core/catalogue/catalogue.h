// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/domain/cardmodel.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace Zhaoxi::Catalogue {

using Domain::CardModel;

// An error in a catalogue file: which file, which field (JSON path, e.g.
// "migProfiles[2].starts"), the line where it can be told (JSON syntax errors, repeated keys),
// and why.
struct LoadError
{
    QString file;
    QString field;
    int line = 0; // 0 when unknown
    QString message;
    // "file:line: field: message", leaving out the parts that are unknown.
    QString toString() const;
};

// The card models the appliance knows, loaded from one JSON file per model.
//
// File format (schemaVersion 1). One JSON object per file; every key is checked and unknown keys
// are errors, so a misspelt key cannot silently drop a hardware fact, and a key given twice in
// one object is an error too. Strings must not be blank, have white space around them, or hold
// a NUL, a control character or a lone UTF-16 surrogate (the name rule of
// core/domain/jsonreader.h). Whole-card mode is implied for every model; MIG is implied by a
// non-empty migProfiles.
//
//   schemaVersion      int, required, must be 1
//   name               string, required: canonical name, e.g. "H100-SXM5-80GB"
//   aliases            [string], optional: other names traces and drivers use
//   source             string, optional: where the facts come from (documentation only)
//   vendor             string, optional, default "NVIDIA"
//   pciVendorId        hex string, optional, default "0x10DE"
//   pciDeviceIds       [hex string], required (may be empty), e.g. ["0x2330"]
//   memoryMiB          int > 0, required: whole-card framebuffer as nvidia-smi reports it
//   fp16Tflops         number > 0, required: dense FP16 tensor throughput
//   idlePowerW         int >= 0, required
//   maxPowerW          int >= max(1, idlePowerW), required
//   maxSmClockMHz      int 1..10000, optional: the SM boost clock (0 when absent: unknown)
//   migComputeSlices   int 1..32, required when migProfiles is non-empty (default 7)
//   migMemorySlices    int 1..32, required when migProfiles is non-empty (default 8)
//   migProfiles        [object], optional; empty or absent: the model has no MIG
//     name             string, required, unique in the model, e.g. "1g.10gb+me"
//     profileId        int >= 0, required, unique in the model: the driver's GPU instance
//                      profile id (nvidia-smi mig -lgip "ID")
//     computeSlices    int 1..migComputeSlices, required
//     memorySlices     int 1..migMemorySlices, required
//     memoryMiB        int 1..memoryMiB, required: as nvidia-smi mig -lgip reports it
//     maxInstances     int 1..(number of starts), required
//     starts           [int], required, non-empty, strictly ascending, each start >= 0 and
//                      start + span <= migMemorySlices
//     span             int, optional, must equal memorySlices (the slots a placement occupies)
//     mediaExtensions  bool, optional, default false ("+me": owns the media engines)
//   softModes          [object], optional; each mode at most once
//     mode             "time-slicing" | "mps", required
//     maxClients       int >= 1, required
//     memoryIsolation  bool, required
//     isolation        "none" | "weak" | "strong", required
//     overheadFactor   number in (0, 1], required: throughput kept when shared
//
// Across a catalogue, names and aliases must be unique (case-insensitive): find() must never
// have two answers.
class Catalogue
{
public:
    static constexpr int kSchemaVersion = 1;

    // The catalogue shipped with the program (resources/catalogue, compiled in as :/catalogue).
    // Should the shipped files ever fail to load, logs each error with qWarning and returns an
    // empty catalogue (tests guard against that).
    static Catalogue builtIn();
    // Loads every *.json in `dir`. All-or-nothing: on any error returns nullopt and lists every
    // error found in *errors.
    static std::optional<Catalogue> loadDirectory(const QString &dir, QList<LoadError> *errors);
    // Parses and validates one model file's contents. On failure fills *error (if given) with the
    // first problem found; `fileName` is only used to name the file in it.
    static std::optional<CardModel> parseModel(const QByteArray &json,
                                               const QString &fileName,
                                               LoadError *error);

    const QList<CardModel> &models() const { return m_models; }
    // By canonical name or alias, case-insensitive; nullptr when unknown.
    const CardModel *find(const QString &nameOrAlias) const;
    int indexOf(const QString &nameOrAlias) const; // -1 when unknown
    QStringList names() const;
    // Adds a model (tests, synthetic trace models). Replaces one of the same name.
    void add(const CardModel &model);

private:
    QList<CardModel> m_models;
};

} // namespace Zhaoxi::Catalogue
