"""The multinomial family: Multinomial (TF.js): ``num_samples`` class indices per row of 2-d logits (or
of probabilities with ``normalized``), int64, from an explicit integer seed (the same seed gives the
same samples on one backend; streams differ between backends). Here: spec, ops."""
