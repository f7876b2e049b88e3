"""The computed strategy the automatic players and the PAR sheet use.

- :mod:`.decision` what a strategy answers (:class:`~.decision.Decision`), shared by both
- :mod:`.basic` the total-dependent basic strategy, and :func:`~.basic.strategy_for`,
  which picks the strategy for any rules (card removal for a finite hitting shoe)
- :mod:`.card_removal` the strategy with the player's cards out of a finite shoe, solved
  by :mod:`.card_removal_solver` one up card at a time (:mod:`.card_removal_up_card`)
- :mod:`.chart` / :mod:`.chart_table` / :mod:`.card_removal_chart` the printed chart
- :mod:`.dense_tables` the strategy as dense arrays for the compiled fast path
- :mod:`.on_disk` the strategy kept on disk between starts
"""
