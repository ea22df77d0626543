// SPDX-License-Identifier: GPL-3.0-or-later
// The test double's state: its handles, the fixture read when NVML is first initialised, and the
// test control functions (fakenvml_control, fakenvml_log, fakenvml_mig_uuid).
#include "tests/device/fakenvml/fakenvml_state.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace FakeNvmlState {

State &state()
{
    static State s;
    return s;
}

Gpu *gpuAt(int i)
{
    int k = 0;
    for (Gpu &g : state().gpus) {
        if (k++ == i)
            return &g;
    }
    return nullptr;
}

Gpu *asGpu(nvmlDevice_t d)
{
    for (Gpu &g : state().gpus) {
        if (reinterpret_cast<nvmlDevice_t>(&g) == d)
            return &g;
    }
    return nullptr;
}

GpuInstance *asGi(nvmlGpuInstance_t h)
{
    for (GpuInstance &g : state().gis) {
        if (reinterpret_cast<nvmlGpuInstance_t>(&g) == h)
            return g.alive ? &g : nullptr;
    }
    return nullptr;
}

ComputeInstance *asCi(nvmlComputeInstance_t h)
{
    for (ComputeInstance &c : state().cis) {
        if (reinterpret_cast<nvmlComputeInstance_t>(&c) == h)
            return c.alive ? &c : nullptr;
    }
    return nullptr;
}

// A MIG device handle is the compute instance's address, passed as an nvmlDevice_t.
ComputeInstance *asMigDevice(nvmlDevice_t d)
{
    ComputeInstance *ci = asCi(reinterpret_cast<nvmlComputeInstance_t>(d));
    return ci && ci->parent->alive ? ci : nullptr;
}

ComputeInstance *migDeviceAt(const Gpu &g, unsigned start)
{
    for (ComputeInstance &c : state().cis) {
        if (c.alive && c.parent->alive && c.parent->gpu == &g && c.parent->start == start)
            return &c;
    }
    return nullptr;
}

ComputeInstance *addCi(GpuInstance &gi, unsigned profileId)
{
    State &s = state();
    char uuid[64];
    std::snprintf(uuid,
                  sizeof uuid,
                  "MIG-%08x-0000-4000-8000-%012x",
                  unsigned(gi.gpu->index),
                  ++s.migDevicesMade);
    s.cis.push_back(ComputeInstance{true, unsigned(gi.cis.size()), profileId, &gi, uuid});
    gi.cis.push_back(&s.cis.back());
    return &s.cis.back();
}

const Profile *profileById(const Gpu &g, unsigned id)
{
    for (const Profile &p : g.profiles) {
        if (p.id == id)
            return &p;
    }
    return nullptr;
}

void logLine(const std::string &s)
{
    state().log += s + "\n";
}

GpuInstance *addGi(Gpu &g, const Profile &p, unsigned start, bool withCi)
{
    State &s = state();
    s.gis.push_back(GpuInstance{});
    GpuInstance &gi = s.gis.back();
    gi.id = g.nextGiId++;
    gi.profileId = p.id;
    gi.start = start;
    gi.size = p.size;
    gi.slices = p.slices;
    gi.gpu = &g;
    if (withCi)
        addCi(gi, 0);
    return &gi;
}

namespace {

std::vector<Process> processesFrom(const QJsonArray &list)
{
    std::vector<Process> out;
    for (const QJsonValue &pv : list) {
        const QJsonObject po = pv.toObject();
        out.push_back(Process{unsigned(po.value(QLatin1String("pid")).toInteger()),
                              po.value(QLatin1String("memoryMiB")).toInteger(-1),
                              po.value(QLatin1String("start")).toInt(-1),
                              unsigned(po.value(QLatin1String("smUtil")).toInt())});
    }
    return out;
}

} // namespace

