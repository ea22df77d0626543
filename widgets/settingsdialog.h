// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "consolesettings.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace Zhaoxi::Widgets {

// The console's settings: language, simulation speed, badge thresholds, and for real hardware
// whether repartitions may be applied and how often the cards are read. GUI thread.
class SettingsDialog : public QDialog
{
    Q_OBJECT

public:
    explicit SettingsDialog(const ConsoleSettings &settings, QWidget *parent = nullptr);
    ConsoleSettings settings() const;

private:
    ConsoleSettings m_initial;
    QComboBox *m_language = nullptr;
    QComboBox *m_speed = nullptr;
    QDoubleSpinBox *m_tempAmber = nullptr;
    QDoubleSpinBox *m_tempRed = nullptr;
    QDoubleSpinBox *m_powerAmber = nullptr;
    QDoubleSpinBox *m_powerRed = nullptr;
    QCheckBox *m_allowChanges = nullptr;
    QSpinBox *m_pollInterval = nullptr;
};

// The speeds the console offers (simulated seconds per second; -1: as fast as it goes) and their
// names ("60×", "As fast as possible").
QList<double> consoleSpeeds();
QString speedName(double speed);

} // namespace Zhaoxi::Widgets
