"""The training configs shipped with flockgym (package data: ``flockgym.configs``).

``flockgym list`` names them; ``flockgym train quickstart`` or ``flockgym train
asrus/ppo`` runs one from any folder (see :mod:`flockgym.bots.shipped`).
"""