void loadFixture()
{
    State &s = state();
    s = State{};
    s.initCount = 0;
    QFile f(qEnvironmentVariable("FAKENVML_FIXTURE"));
    if (!f.open(QIODevice::ReadOnly))
        return;
    const QJsonObject root = QJsonDocument::fromJson(f.readAll()).object();
    s.driverVersion = root.value(QLatin1String("driverVersion"))
                              .toString(QStringLiteral("550.00"))
                              .toStdString();
    s.permission = root.value(QLatin1String("permission")).toBool(true);
    s.failCreateAt = root.value(QLatin1String("failCreateAt")).toInt(-1);
    s.failComputeCreate = root.value(QLatin1String("failComputeCreate")).toBool(false);
    for (const QJsonValue &gv : root.value(QLatin1String("gpus")).toArray()) {
        const QJsonObject o = gv.toObject();
        s.gpus.push_back(Gpu{});
        Gpu &g = s.gpus.back();
        g.index = int(s.gpus.size()) - 1;
        g.name = o.value(QLatin1String("name")).toString().toStdString();
        g.uuid = o.value(QLatin1String("uuid")).toString().toStdString();
        g.busId = o.value(QLatin1String("busId")).toString().toStdString();
        g.pciDeviceId = o.value(QLatin1String("pciDeviceId")).toString().mid(2).toUInt(nullptr, 16);
        g.memTotalMiB = o.value(QLatin1String("memoryTotalMiB")).toInteger();
        g.memUsedMiB = o.value(QLatin1String("memoryUsedMiB")).toInteger();
        g.utilisation = unsigned(o.value(QLatin1String("utilisation")).toInt());
        g.temperature = unsigned(o.value(QLatin1String("temperature")).toInt());
        g.powerMw = unsigned(o.value(QLatin1String("powerMw")).toInt());
        g.smClockMHz = unsigned(o.value(QLatin1String("smClockMHz")).toInt());
        g.maxSmClockMHz = unsigned(o.value(QLatin1String("maxSmClockMHz")).toInt());
        g.throttleReasons
                = (unsigned long long)o.value(QLatin1String("throttleReasons")).toInteger();
        g.slowdownTempC = unsigned(o.value(QLatin1String("slowdownTempC")).toInt());
        g.shutdownTempC = unsigned(o.value(QLatin1String("shutdownTempC")).toInt());
        g.eccUncorrected = o.value(QLatin1String("eccUncorrected")).toInteger();
        g.eccCorrected = o.value(QLatin1String("eccCorrected")).toInteger();
        g.lost = o.value(QLatin1String("lost")).toBool();
        g.processes = processesFrom(o.value(QLatin1String("processes")).toArray());
        if (o.contains(QLatin1String("mig"))) {
            g.hasMig = true;
            g.migCurrent = o.value(QLatin1String("mig"))
                                   .toObject()
                                   .value(QLatin1String("current"))
                                   .toBool();
            g.migPending = o.value(QLatin1String("mig"))
                                   .toObject()
                                   .value(QLatin1String("pending"))
                                   .toBool();
        }
        for (const QJsonValue &pv : o.value(QLatin1String("profiles")).toArray()) {
            const QJsonObject po = pv.toObject();
            Profile p;
            p.index = unsigned(po.value(QLatin1String("index")).toInt());
            p.id = unsigned(po.value(QLatin1String("id")).toInt());
            p.name = po.value(QLatin1String("name")).toString().toStdString();
            p.slices = unsigned(po.value(QLatin1String("slices")).toInt());
            p.instances = unsigned(po.value(QLatin1String("instances")).toInt());
            p.memoryMB = po.value(QLatin1String("memoryMB")).toInteger();
            p.size = unsigned(po.value(QLatin1String("size")).toInt());
            for (const QJsonValue &sv : po.value(QLatin1String("starts")).toArray())
                p.starts.push_back(unsigned(sv.toInt()));
            g.profiles.push_back(p);
        }
        for (const QJsonValue &iv : o.value(QLatin1String("instances")).toArray()) {
            const QJsonObject io = iv.toObject();
            const Profile *p
                    = profileById(g, unsigned(io.value(QLatin1String("profileId")).toInt()));
            if (!p)
                continue;
            GpuInstance *gi
                    = addGi(g, *p, unsigned(io.value(QLatin1String("start")).toInt()), true);
            gi->busy = io.value(QLatin1String("busy")).toBool();
        }
    }
}

