"""One player hand's value: stand, hit, double, split, for a dealer up card.

- :mod:`.hand_value` one hand against one composition (the total-dependent solver)
- :mod:`.split_value` a split (and Split to Double's split of any two cards)
- :mod:`.split_card_removal` a split with every card of the round removed
- :mod:`.forest` every hand a round can hold, as numpy rows (the card-removal unit)
- :mod:`.payoffs` what a row standing, doubled, bust or rescued is worth
- :mod:`.backward_pass` every row's value, hard 21 first
- :mod:`.up_card` one up card's rows, their dealer laws and the moves between them
"""
