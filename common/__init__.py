"""What every other part of flockgym shares and nothing else: the error classes a
user catches (:mod:`~flockgym.common.errors`), safe file writes
(:mod:`~flockgym.common.files`), progress reports (:mod:`~flockgym.common.progress`),
the version and commit (:mod:`~flockgym.common.version`) and a result's
provenance (:mod:`~flockgym.common.provenance`).

It may import the standard library, numpy and :mod:`flockgym.envs` (the reader of
untrusted files); nothing from the training, bots, evaluation, command-line or
play packages, so any of them can import it.
"""