void copyString(const std::string &s, char *buf, unsigned len)
{
    if (len == 0)
        return;
    const size_t n = std::min<size_t>(s.size(), len - 1);
    std::memcpy(buf, s.data(), n);
    buf[n] = '\0';
}
} // namespace FakeNvmlState

using namespace FakeNvmlState;

// --- test control ------------------------------------------------------------------------------

FAKE_EXPORT int fakenvml_control(const char *json)
{
    State &s = state();
    const QJsonObject o = QJsonDocument::fromJson(QByteArray(json)).object();
    if (o.contains(QLatin1String("busy"))) {
        const QJsonObject b = o.value(QLatin1String("busy")).toObject();
        Gpu *g = gpuAt(b.value(QLatin1String("gpu")).toInt());
        for (GpuInstance &gi : s.gis) {
            if (gi.alive && gi.gpu == g && int(gi.start) == b.value(QLatin1String("start")).toInt())
                gi.busy = b.value(QLatin1String("busy")).toBool(true);
        }
    }
    if (o.contains(QLatin1String("lost"))) {
        const QJsonObject b = o.value(QLatin1String("lost")).toObject();
        if (Gpu *g = gpuAt(b.value(QLatin1String("gpu")).toInt()))
            g->lost = b.value(QLatin1String("lost")).toBool(true);
    }
    if (o.contains(QLatin1String("xid"))) {
        const QJsonObject b = o.value(QLatin1String("xid")).toObject();
        if (Gpu *g = gpuAt(b.value(QLatin1String("gpu")).toInt()))
            s.events.push_back(
                    Event{g, (unsigned long long)b.value(QLatin1String("xid")).toInteger()});
    }
    if (o.contains(QLatin1String("eccUncorrected"))) {
        const QJsonObject b = o.value(QLatin1String("eccUncorrected")).toObject();
        if (Gpu *g = gpuAt(b.value(QLatin1String("gpu")).toInt()))
            g->eccUncorrected = b.value(QLatin1String("count")).toInteger();
    }
    if (o.contains(QLatin1String("throttle"))) {
        const QJsonObject b = o.value(QLatin1String("throttle")).toObject();
        if (Gpu *g = gpuAt(b.value(QLatin1String("gpu")).toInt())) {
            g->throttleReasons = (unsigned long long)b.value(QLatin1String("reasons")).toInteger();
            if (b.contains(QLatin1String("temperature")))
                g->temperature = unsigned(b.value(QLatin1String("temperature")).toInt());
        }
    }
    if (o.contains(QLatin1String("utilisation"))) {
        const QJsonObject b = o.value(QLatin1String("utilisation")).toObject();
        if (Gpu *g = gpuAt(b.value(QLatin1String("gpu")).toInt()))
            g->utilisation = unsigned(b.value(QLatin1String("value")).toInt());
    }
    if (o.contains(QLatin1String("processes"))) {
        const QJsonObject b = o.value(QLatin1String("processes")).toObject();
        if (Gpu *g = gpuAt(b.value(QLatin1String("gpu")).toInt()))
            g->processes = processesFrom(b.value(QLatin1String("list")).toArray());
    }
    if (o.contains(QLatin1String("permission")))
        s.permission = o.value(QLatin1String("permission")).toBool();
    if (o.contains(QLatin1String("failCreateAt"))) {
        s.failCreateAt = o.value(QLatin1String("failCreateAt")).toInt();
        s.creates = 0;
    }
    return 0;
}

FAKE_EXPORT const char *fakenvml_log()
{
    return state().log.c_str();
}

FAKE_EXPORT const char *fakenvml_mig_uuid(int gpu, int start)
{
    const Gpu *g = gpuAt(gpu);
    const ComputeInstance *ci = g && start >= 0 ? migDeviceAt(*g, unsigned(start)) : nullptr;
    return ci ? ci->uuid.c_str() : "";
}
