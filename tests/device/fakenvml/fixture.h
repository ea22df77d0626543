// SPDX-License-Identifier: GPL-3.0-or-later
// Builders of the test double's configuration (tests/device/fakenvml/fakenvml.cpp), shared by the
// tests that load it: GPUs described from the built-in catalogue's card models, and the fixture
// file the double reads when nvmlInit runs. Called from the test thread only.
#pragma once

#include "core/domain/cardmodel.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace Zhaoxi::Device::FakeNvml {

// NVML_GPU_INSTANCE_PROFILE_* index of a catalogue profile, as the driver numbers them.
int driverIndex(const Domain::MigProfile &p);

// The double's "profiles" array for a card model: every MIG profile it offers, with its
// placements.
QJsonArray profilesOf(const Domain::CardModel &m);

// One GPU of model `m`: its name, PCI ids and memory from the catalogue, fixed readings
// (utilisation 37 %, 41 °C, 63.5 W, 1 GiB used, 2 corrected ECC errors), its bus id taken from the
// last two characters of `uuid`. `mig` sets the current and pending MIG mode of a MIG-capable
// model; `instances` are its GPU instances as "profile@start" (e.g. "3g.20gb@0"), none busy.
QJsonObject gpu(const Domain::CardModel &m,
                const QString &uuid,
                bool mig,
                const QStringList &instances = {});

// Writes `root` to `path` and points FAKENVML_FIXTURE at it, so the next nvmlInit of the double
// reads it. False, with the environment unchanged, if the file cannot be written.
bool useFixture(const QString &path, const QJsonObject &root);

} // namespace Zhaoxi::Device::FakeNvml
