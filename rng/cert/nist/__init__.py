"""All fifteen tests of NIST SP 800-22 Rev. 1a on any bit source (``etg cert bits``).

A. Rukhin et al., *A Statistical Test Suite for Random and Pseudorandom Number Generators
for Cryptographic Applications*, NIST SP 800-22 Rev. 1a (2010): section 2 defines the
tests, section 3 their mathematics, section 4.2 the second-level analysis of many
sequences. NIST's reference implementation (sts 2.1.2) is the yardstick: every p-value
equals the reference's to six decimals on its own sample files (tests/cert), and where
the reference and the text differ we follow the reference and say so (docs/cert.md).

* :mod:`.frequency` - 2.1 frequency, 2.2 block frequency, 2.3 runs, 2.4 longest run,
  2.13 cumulative sums;
* :mod:`.rank_dft` - 2.5 binary matrix rank, 2.6 discrete Fourier transform;
* :mod:`.templates` - 2.7 non-overlapping and 2.8 overlapping template matching;
* :mod:`.entropy` - 2.9 Maurer's universal test, 2.11 serial, 2.12 approximate entropy;
* :mod:`.complexity` - 2.10 linear complexity (Berlekamp-Massey on every block at once);
* :mod:`.excursions` - 2.14 random excursions, 2.15 random excursions variant;
* :mod:`.suite` - the parameters, each test's preconditions, one sequence through all;
* :mod:`.second_level` - section 4.2 over many sequences, and the verdict;
* :mod:`.source`, :mod:`.bits_run`, :mod:`.bits_report` - ``etg cert bits``.

Every test works on one sequence held as a numpy array of 0/1 bytes (10^6 bits: 1 MB)
with whole-array operations, no per-bit Python loop.
"""
