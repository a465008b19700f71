"""Engine front ends: ``sparring gtp`` (Go Text Protocol 2) and ``sparring uci`` (chess UCI).

Each is a thin protocol layer over one :class:`~sparring.players.base.Player` and one
:class:`~sparring.session.GameSession` (:mod:`sparring.engines.common`): the protocol's
commands become session moves, handicap stones and undos; a search runs in a worker thread
under a :class:`~sparring.search.limit.Limit` whose stop flag the protocol's ``stop`` (or the
next GTP command after ``lz-analyze``) sets; ``info`` lines and GTP analysis come from the
player's :class:`~sparring.search.analysis.MoveAnalysis`.  Bad input never changes the
engine's state and never ends the process: GTP answers ``? message``, UCI ``info string
error ...``.

* :mod:`sparring.engines.gtp`: :class:`~sparring.engines.gtp.GTPEngine`;
* :mod:`sparring.engines.uci`: :class:`~sparring.engines.uci.UCIEngine`;
* :mod:`sparring.engines.common`: the player seat over a session, the strength settings
  (rank, Elo, style), the search worker, value to centipawns.
"""
