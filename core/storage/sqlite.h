// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>

#include <utility>

struct sqlite3;
struct sqlite3_stmt;

namespace Zhaoxi::Storage::Sql {

// Thin RAII over the SQLite C API, for this library's own use. A Connection and its statements
// belong to one thread at a time; nothing here locks.

class Statement;

class Connection
{
public:
    Connection() = default;
    ~Connection();
    Connection(Connection &&o) noexcept
        : m_db(std::exchange(o.m_db, nullptr))
    {}
    Connection &operator=(Connection &&o) noexcept;
    Connection(const Connection &) = delete;
    Connection &operator=(const Connection &) = delete;

    // Immutable: read-only, and the file can change under nobody (a read-only filesystem):
    // SQLite takes no locks and needs no -shm file, which it could not create there.
    enum class Mode { ReadWriteCreate, ReadWrite, ReadOnly, Immutable };
    // Opens `path`; on failure returns false and fills *error with SQLite's message.
    bool open(const QString &path, Mode mode, QString *error);
    void close();
    bool isOpen() const { return m_db != nullptr; }
    sqlite3 *handle() const { return m_db; }

    // Runs one or more statements without results. False + *error on failure.
    bool exec(const char *sql, QString *error = nullptr);
    // The first column of the first row of a query, as an integer (or `fallback`).
    qint64 scalar(const char *sql, qint64 fallback = -1, QString *error = nullptr);
    QString errorMessage() const;
    int errorCode() const;
    qint64 lastInsertRowId() const;

private:
    sqlite3 *m_db = nullptr;
};

class Statement
{
public:
    Statement() = default;
    Statement(Connection &db, const char *sql);
    ~Statement();
    Statement(Statement &&o) noexcept
        : m_stmt(std::exchange(o.m_stmt, nullptr))
        , m_db(o.m_db)
    {}
    Statement &operator=(Statement &&o) noexcept;
    Statement(const Statement &) = delete;
    Statement &operator=(const Statement &) = delete;

    bool isValid() const { return m_stmt != nullptr; }
    // Bind indexes are 1-based, as in SQLite.
    void bindNull(int i);
    void bind(int i, qint64 v);
    void bind(int i, int v) { bind(i, qint64(v)); }
    void bind(int i, double v);
    void bindText(int i, const QByteArray &utf8);        // copied by SQLite
    void bindTextStatic(int i, const char *utf8, int n); // must outlive the step
    void bindText(int i, const QString &text) { bindText(i, text.toUtf8()); }
    void bindOptional(int i, int v) // v < 0 binds NULL (ids use -1 for "none")
    {
        if (v < 0)
            bindNull(i);
        else
            bind(i, qint64(v));
    }

    // SQLITE_ROW -> true; SQLITE_DONE -> false with ok; errors -> false, *ok = false.
    bool step(bool *ok = nullptr);
    // step() to completion, for statements without results; false on error.
    bool run();
    void reset();

    bool isNull(int col) const;
    qint64 int64(int col) const;
    double real(int col) const;
    QByteArray bytes(int col) const; // copies
    QString text(int col) const;
    // Raw access for hot paths (valid until the next step/reset).
    const char *rawText(int col, int *size) const;

    sqlite3_stmt *handle() const { return m_stmt; }

private:
    sqlite3_stmt *m_stmt = nullptr;
    sqlite3 *m_db = nullptr;
};

} // namespace Zhaoxi::Storage::Sql
