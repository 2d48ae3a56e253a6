"""Moderator and judge reliability from decided items alone (paper 2, Safety-Flag): error direction,
calibration, selective prediction, stability, and their figures.

Pure numbers over a frame of ModerationRecords (numpy, pandas; matplotlib for the figures, imported by
the functions that draw): no model, no I/O. ``toolkit.stages.moderation`` produces the records and writes the
report; the Space computes the same report from the published records with these modules.
"""
