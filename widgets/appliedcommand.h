// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QUndoCommand>

namespace Zhaoxi::Widgets {

// An undo command for an edit that is already made (and checked) when the command is pushed:
// QUndoStack::push() calls redo() at once, and that first redo() does nothing; later ones call
// replay(), which makes the edit again. Header only.
class AppliedCommand : public QUndoCommand
{
public:
    explicit AppliedCommand(const QString &text)
        : QUndoCommand(text)
    {}

    void redo() final
    {
        if (m_applied) {
            m_applied = false;
            return;
        }
        replay();
    }

protected:
    // Makes the edit again, after an undo.
    virtual void replay() = 0;

private:
    bool m_applied = true;
};

} // namespace Zhaoxi::Widgets
