"""The hitting games (blackjack, Bingo, Free Bet, Spanish 21): one calculation.

The games differ only in what a hand is paid (and Bingo's lanes), so they share one
round value: :mod:`.round_value` by the first three cards (total-dependent), and with
every card of the round removed :mod:`.card_removal_return` (the strategy's return),
:mod:`.card_removal_lines` (each paytable line's probability) and
:mod:`.card_removal_par` (every line's exact count per round, for the PAR sheet).
"""
