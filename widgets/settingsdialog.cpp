// SPDX-License-Identifier: GPL-3.0-or-later
#include "settingsdialog.h"

#include "languagecontroller.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

namespace Zhaoxi::Widgets {

QList<double> consoleSpeeds()
{
    return {1, 10, 60, 300, 1800, 3600, -1};
}

QString speedName(double speed)
{
    if (speed <= 0)
        return SettingsDialog::tr("As fast as possible");
    return SettingsDialog::tr("%1×").arg(speed);
}

SettingsDialog::SettingsDialog(const ConsoleSettings &settings, QWidget *parent)
    : QDialog(parent)
    , m_initial(settings)
{
    setWindowTitle(tr("Settings"));
    setObjectName(QStringLiteral("settingsDialog"));

    m_language = new QComboBox(this);
    m_language->addItem(tr("Follow the system"), QString());
    for (const QString &code : LanguageController::languages())
        m_language->addItem(LanguageController::nativeName(code), code);
    m_language->setCurrentIndex(std::max(0, m_language->findData(settings.language)));

    m_speed = new QComboBox(this);
    for (double s : consoleSpeeds())
        m_speed->addItem(speedName(s), s);
    int at = m_speed->findData(settings.speed <= 0 ? -1.0 : settings.speed);
    if (at < 0) {
        m_speed->addItem(speedName(settings.speed), settings.speed);
        at = m_speed->count() - 1;
    }
    m_speed->setCurrentIndex(at);

    auto spin = [this](double value, double max, const QString &suffix) {
        auto *s = new QDoubleSpinBox(this);
        s->setRange(0, max);
        s->setDecimals(0);
        s->setSuffix(suffix);
        s->setValue(value);
        return s;
    };
    m_tempAmber = spin(settings.tempAmberC, 150, tr(" °C"));
    m_tempRed = spin(settings.tempRedC, 150, tr(" °C"));
    m_powerAmber = spin(settings.powerAmberPct, 100, tr(" %"));
    m_powerRed = spin(settings.powerRedPct, 100, tr(" %"));

    m_allowChanges = new QCheckBox(tr("Apply partition changes to real hardware"), this);
    m_allowChanges->setChecked(settings.allowHardwareChanges);
    m_allowChanges->setToolTip(tr("Off: the console only reads real cards. On: repartitions can be "
                                  "applied, each after a confirmation, when the console has the "
                                  "privileges to change MIG."));
    m_pollInterval = new QSpinBox(this);
    m_pollInterval->setRange(250, 60'000);
    m_pollInterval->setSingleStep(250);
    m_pollInterval->setSuffix(tr(" ms"));
    m_pollInterval->setValue(settings.pollIntervalMs);

    auto *general = new QGroupBox(tr("General"), this);
    auto *g = new QFormLayout(general);
    g->addRow(tr("Language:"), m_language);
    g->addRow(tr("Simulation speed:"), m_speed);

    auto *badges = new QGroupBox(tr("Card badges (models without their own limits)"), this);
    auto *b = new QFormLayout(badges);
    auto *badgeNote = new QLabel(tr("A card is judged against its model's slowdown and shutdown "
                                    "temperatures (the catalogue, or the driver's own). These "
                                    "numbers apply only to a card whose model gives none."),
                                 badges);
    badgeNote->setWordWrap(true);
    b->addRow(badgeNote);
    b->addRow(tr("Temperature amber at:"), m_tempAmber);
    b->addRow(tr("Temperature red at:"), m_tempRed);
    b->addRow(tr("Power amber at (of the limit):"), m_powerAmber);
    b->addRow(tr("Power red at (of the limit):"), m_powerRed);

    auto *hardware = new QGroupBox(tr("Real hardware (NVML)"), this);
    auto *h = new QFormLayout(hardware);
    h->addRow(m_allowChanges);
    h->addRow(tr("Read the cards every:"), m_pollInterval);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(general);
    layout->addWidget(badges);
    layout->addWidget(hardware);
    layout->addWidget(buttons);
}

ConsoleSettings SettingsDialog::settings() const
{
    ConsoleSettings c = m_initial;
    c.language = m_language->currentData().toString();
    c.speed = m_speed->currentData().toDouble();
    c.tempAmberC = std::min(m_tempAmber->value(), m_tempRed->value());
    c.tempRedC = m_tempRed->value();
    c.powerAmberPct = std::min(m_powerAmber->value(), m_powerRed->value());
    c.powerRedPct = m_powerRed->value();
    c.allowHardwareChanges = m_allowChanges->isChecked();
    c.pollIntervalMs = m_pollInterval->value();
    return c;
}

} // namespace Zhaoxi::Widgets
