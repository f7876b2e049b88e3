"""The leaf core every package may import: it imports nothing else of ours.

* :mod:`etgcore.errors`: the error base classes (:class:`~etgcore.errors.UserError` and
  :class:`~etgcore.errors.ConfigError`), so every layer reports bad input the same way;
* :mod:`etgcore.config_schema`: the configuration schema machinery (field metadata, type and
  range checks, the one-line messages), so each package can own its settings dataclass;
* :mod:`etgcore.cards`: the card alphabet of the shoe ICD (rank then suit, ``TD``);
* :mod:`etgcore.view`: the public view's contract as TypedDicts (what the engine
  publishes and the controller, screen, floor and bench read);
* :mod:`etgcore.cli_context`: what the command line hands each subcommand family;
* :mod:`etgcore.options`: the one vocabulary of command-line options (``--out``,
  ``--seed``, ``--decks``, counts such as ``1e6``), and :mod:`etgcore.progress`, the
  progress line of a long command.

Nothing here knows how a table, an engine or a device works (``view`` only names the
shape of the document the engine publishes); see docs/architecture.md.
"""
