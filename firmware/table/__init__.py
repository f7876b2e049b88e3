"""The table: the controller every happening goes through (journal first, then the game),
what only it uses (recovery, round accounting, the floor's disable, the pending double,
RNG draws, recall), and its three groups: ``devices`` (reports in, commands out),
``requests`` (attendant, bench and floor requests in) and ``service`` (``etg run``)."""
