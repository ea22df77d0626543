// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What tst_catalogue and tst_catalogue_parse share: a small valid model and ways to break it.

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <functional>

namespace CatalogueFixture {

// A small valid model; the error rows each break one thing in it.
inline QJsonObject baseModel()
{
    const auto profile = [](const char *name,
                            int id,
                            int compute,
                            int memory,
                            int mib,
                            int max,
                            QJsonArray starts) {
        return QJsonObject{{"name", name},
                           {"profileId", id},
                           {"computeSlices", compute},
                           {"memorySlices", memory},
                           {"memoryMiB", mib},
                           {"maxInstances", max},
                           {"starts", starts},
                           {"span", memory}};
    };
    return QJsonObject{
            {"schemaVersion", 1},
            {"name", "Test-GPU"},
            {"aliases", QJsonArray{"TG"}},
            {"source", "unit test"},
            {"pciDeviceIds", QJsonArray{"0x1234"}},
            {"memoryMiB", 8192},
            {"fp16Tflops", 10.5},
            {"idlePowerW", 5},
            {"maxPowerW", 100},
            {"maxSmClockMHz", 1500},
            {"migComputeSlices", 7},
            {"migMemorySlices", 8},
            {"migProfiles",
             QJsonArray{profile("1g.1gb", 19, 1, 1, 1024, 7, QJsonArray{0, 1, 2, 3, 4, 5, 6}),
                        profile("3g.4gb", 9, 3, 4, 4096, 2, QJsonArray{0, 4}),
                        profile("7g.8gb", 0, 7, 8, 8192, 1, QJsonArray{0})}},
            {"softModes",
             QJsonArray{QJsonObject{{"mode", "time-slicing"},
                                    {"maxClients", 16},
                                    {"memoryIsolation", false},
                                    {"isolation", "none"},
                                    {"overheadFactor", 0.9}},
                        QJsonObject{{"mode", "mps"},
                                    {"maxClients", 48},
                                    {"memoryIsolation", true},
                                    {"isolation", "weak"},
                                    {"overheadFactor", 0.95}}}},
    };
}

inline QByteArray toJson(const QJsonObject &o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Indented);
}

inline QByteArray mutated(const std::function<void(QJsonObject &)> &change)
{
    QJsonObject o = baseModel();
    change(o);
    return toJson(o);
}

// Sets (or, with an undefined value, removes) key `key` of element `i` of array `array`.
inline void setIn(
        QJsonObject &root, const char *array, int i, const char *key, const QJsonValue &value)
{
    QJsonArray a = root.value(array).toArray();
    QJsonObject e = a[i].toObject();
    if (value.isUndefined())
        e.remove(key);
    else
        e.insert(key, value);
    a[i] = e;
    root.insert(array, a);
}

inline QJsonObject named(const QString &name, const QJsonArray &aliases = {})
{
    QJsonObject o = baseModel();
    o.insert("name", name);
    o.insert("aliases", aliases);
    return o;
}

inline bool writeFile(const QString &path, const QByteArray &data)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(data) == data.size();
}

} // namespace CatalogueFixture
