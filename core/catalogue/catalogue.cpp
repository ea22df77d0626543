// SPDX-License-Identifier: GPL-3.0-or-later
// The catalogue: loading a directory of model files, the built-in one, and looking models up.
// Reading one model file is catalogueparse.cpp's.
#include "catalogue.h"

#include <QDir>
#include <QFile>
#include <QHash>
#include <QtDebug>

// Q_INIT_RESOURCE must be used from the global namespace.
static void initCatalogueResources()
{
    Q_INIT_RESOURCE(zhaoxi_catalogue_files);
}

namespace Zhaoxi::Catalogue {

namespace {

const QString kBuiltInDir = QStringLiteral(":/catalogue");

} // namespace

QString LoadError::toString() const
{
    QString s = file;
    if (line > 0)
        s += QLatin1Char(':') + QString::number(line);
    if (!field.isEmpty())
        s += (s.isEmpty() ? QString() : QStringLiteral(": ")) + field;
    if (!message.isEmpty())
        s += (s.isEmpty() ? QString() : QStringLiteral(": ")) + message;
    return s;
}

std::optional<Catalogue> Catalogue::loadDirectory(const QString &dir, QList<LoadError> *errors)
{
    QList<LoadError> found;
    const QDir d(dir);
    if (!d.exists()) {
        found << LoadError{dir, QString(), 0, QStringLiteral("no such directory")};
    } else {
        const QStringList files = d.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
        if (files.isEmpty())
            found << LoadError{dir, QString(), 0, QStringLiteral("no *.json catalogue files")};

        struct Loaded
        {
            QString file;
            CardModel model;
        };
        QList<Loaded> loaded;
        for (const QString &name : files) {
            const QString path = d.filePath(name);
            QFile f(path);
            if (!f.open(QIODevice::ReadOnly)) {
                found << LoadError{path,
                                   QString(),
                                   0,
                                   QStringLiteral("cannot read the file: %1").arg(f.errorString())};
                continue;
            }
            LoadError e;
            std::optional<CardModel> m = parseModel(f.readAll(), path, &e);
            if (!m) {
                found << e;
                continue;
            }
            loaded.append(Loaded{path, *m});
        }

        // A name or alias that two models answer to would make find() ambiguous.
        QHash<QString, qsizetype> owner; // case-folded name -> index into loaded
        for (qsizetype i = 0; i < loaded.size(); ++i) {
            const CardModel &m = loaded[i].model;
            const QStringList names = QStringList{m.name} + m.aliases;
            for (qsizetype k = 0; k < names.size(); ++k) {
                const QString key = names[k].toCaseFolded();
                const auto it = owner.constFind(key);
                if (it != owner.constEnd()) {
                    const Loaded &first = loaded[*it];
                    found << LoadError{loaded[i].file,
                                       k == 0 ? QStringLiteral("name")
                                              : QStringLiteral("aliases[%1]").arg(k - 1),
                                       0,
                                       QStringLiteral("duplicate model name \"%1\": model %2 in %3 "
                                                      "already answers to it")
                                               .arg(names[k], first.model.name, first.file)};
                    continue;
                }
                owner.insert(key, i);
            }
        }

        if (found.isEmpty()) {
            Catalogue c;
            for (const Loaded &l : loaded)
                c.m_models << l.model;
            if (errors)
                errors->clear();
            return c;
        }
    }
    if (errors)
        *errors = found;
    return std::nullopt;
}

Catalogue Catalogue::builtIn()
{
    initCatalogueResources();
    QList<LoadError> errors;
    std::optional<Catalogue> c = loadDirectory(kBuiltInDir, &errors);
    if (!c) {
        for (const LoadError &e : errors)
            qWarning().noquote() << "built-in catalogue:" << e.toString();
        return Catalogue();
    }
    return *c;
}

const CardModel *Catalogue::find(const QString &nameOrAlias) const
{
    const int i = indexOf(nameOrAlias);
    return i < 0 ? nullptr : &m_models[i];
}

int Catalogue::indexOf(const QString &nameOrAlias) const
{
    for (qsizetype i = 0; i < m_models.size(); ++i) {
        if (m_models[i].matchesName(nameOrAlias))
            return int(i);
    }
    return -1;
}

QStringList Catalogue::names() const
{
    QStringList r;
    r.reserve(m_models.size());
    for (const CardModel &m : m_models)
        r << m.name;
    return r;
}

void Catalogue::add(const CardModel &model)
{
    for (CardModel &m : m_models) {
        if (m.name.compare(model.name, Qt::CaseInsensitive) == 0) {
            m = model;
            return;
        }
    }
    m_models << model;
}

} // namespace Zhaoxi::Catalogue
