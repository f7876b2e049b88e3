"""The RNG certification lab: a statistical battery, certification runs and reports.

What a gaming lab needs to certify the table's RNG from evidence (§ 810a.5: outcomes
"statistically independent", "fairly distributed", passing "recognized statistical
tests" at a stated confidence level):

* :mod:`rng.cert.battery` - the battery on scaled outcomes (targets, multipliers, cards):
  goodness of fit to the configured weights, serial correlation at lags 1-10, runs up and
  down, gap, poker, coupon collector and repeated-subsequence tests;
  :mod:`rng.cert.frequency` also holds target x multiplier independence;
* :mod:`rng.cert.shuffles` - card-by-position matrix, adjacent pairs, repeated shoes;
* :mod:`rng.cert.sp80022` - seven NIST SP 800-22 tests streamed over the raw DRBG
  stream as one sequence;
* :mod:`rng.cert.nist` - all fifteen SP 800-22 tests, equal to NIST's reference, on any
  bit source (``etg cert bits``) and on the run's stream cut into 10^6-bit sequences;
* :mod:`rng.cert.results` - how the family of tests is judged (Holm, family-wise 1%);
* :mod:`rng.cert.run` (``etg cert run``) and :mod:`rng.cert.analyze`
  (``etg cert analyze``), :mod:`rng.cert.report` (Markdown, HTML, PNG).

Everything streams in chunks, so memory stays bounded for any sample size. Each test
names its reference in its docstring and in docs/cert.md.
"""
