// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QHashFunctions>
#include <QString>

#include <compare>

namespace Zhaoxi::Domain {

// A strong id: an index that cannot be mixed up with another kind of id.
// Ids are dense indexes into the owning container (hosts, cards, jobs); -1 is "none".
template<typename Tag>
class Id
{
public:
    constexpr Id() = default;
    constexpr explicit Id(int value)
        : m_value(value)
    {}
    constexpr int value() const { return m_value; }
    constexpr bool isValid() const { return m_value >= 0; }
    constexpr auto operator<=>(const Id &) const = default;
    QString toString() const { return QString::number(m_value); }

private:
    int m_value = -1;
};

template<typename Tag>
inline size_t qHash(Id<Tag> id, size_t seed = 0) noexcept
{
    return ::qHash(id.value(), seed);
}

using HostId = Id<struct HostIdTag>;
using CardId = Id<struct CardIdTag>;
using JobId = Id<struct JobIdTag>;
using ServiceId = Id<struct ServiceIdTag>;

} // namespace Zhaoxi::Domain
