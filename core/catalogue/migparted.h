// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Interoperability with NVIDIA's MIG partition editor (nvidia-mig-parted), which the GPU
// Operator's MIG manager uses: its configuration file read and written, and its per-device
// profile counts turned into legal placements on a catalogue model.
//
// The file (YAML):
//
//   version: v1
//   mig-configs:
//     <config name>:                  # what a node is told to apply, e.g. "all-balanced"
//       - devices: all | [0, 1, ...]  # GPU indexes on the node
//         device-filter: "0x233510DE" | ["0x20B010DE", ...]   # optional: PCI device + vendor id
//         mig-enabled: true | false
//         mig-devices: {"1g.10gb": 2, "3g.40gb": 1}          # profile -> count; {} allowed
//
// mig-parted itself carries counts only; placements are the driver's choice. The importer
// computes one legal placement per entry (or says why there is none); the exporter writes
// counts, so an export followed by an import gives the same counts, maybe at other starts.
//
// All functions here are pure and reentrant.

#include "core/domain/cardmodel.h"

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

#include <optional>

namespace Zhaoxi::Catalogue {

class Catalogue;

// --- A small YAML reader ---------------------------------------------------------------------
// The subset configuration files use: block mappings and sequences (a sequence may sit at its
// key's indentation), plain, single- and double-quoted scalars, comments, flow mappings {} and
// flow sequences [] on one line, a leading "---". Not supported, each reported as an error with
// its line: tabs in indentation, anchors and aliases, tags, block scalars (| >), multi-line flow
// collections, several documents, duplicate keys.
//
// Limits, so that a broken or hostile file is refused with an error instead of exhausting the
// stack or the memory (a real mig-parted file is a few KB and about five levels deep): at most
// kMaxYamlNesting sequences and mappings inside each other, block and flow levels counted
// together; the reader recurses once per level and nothing deeper is ever entered. Time and
// memory grow linearly with the input (at worst about 80 bytes of memory per input byte, for a
// long flat list of one-character items).

inline constexpr int kMaxYamlNesting = 64;

struct YamlNode
{
    enum class Kind : std::uint8_t { Null, Scalar, Sequence, Mapping };
    Kind kind = Kind::Null;
    QString scalar; // Scalar: the text (unquoted)
    bool quoted = false;
    QList<YamlNode> items;                   // Sequence
    QList<QPair<QString, YamlNode>> entries; // Mapping, in file order
    int line = 0;                            // 1-based line where the node starts

