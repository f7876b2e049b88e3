"""ETG firmware: the game engine and the table service for dealer-assisted blackjack."""

__version__ = "0.1.0"
