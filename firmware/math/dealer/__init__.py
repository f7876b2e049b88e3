"""The dealer's laws: the probability of each final total the dealer can reach.

- :mod:`.rule` the dealer's standing rule and the outcome indices every law is read by
- :mod:`.final_total` one shoe composition, exactly (fractions) or in floats
- :mod:`.many_shoes` many compositions at once (numpy), the same law
- :mod:`.newton_series` the law near one shoe as a finite series in the cards removed
- :mod:`.removed_cards` exact joint laws for many removed multisets (every card of a round),
  with its compiled part in :mod:`.removed_cards_kernel`
"""
