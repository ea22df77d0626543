// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Reads servers' /metrics and readiness endpoints over HTTP without blocking its caller.
//
// Threading: a Scraper lives on the thread that creates it (which needs an event loop) and is
// used from that thread only, like any QObject. scrape() and probe() return at once; the HTTP
// work, and parsing the body (parseExposition), happen on a private thread the Scraper owns.
// Results come back as signals emitted on the Scraper's own thread, from its event loop, never
// from inside scrape() or probe(), so a slot may call them again. Destroying the Scraper closes
// its connections and drops what is in flight without waiting for any server; no signal is
// emitted after that.
//
// HTTP: a small HTTP/1.1 client of its own on QTcpSocket (QNetworkAccessManager cost several
// times more CPU per request than reading the page). Each request is `GET <path> HTTP/1.1` with
// Host and Connection: keep-alive, to plain http:// URLs only (no TLS), to the address or host
// name the URL gives (loopback or not), no proxy, redirects not followed (a 3xx is an error like
// any other status but 200). The body is framed by Content-Length, chunked transfer coding, or
// the close of the connection when neither is given. The connection is kept for the next request
// to the same host and port, so scraping a server once a second costs one connection, not one a
// second; a second connection is opened only while the first is busy (a probe beside a scrape),
// and an idle one is closed after 30 s, or when the server closes it. A request on a kept
// connection that the server closed before answering (its idle timeout striking just then) is
// sent once more on a new connection; a new connection's failure is reported as it is.
//
// Each request has a total deadline of timeoutMs (2 s by default) from when it is started,
// connecting and any second try included, after which it is aborted whatever the server does (a
// server trickling bytes too), and a body of at most maxBodyBytes. A slow or dead server
// therefore holds up nothing but its own key.
//
// At most one scrape and one probe are in flight per key (a key names one server, e.g. a
// replica job). A scrape() for a key whose previous scrape has not reported yet is skipped: it
// sends nothing and emits nothing, the one in flight will report, and skippedCount() counts it.
// The same holds for probe().
//
// Reports:
// - scraped(key, scrape): scrape.readAtMs is the wall-clock UTC ms when the answer was complete
//   (or the failure known). scrape.ok() when a 200 answer was read: its body is parsed into
//   scrape.metrics (lines that did not parse are in scrape.metrics.errors; the rest is kept).
//   Otherwise scrape.error says what went wrong, as "GET <url>: <what>": "timed out after 2000
//   ms", the network error (e.g. "Connection refused"), "HTTP 503 Service Unavailable", "answer
//   larger than 16777216 bytes", an answer that is not HTTP or broke off ("the server closed
//   the connection before the answer was complete"), or "only http:// URLs are supported";
//   scrape.httpStatus is the status when a status line came (0 if none), even when the rest of
//   the answer then failed.
// - probed(key, ok, error): ok exactly when the server answered 200; error is empty then, and
//   otherwise in the same words as a scrape's.

#include "promtext.h"

#include <QHash>
#include <QObject>
#include <QSet>
#include <QString>
#include <QThread>
#include <QUrl>

namespace Zhaoxi::Runtime {

class ScraperWorker;

class Scraper : public QObject
{
    Q_OBJECT

public:
    static constexpr int defaultTimeoutMs = 2000;
    static constexpr qint64 maxBodyBytes = qint64(16) * 1024 * 1024;

    explicit Scraper(QObject *parent = nullptr);
    ~Scraper() override;

    // The deadline for requests started from now on; clamped to at least 1 ms.
    void setTimeoutMs(int ms);
    int timeoutMs() const { return m_timeoutMs; }

    void scrape(const QString &key, const QUrl &url);
    void probe(const QString &key, const QUrl &url);

    bool isScraping(const QString &key) const { return m_scraping.contains(key); }
    bool isProbing(const QString &key) const { return m_probing.contains(key); }
    // Requests skipped because one for the same key was in flight, since construction.
    qint64 skippedCount() const { return m_skipped; }

Q_SIGNALS:
    void scraped(const QString &key, const Zhaoxi::Runtime::Scrape &scrape);
    void probed(const QString &key, bool ok, const QString &error);

private:
    void onScrapeDone(const QString &key, const Zhaoxi::Runtime::Scrape &scrape);
    void onProbeDone(const QString &key, bool ok, const QString &error);

    QThread m_thread;
    ScraperWorker *m_worker = nullptr; // lives on m_thread; deleted there when it finishes
    int m_timeoutMs = defaultTimeoutMs;
    QSet<QString> m_scraping;
    QSet<QString> m_probing;
    qint64 m_skipped = 0;
};

} // namespace Zhaoxi::Runtime
