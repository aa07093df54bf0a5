"""``tp.callbacks``: what ``model.fit`` tells as it trains, and the listeners that come with it
(Keras's names and hooks): ``History`` (what fit returns), ``ProgressBar``, ``EarlyStopping``,
``ModelCheckpoint`` (through ``tp.save``), ``LearningRateScheduler`` and ``CSVLogger``; subclass
``Callback`` for your own."""

from __future__ import annotations

from tensorplug.models.callbacks import (
    Callback,
    CSVLogger,
    EarlyStopping,
    History,
    LearningRateScheduler,
    ModelCheckpoint,
    ProgressBar,
    TrainingRun,
)

__all__ = ["Callback", "CSVLogger", "EarlyStopping", "History", "LearningRateScheduler", "ModelCheckpoint",
           "ProgressBar", "TrainingRun"]
