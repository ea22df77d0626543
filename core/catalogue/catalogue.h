// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/domain/cardmodel.h"

#include <QList>
#include <QString>

#include <optional>

namespace Zhaoxi::Catalogue {

using Domain::CardModel;

// An error in a catalogue file: which file, which field (JSON path, e.g.
// "migProfiles[2].starts"), the line where it can be told (JSON syntax errors), and why.
struct LoadError
{
    QString file;
    QString field;
    int line = 0; // 0 when unknown
    QString message;
    QString toString() const;
};

// The card models the appliance knows, loaded from one JSON file per model.
class Catalogue
{
public:
    // The catalogue shipped with the program (resources/catalogue, compiled in as :/catalogue).
    static Catalogue builtIn();
    // Loads every *.json in `dir`. All-or-nothing: on any error returns nullopt and lists every
    // error found in *errors.
    static std::optional<Catalogue> loadDirectory(const QString &dir, QList<LoadError> *errors);
    // Parses and validates one model file's contents.
    static std::optional<CardModel> parseModel(const QByteArray &json, const QString &fileName,
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
