"""NIST SP 800-90B entropy assessment of a noise source's raw samples (``etg cert entropy``).

Written from the standard (SP 800-90B, January 2018): section 5 (the IID tests), section
6.3 (the non-IID estimators), section 3.1.4 (the restart tests) and 3.1.3 (how the
estimates combine). Where the standard leaves a choice open (tie-breaking, the first
predictions, search tolerances) the behaviour of NIST's reference tools (SP800-90B_
EntropyAssessment, ``ea_non_iid``, ``ea_iid``, ``ea_restart``) is followed, so that the
two give the same figures on the same file; the tests hold every estimate against the
results NIST publishes beside its sample files (``tests/cert/sp80090b/data``).

* :mod:`.samples` reads a file of samples (one byte each, the low N bits) and makes the
  literal and bitstring views;
* :mod:`.entropic` the most common value, collision, Markov and compression estimates;
* :mod:`.tuples` the t-tuple and longest-repeated-substring estimates (suffix array);
* :mod:`.predictors` the MultiMCW, lag, MultiMMC and LZ78Y predictors (numba kernels in
  :mod:`.kernels`);
* :mod:`.noniid` the whole non-IID track and its JSON (the reference's ``-o`` layout);
* :mod:`.iid` the IID track (permutation, chi-square and LRS tests);
* :mod:`.restart` the restart tests on a 1000 x 1000 restart matrix.
"""
