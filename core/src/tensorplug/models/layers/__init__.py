"""The layers of tp.nn: thin modules over the tp.nn ops."""
