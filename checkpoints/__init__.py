"""The trained bots shipped with flockgym (package data: ``flockgym.checkpoints``).

``flockgym list`` names them; a bot spec such as ``asrus/ppo_5p`` seats one from
any folder (see :mod:`flockgym.bots.shipped`). Each game's README says how
each bot was trained and evaluated.
"""
