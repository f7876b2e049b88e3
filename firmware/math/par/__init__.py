"""The PAR sheet a lab signs, every allowed configuration of a game in one document.

- :mod:`.sheet` the document (``etg par``), its sections in :mod:`.sections`
- :mod:`.configurations` which configurations the Rules Submission allows (the axes)
- :mod:`.figures` every figure of one configuration; :mod:`.notes` what each approximates
- :mod:`.split_distribution` a split round's net result (simulated, stratified)
- :mod:`.plots` the plots; :mod:`.check` ``etg par --check`` against a simulation
"""