    bool isNull() const { return kind == Kind::Null; }
    bool isScalar() const { return kind == Kind::Scalar; }
    bool isSequence() const { return kind == Kind::Sequence; }
    bool isMapping() const { return kind == Kind::Mapping; }
    const YamlNode *value(const QString &key) const; // Mapping: nullptr when absent
};

struct YamlError
{
    int line = 0; // 1-based; 0 when the file as a whole is wrong
    QString message;
    int column = 0; // 1-based where the reader knows it (nesting errors); else 0
    QString file;   // set by readMigPartedFile(); empty for text given in memory
    // "line 7: ...", "line 7, column 12: ..."; with a file "FILE:7: ...", "FILE:7:12: ...",
    // or "FILE: ..." when the file as a whole is wrong.
    QString toString() const;
};

std::optional<YamlNode> parseYaml(const QByteArray &text, YamlError *error);

// --- The mig-parted file ---------------------------------------------------------------------

struct MigPartedEntry
{
    int line = 0;
    bool allDevices = true;
    QList<int> devices;          // when !allDevices
    QList<quint32> deviceFilter; // device << 16 | vendor; empty: every device
    bool migEnabled = false;
    QList<QPair<QString, int>> migDevices; // profile name -> count, in file order
    friend bool operator==(const MigPartedEntry &, const MigPartedEntry &) = default;
};

struct MigPartedConfig
{
    QString name;
    int line = 0;
    QList<MigPartedEntry> entries;
    friend bool operator==(const MigPartedConfig &, const MigPartedConfig &) = default;
};

struct MigPartedFile
{
    QString version = QStringLiteral("v1");
    QList<MigPartedConfig> configs;
    const MigPartedConfig *config(const QString &name) const;
};

// The largest mig-parted file read, in bytes (16 MiB); a real one is a few KB.
inline constexpr qint64 kMaxMigPartedFileSize = qint64(16) * 1024 * 1024;

// Reads a mig-parted file: YAML errors and wrong shapes ("line 12: mig-devices: count must be
// an integer >= 0") are reported with their line. Unknown keys in an entry are errors (a
// misspelt key must not drop a device); version must be "v1". Text longer than
// kMaxMigPartedFileSize is refused (line 0) without being parsed.
std::optional<MigPartedFile> readMigParted(const QByteArray &yaml, YamlError *error);

// readMigParted() on the file at `path`. The size is checked before the file is read: a larger
// file (or a pipe that yields more) is refused with an error naming its size and the limit.
// Every error has error->file = path; nullopt when the file cannot be opened or read, is too
// large, or readMigParted() refuses its text. Blocking file I/O on the calling thread.
std::optional<MigPartedFile> readMigPartedFile(const QString &path, YamlError *error);

// Writes the file; `header` lines (without "# ") go first as comments. readMigParted(write(f))
// gives back the same configs (lines aside).
QByteArray writeMigParted(const MigPartedFile &file, const QStringList &header = {});

// The model's device-filter values, one per PCI device id: "0x233510DE".
QStringList pciFilters(const Domain::CardModel &model);
bool filterMatches(const QList<quint32> &filter, const Domain::CardModel &model);
// A mig-parted profile name as a profile index: exact, then ".me" written for "+me"; -1.
int profileIndexFor(const Domain::CardModel &model, const QString &migPartedName);

// --- Import ----------------------------------------------------------------------------------

// One config entry as it lands on a model: the placements found, or why not.
struct MigPartedPlacement
{
    QString config;
    bool applies = true; // false: the config is for other cards (filter or profile names)
    bool ok = false;     // a legal layout was found (always true with mig-enabled false)
    bool migEnabled = false;
    bool allDevices = true;
    QList<int> devices;
    QList<Domain::MigPlacement> layout; // sorted by start; empty with MIG off or {}
    QString reason;                     // English, empty when ok
    int line = 0;                       // the entry's (or config's) line
};

// The placements of every config (or only `onlyConfig`) for `model`. A config whose entries
// all have a device-filter for other cards, or which names a profile the model lacks, is listed
// once with applies = false and the reason. Otherwise each entry that applies gives one result.
QList<MigPartedPlacement> importMigParted(const MigPartedFile &file,
                                          const Domain::CardModel &model,
                                          const QString &onlyConfig = {});

// A layout with exactly these counts (profile index, count), or nullopt with *reason naming the
// first rule they break (the profile's instance limit, compute or memory slices of the card,
// the one "+me" instance) or that no arrangement of the allowed starts holds them all.
// Deterministic: larger profiles are placed first, each at the lowest start that still leaves a
// solution.
std::optional<QList<Domain::MigPlacement>> placeCounts(const Domain::CardModel &model,
                                                       const QList<QPair<int, int>> &counts,
                                                       QString *reason);

// --- Export ----------------------------------------------------------------------------------

struct MigPartedCardLayout
{
    int model = -1; // catalogue index
    bool migEnabled = false;
    QList<Domain::MigPlacement> layout;
};

// One host's cards (index = the GPU index on the node) as a config: cards with the same model,
// MIG mode and counts become one entry ("devices: all" when it covers the host), each with the
// model's device-filter. Entries come in the order of their first card.
MigPartedConfig exportHost(const Catalogue &catalogue,
                           const QString &configName,
                           const QList<MigPartedCardLayout> &cards);

} // namespace Zhaoxi::Catalogue
