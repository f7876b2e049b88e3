"""Each game's return, and every wager's expected value.

- :mod:`.house_edge` the entry point: every wager's value and the house edge of any game
- :mod:`.hitting` the games the player hits through (blackjack, Bingo, Free Bet,
  Spanish 21): one calculation with per-game payoffs, by total or with every card removed
- :mod:`.split_to_double` Split to Double (§ 633b.26), whose rounds need their own rows
- :mod:`.bingo_weights` Bingo's default weight tables chosen from the computed return
"""
