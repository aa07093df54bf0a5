"""Input and output: ``tp.save``/``tp.load`` and their checkpoint files, pickling."""
