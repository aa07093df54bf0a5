"""The optim family: AdamUpdate. Here: spec."""
