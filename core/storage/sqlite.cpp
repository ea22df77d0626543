// SPDX-License-Identifier: GPL-3.0-or-later
#include "sqlite.h"

#include <QUrl>

#include <sqlite3.h>

namespace Zhaoxi::Storage::Sql {

Connection::~Connection()
{
    close();
}

Connection &Connection::operator=(Connection &&o) noexcept
{
    if (this != &o) {
        close();
        m_db = std::exchange(o.m_db, nullptr);
    }
    return *this;
}

bool Connection::open(const QString &path, Mode mode, QString *error)
{
    close();
    int flags = SQLITE_OPEN_NOMUTEX; // one thread per connection: no need for SQLite's mutexes
    switch (mode) {
    case Mode::ReadWriteCreate:
        flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
        break;
    case Mode::ReadWrite:
        flags |= SQLITE_OPEN_READWRITE;
        break;
    case Mode::ReadOnly:
        flags |= SQLITE_OPEN_READONLY;
        break;
    case Mode::Immutable:
        flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
        break;
    }
    const QByteArray name = mode == Mode::Immutable
                                    ? QUrl::fromLocalFile(path).toEncoded() + "?immutable=1"
                                    : path.toUtf8();
    const int rc = sqlite3_open_v2(name.constData(), &m_db, flags, nullptr);
    if (rc != SQLITE_OK) {
        if (error)
            *error = m_db ? QString::fromUtf8(sqlite3_errmsg(m_db))
                          : QString::fromUtf8(sqlite3_errstr(rc));
        close();
        return false;
    }
    sqlite3_extended_result_codes(m_db, 1);
    // Readers and a second process may hold the file briefly (checkpoints); wait, do not fail.
    sqlite3_busy_timeout(m_db, 5000);
    return true;
}

void Connection::close()
{
    if (m_db) {
        sqlite3_close_v2(m_db);
        m_db = nullptr;
    }
}

bool Connection::exec(const char *sql, QString *error)
{
    char *msg = nullptr;
    const int rc = sqlite3_exec(m_db, sql, nullptr, nullptr, &msg);
    if (rc != SQLITE_OK) {
        if (error)
            *error = msg ? QString::fromUtf8(msg) : QString::fromUtf8(sqlite3_errstr(rc));
        sqlite3_free(msg);
        return false;
    }
    return true;
}

qint64 Connection::scalar(const char *sql, qint64 fallback, QString *error)
{
    Statement st(*this, sql);
    if (!st.isValid()) {
        if (error)
            *error = errorMessage();
        return fallback;
    }
    bool ok = true;
    if (st.step(&ok) && !st.isNull(0))
        return st.int64(0);
    if (!ok && error)
        *error = errorMessage();
    return fallback;
}

QString Connection::errorMessage() const
{
    return m_db ? QString::fromUtf8(sqlite3_errmsg(m_db)) : QStringLiteral("database not open");
}

int Connection::errorCode() const
{
    return m_db ? sqlite3_extended_errcode(m_db) : SQLITE_MISUSE;
}

qint64 Connection::lastInsertRowId() const
{
    return sqlite3_last_insert_rowid(m_db);
}

Statement::Statement(Connection &db, const char *sql)
    : m_db(db.handle())
{
    if (sqlite3_prepare_v3(m_db, sql, -1, SQLITE_PREPARE_PERSISTENT, &m_stmt, nullptr) != SQLITE_OK)
        m_stmt = nullptr;
}

Statement::~Statement()
{
    sqlite3_finalize(m_stmt);
}

Statement &Statement::operator=(Statement &&o) noexcept
{
    if (this != &o) {
        sqlite3_finalize(m_stmt);
        m_stmt = std::exchange(o.m_stmt, nullptr);
        m_db = o.m_db;
    }
    return *this;
}

void Statement::bindNull(int i)
{
    sqlite3_bind_null(m_stmt, i);
}

void Statement::bind(int i, qint64 v)
{
    sqlite3_bind_int64(m_stmt, i, v);
}

void Statement::bind(int i, double v)
{
    sqlite3_bind_double(m_stmt, i, v);
}

void Statement::bindText(int i, const QByteArray &utf8)
{
    if (utf8.isNull())
        sqlite3_bind_null(m_stmt, i);
    else
        sqlite3_bind_text(m_stmt, i, utf8.constData(), int(utf8.size()), SQLITE_TRANSIENT);
}

void Statement::bindTextStatic(int i, const char *utf8, int n)
{
    sqlite3_bind_text(m_stmt, i, utf8, n, SQLITE_STATIC);
}

bool Statement::step(bool *ok)
{
    const int rc = sqlite3_step(m_stmt);
    if (ok)
        *ok = rc == SQLITE_ROW || rc == SQLITE_DONE;
    return rc == SQLITE_ROW;
}

bool Statement::run()
{
    bool ok = true;
    while (step(&ok)) {
    }
    sqlite3_reset(m_stmt);
    return ok;
}

void Statement::reset()
{
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
}

bool Statement::isNull(int col) const
{
    return sqlite3_column_type(m_stmt, col) == SQLITE_NULL;
}

qint64 Statement::int64(int col) const
{
    return sqlite3_column_int64(m_stmt, col);
}

double Statement::real(int col) const
{
    return sqlite3_column_double(m_stmt, col);
}

QByteArray Statement::bytes(int col) const
{
    const char *p = reinterpret_cast<const char *>(sqlite3_column_text(m_stmt, col));
    if (!p)
        return {};
    return QByteArray(p, sqlite3_column_bytes(m_stmt, col));
}

QString Statement::text(int col) const
{
    const char *p = reinterpret_cast<const char *>(sqlite3_column_text(m_stmt, col));
    if (!p)
        return {};
    return QString::fromUtf8(p, sqlite3_column_bytes(m_stmt, col));
}

const char *Statement::rawText(int col, int *size) const
{
    const char *p = reinterpret_cast<const char *>(sqlite3_column_text(m_stmt, col));
    *size = p ? sqlite3_column_bytes(m_stmt, col) : 0;
    return p;
}

} // namespace Zhaoxi::Storage::Sql
