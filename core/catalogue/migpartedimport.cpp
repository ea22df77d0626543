// SPDX-License-Identifier: GPL-3.0-or-later
// mig-parted counts as placements on a catalogue model (import) and a host's layouts as counts
// (export).
#include "migparted.h"

#include "catalogue.h"
#include "layoutrules.h"
#include "migparted_p.h"

#include <algorithm>

namespace Zhaoxi::Catalogue {

using Detail::hexFilter;
using Domain::CardModel;
using Domain::MigPlacement;
using Domain::MigProfile;

namespace {

// Depth-first over the allowed starts; `items` sorted by span descending. Equal profiles take
// ascending starts so each layout is visited once.
bool placeAll(const CardModel &model, const QList<int> &items, int k, QList<MigPlacement> &layout)
{
    if (k == items.size())
        return true;
    const int p = items[k];
    const int minStart = k > 0 && items[k - 1] == p ? layout.last().start + 1 : 0;
    for (int s : model.migProfiles[p].starts) {
        if (s < minStart)
            continue;
        const MigPlacement candidate{p, s};
        if (!canAdd(model, layout, candidate).isValid())
            continue;
        layout << candidate;
        if (placeAll(model, items, k + 1, layout))
            return true;
        layout.removeLast();
    }
    return false;
}

} // namespace

std::optional<QList<MigPlacement>> placeCounts(const CardModel &model,
                                               const QList<QPair<int, int>> &counts,
                                               QString *reason)
{
    QString dummy;
    QString &why = reason ? *reason : dummy;
    if (!model.supportsMig()) {
        why = QStringLiteral("%1 has no MIG").arg(model.name);
        return std::nullopt;
    }
    QList<qint64> perProfile(model.migProfiles.size(), 0); // counts come from files: no overflow
    for (const auto &[p, n] : counts) {
        if (p < 0 || p >= model.migProfiles.size()) {
            why = QStringLiteral("%1 has no profile #%2").arg(model.name).arg(p);
            return std::nullopt;
        }
        perProfile[p] += n;
    }
    int compute = 0;
    int memory = 0;
    int media = 0;
    QList<int> items;
    for (int p = 0; p < perProfile.size(); ++p) {
        const MigProfile &prof = model.migProfiles[p];
        const qint64 n64 = perProfile[p];
        if (n64 > prof.maxInstances) {
            why = QStringLiteral("%1 × %2: %1 is more than the %3 instance(s) of %2 one %4 holds")
                          .arg(n64)
                          .arg(prof.name)
                          .arg(prof.maxInstances)
                          .arg(model.name);
            return std::nullopt;
        }
        const int n = int(n64);
        compute += n * prof.computeSlices;
        memory += n * prof.span;
        if (prof.mediaExtensions)
            media += n;
        for (int i = 0; i < n; ++i)
            items << p;
    }
    if (media > 1) {
        why = QStringLiteral("%1 instances own the media engines; a card has one set").arg(media);
        return std::nullopt;
    }
    if (compute > model.migComputeSlices) {
        why = QStringLiteral("they need %1 compute slices; %2 has %3")
                      .arg(compute)
                      .arg(model.name)
                      .arg(model.migComputeSlices);
        return std::nullopt;
    }
    if (memory > model.migMemorySlices) {
        why = QStringLiteral("they need %1 memory slices; %2 has %3")
                      .arg(memory)
                      .arg(model.name)
                      .arg(model.migMemorySlices);
        return std::nullopt;
    }
    std::stable_sort(items.begin(), items.end(), [&](int a, int b) {
        const MigProfile &pa = model.migProfiles[a];
        const MigProfile &pb = model.migProfiles[b];
        if (pa.span != pb.span)
            return pa.span > pb.span;
        if (pa.starts.size() != pb.starts.size())
            return pa.starts.size() < pb.starts.size(); // the most constrained first
        return a < b;
    });
    QList<MigPlacement> layout;
    if (!placeAll(model, items, 0, layout)) {
        why = QStringLiteral("no arrangement of the allowed starts holds them all (they fit the "
                             "slice counts, not the placement rules)");
        return std::nullopt;
    }
    std::sort(layout.begin(), layout.end(), [](MigPlacement a, MigPlacement b) {
        return a.start != b.start ? a.start < b.start : a.profile < b.profile;
    });
    return layout;
}

QList<MigPartedPlacement> importMigParted(const MigPartedFile &file,
                                          const CardModel &model,
                                          const QString &onlyConfig)
{
    QList<MigPartedPlacement> out;
    for (const MigPartedConfig &c : file.configs) {
        if (!onlyConfig.isEmpty() && c.name != onlyConfig)
            continue;
        QList<const MigPartedEntry *> applicable;
        QStringList otherFilters;
        for (const MigPartedEntry &e : c.entries) {
            if (filterMatches(e.deviceFilter, model)) {
                applicable << &e;
            } else {
                for (quint32 f : e.deviceFilter)
                    otherFilters << hexFilter(f);
            }
        }
        auto notApplying = [&](const QString &why, int line) {
            MigPartedPlacement r;
            r.config = c.name;
            r.applies = false;
            r.reason = why;
            r.line = line;
            out << r;
        };
        if (applicable.isEmpty()) {
            otherFilters.removeDuplicates();
            notApplying(QStringLiteral("its device-filter selects other cards (%1); %2 is %3")
                                .arg(otherFilters.join(QStringLiteral(", ")),
                                     model.name,
                                     pciFilters(model).join(QStringLiteral(", "))),
                        c.line);
            continue;
        }
        QString unknown;
        int unknownLine = c.line;
        for (const MigPartedEntry *e : applicable) {
            for (const auto &[name, n] : e->migDevices) {
                Q_UNUSED(n)
                if (unknown.isEmpty() && profileIndexFor(model, name) < 0) {
                    unknown = name;
                    unknownLine = e->line;
                }
            }
        }
        if (!unknown.isEmpty()) {
            const QString why = !model.supportsMig()
                                        ? QStringLiteral("%1 has no MIG").arg(model.name)
                                        : QStringLiteral("\"%1\" is not a profile of %2")
                                                  .arg(unknown, model.name);
            notApplying(why, unknownLine);
            continue;
        }
        for (const MigPartedEntry *e : applicable) {
            MigPartedPlacement r;
            r.config = c.name;
            r.migEnabled = e->migEnabled;
            r.allDevices = e->allDevices;
            r.devices = e->devices;
            r.line = e->line;
            if (!e->migEnabled) {
                r.ok = true;
            } else if (!model.supportsMig()) {
                r.ok = false;
                r.reason = QStringLiteral("%1 has no MIG").arg(model.name);
            } else {
                QList<QPair<int, int>> counts;
                for (const auto &[name, n] : e->migDevices)
                    counts << qMakePair(profileIndexFor(model, name), n);
                QString why;
                if (const auto layout = placeCounts(model, counts, &why)) {
                    r.ok = true;
                    r.layout = *layout;
                } else {
                    QStringList asked;
                    for (const auto &[name, n] : e->migDevices)
                        asked << QStringLiteral("%1 × %2").arg(n).arg(name);
                    const QString devices = e->allDevices ? QStringLiteral("all devices") : [&] {
                        QStringList d;
                        for (int i : e->devices)
                            d << QString::number(i);
                        return QStringLiteral("device(s) %1").arg(d.join(QStringLiteral(", ")));
                    }();
                    r.ok = false;
                    r.reason = QStringLiteral("%1 (%2) cannot be placed on %3: %4")
                                       .arg(devices,
                                            asked.join(QStringLiteral(", ")),
                                            model.name,
                                            why);
                }
            }
            out << r;
        }
    }
    return out;
}

MigPartedConfig exportHost(const Catalogue &catalogue,
                           const QString &configName,
                           const QList<MigPartedCardLayout> &cards)
{
    MigPartedConfig config;
    config.name = configName;
    struct Group
    {
        int model;
        bool mig;
        QList<QPair<QString, int>> counts;
        QList<int> devices;
    };
    QList<Group> groups;
    for (int i = 0; i < cards.size(); ++i) {
        const MigPartedCardLayout &c = cards[i];
        const CardModel &model = catalogue.models()[c.model];
        QList<QPair<QString, int>> counts;
        if (c.migEnabled) {
            for (int p = 0; p < model.migProfiles.size(); ++p) {
                const int n = int(std::count_if(c.layout.cbegin(),
                                                c.layout.cend(),
                                                [p](MigPlacement x) { return x.profile == p; }));
                if (n > 0)
                    counts << qMakePair(model.migProfiles[p].name, n);
            }
        }
        auto same = std::find_if(groups.begin(), groups.end(), [&](const Group &g) {
            return g.model == c.model && g.mig == c.migEnabled && g.counts == counts;
        });
        if (same != groups.end())
            same->devices << i;
        else
            groups << Group{c.model, c.migEnabled, counts, {i}};
    }
    for (const Group &g : groups) {
        const CardModel &model = catalogue.models()[g.model];
        MigPartedEntry e;
        for (quint16 d : model.pciDeviceIds)
            e.deviceFilter << ((quint32(d) << 16) | model.pciVendorId);
        e.allDevices = g.devices.size() == cards.size();
        if (!e.allDevices)
            e.devices = g.devices;
        e.migEnabled = g.mig;
        e.migDevices = g.counts;
        config.entries << e;
    }
    return config;
}

} // namespace Zhaoxi::Catalogue
