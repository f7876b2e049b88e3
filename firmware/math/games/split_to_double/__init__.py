"""Split to Double Blackjack (§ 633b.26): its hands double or split any two cards, so its
calculation has its own rows.

- :mod:`.hand_values` the hand values and a seat's total value (the shipped figure)
- :mod:`.all_cards_return` the return with every card removed, built from
  :mod:`.card_rows` (one card at a time) and :mod:`.past_tracked_cards` (a whole hand a
  step past the cards tracked)
- :mod:`.paytable_lines` the exact paytable lines and the unsplit rounds' distribution
- :mod:`.all_cards_by_up_card` ``python -m``: the shipped figure against the all-cards one
"""
